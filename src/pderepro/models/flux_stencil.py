"""Sub-grid flux closures of 1-D shallow water on a four-point stencil.

A closure gives, at every coarse face ``J`` (the left face of cell ``J``), the mass and
momentum flux correction ``C_J`` the coarse scheme misses
(:mod:`pderepro.solvers.shallow_water.coarse`), from the coarse cells ``J-2, J-1, J, J+1``:

* :class:`StencilFluxNet`: the seed paper's feed-forward network on the stencil's
  coarse variables and their local averages. Its inputs per face are the stencil means
  of ``h`` and ``hu`` and the four cells' departures from them, each standardised by its
  training mean and spread (buffers: a checkpoint is self-describing); its outputs are
  ``C / target_scale`` per component (the loss then weighs mass and momentum alike).
  One network serves every face (a 1-D convolution of width 4, periodic).
* :func:`diffusive_flux`: the classical reference, a local Lax-Friedrichs flux
  ``-kappa a_J (U_J - U_{J-1})`` with ``a_J`` the larger ``|u| + sqrt(g h)`` of the two
  cells and one coefficient ``kappa`` per variable fitted by least squares
  (:func:`fit_diffusion`); ``kappa < 0`` is anti-diffusion, undoing the coarse scheme's
  excess numerical diffusion.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.solvers.shallow_water.shallow_water import velocity

__all__ = ["StencilFluxNet", "diffusive_flux", "fit_diffusion", "stencil_features"]

#: Cells of the stencil, relative to face ``J``'s right cell: ``J-2, J-1, J, J+1``.
STENCIL = (-2, -1, 0, 1)
#: Features per face: the two local means and 2 x 4 departures.
N_FEATURES = 2 + 2 * len(STENCIL)


def stencil_features(state: Tensor) -> Tensor:
    """Raw features of every face, ``(B, 2, n) -> (B, n, 10)``.

    ``[mean h, mean hu, h_{J-2..J+1} - mean h, hu_{J-2..J+1} - mean hu]`` over the periodic
    four-point stencil of face ``J``.
    """
    cells = torch.stack([torch.roll(state, -s, dims=-1) for s in STENCIL], dim=-1)  # (B,2,n,4)
    mean = cells.mean(dim=-1, keepdim=True)  # (B, 2, n, 1)
    departures = (cells - mean).permute(0, 2, 1, 3).flatten(2)  # (B, n, 8)
    return torch.cat([mean[..., 0].transpose(1, 2), departures], dim=-1)  # (B, n, 10)


class StencilFluxNet(nn.Module):
    """Face corrections from the four-point stencil, ``(B, 2, n) -> (B, 2, n)`` normalised.

    Parameters
    ----------
    hidden : sequence of int
        Widths of the hidden layers (GELU between them).
    feature_mean, feature_std : sequence of float
        Training statistics of the :func:`stencil_features` (10 each).
    target_scale : sequence of float
        Training spread of the mass and momentum corrections (flux units): the network's
        outputs are ``C / target_scale``; :meth:`physical` returns ``C``.
    """

    def __init__(
        self, hidden: Sequence[int] = (64, 64), feature_mean: Sequence[float] | None = None,
        feature_std: Sequence[float] | None = None, target_scale: Sequence[float] = (1.0, 1.0),
    ) -> None:  # fmt: skip
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        mean = feature_mean if feature_mean is not None else [0.0] * N_FEATURES
        std = feature_std if feature_std is not None else [1.0] * N_FEATURES
        self.register_buffer("feature_mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("feature_std", torch.tensor(std, dtype=torch.float32))
        self.register_buffer("target_scale", torch.tensor(target_scale, dtype=torch.float32))
        widths = [N_FEATURES, *self.hidden, 2]
        layers: list[nn.Module] = []
        for i, (a, b) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
            layers.append(nn.Linear(a, b))
            if i < len(widths) - 2:
                layers.append(nn.GELU())
        self.body = nn.Sequential(*layers)

    def forward(self, state: Tensor) -> Tensor:
        """``state`` (B, 2, n) physical; returns ``C / target_scale`` (B, 2, n)."""
        z = (stencil_features(state) - self.feature_mean) / self.feature_std  # (B, n, 10)
        return self.body(z).transpose(1, 2)  # (B, 2, n)

    def physical(self, state: np.ndarray) -> np.ndarray:
        """The correction ``C`` in flux units for a float64 state ``(S, 2, n)``."""
        with torch.no_grad():
            out = self(torch.as_tensor(state, dtype=torch.float32))
            return (out * self.target_scale[:, None]).double().numpy()


def _wave_speed(state: np.ndarray, gravity: float, dry: float = 1e-8) -> np.ndarray:
    """``a_J = max(|u| + sqrt(g h))`` over the two cells of face ``J``, ``(S, n)``."""
    h, hu = state[:, 0], state[:, 1]
    u = velocity(h, hu, dry)
    speed = np.abs(u) + np.sqrt(gravity * np.maximum(h, 0.0))
    return np.maximum(speed, np.roll(speed, 1, axis=-1))


def diffusive_flux(state: np.ndarray, kappa: Sequence[float], gravity: float) -> np.ndarray:
    """``-kappa_v a_J (U_J - U_{J-1})`` per variable ``v``, ``(S, 2, n)`` (flux units)."""
    jump = state - np.roll(state, 1, axis=-1)  # (S, 2, n)
    return -np.asarray(kappa)[None, :, None] * _wave_speed(state, gravity)[:, None] * jump


def fit_diffusion(states: np.ndarray, corrections: np.ndarray, gravity: float) -> list[float]:
    """Least-squares ``kappa`` per variable of :func:`diffusive_flux` against exact
    corrections (both ``(N, 2, n)``)."""
    basis = diffusive_flux(states, [1.0, 1.0], gravity)  # the flux at kappa = 1
    return [
        float((basis[:, v] * corrections[:, v]).sum() / max((basis[:, v] ** 2).sum(), 1e-300))
        for v in range(2)
    ]
