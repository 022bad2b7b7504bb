"""One-dimensional Fourier neural operator (Li et al., 2021, "Fourier Neural Operator for
Parametric Partial Differential Equations"): the FNO of the Burgers table, and (without
the coordinate channel) the non-local Lorenz-96 closure over the ring of ``X_k``. The 2-D
and 3-D operators are in :mod:`pderepro.models.fno2d`."""

from __future__ import annotations

import logging

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.hparams import HParamsMixin
from pderepro.models.layers import SpectralConv1d

logger = logging.getLogger(__name__)

__all__ = ["FNO1d"]


class FNO1d(HParamsMixin, nn.Module):
    """Fourier neural operator ``(batch, n) -> (batch, n)`` on a periodic 1-D grid
    (Burgers: ``u0(x) -> u(x, t=1)``; closures: ``X -> U``).

    The input channels are ``(u0(x_j), x_j)`` with ``x_j = j / n`` (only ``u0`` when
    ``grid`` is false); the model appends the grid itself.  Architecture: lifting
    ``Linear(2, width)`` (``Linear(1, width)`` without the grid); ``layers`` Fourier
    layers ``v <- act(K v + W v)`` with ``K`` a :class:`SpectralConv1d` and ``W`` a
    pointwise linear map, no activation after the last; projection
    ``Linear(width, projection)``, GELU, ``Linear(projection, 1)``.

    Parameters
    ----------
    modes : int
        Retained Fourier modes per layer (paper: 16).
    width : int
        Channel width of the Fourier layers (paper: 64).
    layers : int
        Number of Fourier layers (paper: 4).
    projection : int
        Hidden width of the projection MLP (paper: 128).
    grid : bool
        Append the coordinate ``x_j`` as an input channel (the paper's choice). Without it
        the model is equivariant under cyclic shifts, as a closure on the Lorenz-96 ring
        should be.

    Notes
    -----
    Resolution-independent: the same weights apply at any ``n >= 2 * modes``.
    """

    hparam_names = ("modes", "width", "layers", "projection", "grid")

    def __init__(
        self,
        modes: int = 16,
        width: int = 64,
        layers: int = 4,
        projection: int = 128,
        grid: bool = True,
    ) -> None:
        super().__init__()
        if min(modes, width, layers, projection) < 1:
            raise ValueError("modes, width, layers and projection must be positive")
        self.modes = modes
        self.width = width
        self.layers = layers
        self.projection = projection
        self.grid = bool(grid)
        self.lift = nn.Linear(2 if self.grid else 1, width)
        self.spectral = nn.ModuleList(SpectralConv1d(width, width, modes) for _ in range(layers))
        self.pointwise = nn.ModuleList(nn.Conv1d(width, width, 1) for _ in range(layers))
        self.proj_hidden = nn.Linear(width, projection)
        self.proj_out = nn.Linear(projection, 1)

    def forward(self, u: Tensor) -> Tensor:
        """Map input functions to output functions (e.g. initial conditions to solutions).

        Parameters
        ----------
        u : Tensor, shape (batch, n)
            Input function sampled at ``x_j = j / n``.

        Returns
        -------
        Tensor, shape (batch, n)
        """
        batch, n = u.shape
        if self.grid:
            coords = torch.arange(n, device=u.device, dtype=u.dtype) / n  # (n,)
            v = torch.stack([u, coords.expand(batch, n)], dim=-1)  # (batch, n, 2)
        else:
            v = u.unsqueeze(-1)  # (batch, n, 1)
        v = self.lift(v).transpose(1, 2)  # (batch, width, n)
        for i, (spectral, pointwise) in enumerate(zip(self.spectral, self.pointwise, strict=True)):
            v = spectral(v) + pointwise(v)  # (batch, width, n)
            if i < self.layers - 1:
                v = F.gelu(v)
        v = v.transpose(1, 2)  # (batch, n, width)
        v = F.gelu(self.proj_hidden(v))  # (batch, n, projection)
        return self.proj_out(v).squeeze(-1)  # (batch, n)
