"""Physics-Informed Gaussians (Kang et al., ICLR 2025; docs/references.md): ``u(z)`` from a
sum of Gaussian features with trainable means and diagonal covariances, through a small
MLP, and the registry of the physics-informed kind's coordinate networks.

With ``z`` the inputs mapped onto ``[-1, 1]^d`` over the domain, each of the ``k`` feature
channels has its own ``N`` Gaussians (the authors' released code, which defines the
published numbers; the paper's text writes one set shared by ``k``-vector features):
Gaussian ``i`` of channel ``c`` has mean ``mu_ci (d,)``, standard deviations
``sigma_ci (d,)`` (``exp`` of a trainable log, so they stay positive; the code squares a
raw ``sigma``) and a weight ``w_ci``; the embedding is

    FE_c(z) = sum_i w_ci exp(-1/2 sum_d ((z_d - mu_cid) / sigma_cid)^2)     c = 1..k

and ``u = MLP(FE(z))`` with tanh hidden layers (the authors': ``k = 4``, one hidden layer
of 16). Means start uniform over the box (seeded), deviations at ``sigma0`` (in units of
the scaled box's half-width), weights at ``N(0, feature_init^2)``. Every one of them is
trained, so the Gaussians move and reshape where the residual asks: the paper's "adaptive
parametric mesh".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from pderepro.models.hparams import HParamsMixin
from pderepro.models.pinn_mlp import CoordinateMLP, tanh_mlp


class GaussianFeatureNet(HParamsMixin, nn.Module):
    """``u(points)`` as an MLP on trainable Gaussian features.

    Parameters
    ----------
    bounds : sequence of pairs
        The domain, one ``(lo, hi)`` per coordinate, mapped onto ``[-1, 1]^d``.
    gaussians : int
        Gaussians ``N`` per feature channel.
    sigma0 : float
        Initial standard deviation of every Gaussian along every axis (scaled units).
    features : int
        Feature channels ``k`` (the MLP's input).
    width, depth : int
        Hidden units and hidden layers of the MLP (the paper's 16 and 1).
    feature_init : float
        Standard deviation of the initial weights.
    seed : int
        Seeds the means and features (the MLP follows torch's global seed).
    """

    hparam_names = (
        "bounds", "gaussians", "sigma0", "features", "width", "depth", "feature_init", "seed"
    )  # fmt: skip

    def __init__(
        self,
        bounds: Sequence[Sequence[float]],
        gaussians: int = 800,
        sigma0: float = 0.1,
        features: int = 4,
        width: int = 16,
        depth: int = 1,
        feature_init: float = 1.0,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.bounds = [[float(lo), float(hi)] for lo, hi in bounds]
        self.gaussians, self.sigma0, self.features = int(gaussians), float(sigma0), int(features)
        self.width, self.depth = int(width), int(depth)
        self.feature_init, self.seed = float(feature_init), int(seed)
        dim = len(self.bounds)
        self.register_buffer("lower", torch.tensor([b[0] for b in self.bounds]))
        self.register_buffer("span", torch.tensor([b[1] - b[0] for b in self.bounds]))
        generator = torch.Generator().manual_seed(self.seed)
        shape = (self.features, self.gaussians, dim)
        self.means = nn.Parameter(2 * torch.rand(shape, generator=generator) - 1)  # (k, N, d)
        self.log_sigma = nn.Parameter(torch.full(shape, math.log(self.sigma0)))  # (k, N, d)
        values = self.feature_init * torch.randn(self.features, self.gaussians, generator=generator)
        self.values = nn.Parameter(values)  # (k, N)
        self.net = tanh_mlp(self.features, self.width, self.depth)

    def embedding(self, points: Tensor) -> Tensor:
        """The Gaussian features ``(n, k)`` at ``points (n, d)``."""
        z = 2 * (points - self.lower) / self.span - 1  # (n, d)
        scaled = (z[:, None, None, :] - self.means) / self.log_sigma.exp()  # (n, k, N, d)
        bumps = torch.exp(-0.5 * (scaled**2).sum(-1))  # (n, k, N)
        return (bumps * self.values).sum(-1)  # (n, k)

    def forward(self, points: Tensor) -> Tensor:
        """Parameters: points, Tensor (n, d). Returns: Tensor (n,)."""
        return self.net(self.embedding(points)).squeeze(-1)


#: The coordinate networks a study's ``network.architecture`` may name.
COORDINATE_NETWORKS = {"mlp": CoordinateMLP, "pig": GaussianFeatureNet}


def build_coordinate_network(
    architecture: str, bounds: Sequence[Sequence[float]], seed: int, **hparams: Any
) -> nn.Module:
    """The network ``architecture`` (:data:`COORDINATE_NETWORKS`) on the box ``bounds``."""
    if architecture not in COORDINATE_NETWORKS:
        raise ValueError(
            f"unknown network {architecture!r}; choose from {sorted(COORDINATE_NETWORKS)}"
        )
    return COORDINATE_NETWORKS[architecture](bounds, seed=seed, **hparams)
