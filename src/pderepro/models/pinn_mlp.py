"""The coordinate MLP of the physics-informed kind: ``(x, t) -> u`` (or any box's
coordinates; the ``periodic`` embedding needs ``(x, t)``).

A tanh MLP on inputs mapped to ``[-1, 1]`` over the problem's domain, optionally behind an
embedding of ``x``:

* ``fourier``: random Fourier features ``[cos(2 pi B z), sin(2 pi B z)]`` of the scaled
  inputs ``z``, ``B ~ N(0, sigma^2)`` fixed at construction (Tancik et al. 2020), the
  "Fourier feature layer" of the R3 paper's Allen-Cahn network;
* ``periodic``: ``cos(k w x), sin(k w x)`` for ``k = 1..K`` with ``w = 2 pi / L``, which
  makes ``u`` exactly periodic in ``x`` (Dong and Ni 2021), so the boundary loss vanishes.

Its ``hparams`` describe it fully, so a checkpoint rebuilds it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from pderepro.models.hparams import HParamsMixin

EMBEDDINGS = ("none", "fourier", "periodic")


def tanh_mlp(n_in: int, width: int, depth: int) -> nn.Sequential:
    """``n_in -> width`` (``depth`` hidden tanh layers) ``-> 1``; no hidden layer at depth 0."""
    layers: list[nn.Module] = []
    for i in range(depth):
        layers += [nn.Linear(n_in if i == 0 else width, width), nn.Tanh()]
    layers.append(nn.Linear(width if depth else n_in, 1))
    return nn.Sequential(*layers)


class CoordinateMLP(HParamsMixin, nn.Module):
    """``u(x, t)`` as an MLP with tanh activations.

    Parameters
    ----------
    bounds : sequence of two pairs
        ``((x_lo, x_hi), (t_lo, t_hi))``: the domain, mapped affinely onto ``[-1, 1]^2``
        (``scale_inputs``) before anything else.
    width, depth : int
        Hidden units per layer and hidden layers.
    embedding : str
        One of :data:`EMBEDDINGS`.
    features : int
        Fourier features (``fourier``: output ``2 * features``) or harmonics ``K``
        (``periodic``: ``2 K`` values of ``x`` plus ``t``).
    sigma : float
        Standard deviation of the Fourier frequencies (per unit of scaled input).
    scale_inputs : bool
        Map the domain onto ``[-1, 1]^2``; False feeds raw ``(x, t)`` (the papers' default).
    seed : int
        Seeds the Fourier frequencies (the weights follow torch's global seed).
    """

    hparam_names = (
        "bounds", "width", "depth", "embedding", "features", "sigma", "scale_inputs", "seed"
    )  # fmt: skip

    def __init__(
        self,
        bounds: Sequence[Sequence[float]],
        width: int = 50,
        depth: int = 4,
        embedding: str = "none",
        features: int = 0,
        sigma: float = 1.0,
        scale_inputs: bool = True,
        seed: int = 0,
    ) -> None:
        super().__init__()
        if embedding not in EMBEDDINGS:
            raise ValueError(f"unknown embedding {embedding!r}; choose from {EMBEDDINGS}")
        if embedding != "none" and features < 1:
            raise ValueError(f"embedding {embedding!r} needs features >= 1, got {features}")
        self.bounds = [[float(lo), float(hi)] for lo, hi in bounds]
        self.width, self.depth = int(width), int(depth)
        self.embedding, self.features, self.sigma = embedding, int(features), float(sigma)
        self.scale_inputs, self.seed = bool(scale_inputs), int(seed)
        lower = torch.tensor([b[0] for b in self.bounds])
        span = torch.tensor([b[1] - b[0] for b in self.bounds])
        self.register_buffer("lower", lower)
        self.register_buffer("span", span)
        if embedding == "fourier":
            generator = torch.Generator().manual_seed(self.seed)
            dim = len(self.bounds)
            frequencies = self.sigma * torch.randn(dim, self.features, generator=generator)
            self.register_buffer("frequencies", frequencies)  # (dim, features)
            n_in = 2 * self.features
        elif embedding == "periodic":
            self.register_buffer("harmonics", torch.arange(1, self.features + 1.0))
            n_in = 2 * self.features + 1
        else:
            n_in = len(self.bounds)
        self.net = tanh_mlp(n_in, self.width, self.depth)

    def forward(self, points: Tensor) -> Tensor:
        """Parameters: points, Tensor (n, dim). Returns: Tensor (n,)."""
        if self.embedding == "periodic":
            # the harmonics of x on its own period; t scaled (or raw) beside them
            phase = 2 * math.pi * (points[:, :1] - self.lower[0]) / self.span[0]
            angles = phase * self.harmonics  # (n, K)
            t = points[:, 1:]
            if self.scale_inputs:
                t = 2 * (t - self.lower[1]) / self.span[1] - 1
            inputs = torch.cat([torch.cos(angles), torch.sin(angles), t], dim=1)  # (n, 2K+1)
        else:
            inputs = 2 * (points - self.lower) / self.span - 1 if self.scale_inputs else points
            if self.embedding == "fourier":
                angles = 2 * math.pi * inputs @ self.frequencies  # (n, features)
                inputs = torch.cat([torch.cos(angles), torch.sin(angles)], dim=1)
        return self.net(inputs).squeeze(-1)  # (n,)
