"""The discrete Darcy residual of generated ``(K, p)`` fields, in torch and differentiable.

The residual is that of the solver's own discretisation
(:func:`pderepro.solvers.elliptic.darcy.darcy_operator`), so a solver sample has a residual of
round-off size and a generative model is judged against the equations its training data
solve exactly. Fields are vertex values on the grid ``x_i = i h``, ``y_j = j h``,
``h = 1 / (s - 1)``, boundary included, indexed ``[..., i, j]`` (axis -2 is ``x``, axis -1 is
``y``), as in the solver. The equation is ``-div(K grad p) = f`` with ``p = 0`` on the
boundary; at an interior vertex the conservative 5-point scheme reads

    r = (K_E (p - p_E) + K_W (p - p_W) + K_N (p - p_N) + K_S (p - p_S)) / h^2 - f,

with face coefficients the harmonic mean ``2 K1 K2 / (K1 + K2)`` of the two vertex values
they separate (or the arithmetic mean, as the solver's ``face_mean`` allows). The boundary
condition is a separate term, the boundary values of ``p`` themselves. The solver drops
boundary neighbours from its matrix because they are zero; here they enter as they are, which
is the same for a field that honours the boundary condition.
"""

from __future__ import annotations

import torch
from torch import Tensor

from pderepro.solvers.elliptic.darcy import FACE_MEANS

__all__ = ["darcy_boundary", "darcy_residual", "darcy_residual_loss"]


def _check_fields(k: Tensor, p: Tensor) -> None:
    if k.shape != p.shape or k.ndim < 2 or k.shape[-1] != k.shape[-2] or k.shape[-1] < 3:
        raise ValueError(
            f"k and p must share a shape (..., s, s) with s >= 3, got {tuple(k.shape)} "
            f"and {tuple(p.shape)}"
        )


def darcy_residual(
    k: Tensor, p: Tensor, h: float, forcing: float = 1.0, face_mean: str = "harmonic"
) -> Tensor:
    """Residual ``-div(K grad p) - f`` of the 5-point scheme at the interior vertices.

    Parameters
    ----------
    k : torch.Tensor
        Shape ``(..., s, s)``: permeability at the vertices (permeability units), positive
        where the harmonic mean is used (a generated field may not be; the mean then
        divides by a possibly small ``K1 + K2``).
    p : torch.Tensor
        Shape ``(..., s, s)``: pressure at the vertices (pressure units), boundary included.
    h : float
        Grid spacing ``1 / (s - 1)`` (length units).
    forcing : float
        Constant source ``f`` (pressure units * permeability / length^2), the solver's
        ``DarcyProblem.forcing``.
    face_mean : str
        ``harmonic`` (the solver's default) or ``arithmetic``.

    Returns
    -------
    torch.Tensor
        Shape ``(..., s - 2, s - 2)``: the residual at vertices ``1 <= i, j <= s - 2`` (units
        of ``forcing``); row ``[i - 1, j - 1]`` is row ``(i - 1) (s - 2) + (j - 1)`` of
        ``darcy_operator(k) @ p_interior - f``.
    """
    _check_fields(k, p)
    if face_mean not in FACE_MEANS:
        raise ValueError(f"face_mean must be one of {sorted(FACE_MEANS)}, got {face_mean!r}")
    mean = FACE_MEANS[face_mean]  # plain arithmetic, so it works on tensors as on arrays
    kx = mean(k[..., 1:, :], k[..., :-1, :])  # (..., s-1, s): face between (i, j), (i+1, j)
    ky = mean(k[..., :, 1:], k[..., :, :-1])  # (..., s, s-1): face between (i, j), (i, j+1)
    east, west = kx[..., 1:, 1:-1], kx[..., :-1, 1:-1]  # (..., m, m), m = s - 2
    north, south = ky[..., 1:-1, 1:], ky[..., 1:-1, :-1]  # (..., m, m)
    centre = p[..., 1:-1, 1:-1]  # (..., m, m)
    flux = (
        east * (centre - p[..., 2:, 1:-1])
        + west * (centre - p[..., :-2, 1:-1])
        + north * (centre - p[..., 1:-1, 2:])
        + south * (centre - p[..., 1:-1, :-2])
    )  # (..., m, m)
    return flux / h**2 - forcing


def darcy_boundary(p: Tensor) -> Tensor:
    """Boundary values of ``p``, the residual of the condition ``p = 0``.

    Parameters
    ----------
    p : torch.Tensor
        Shape ``(..., s, s)``: pressure at the vertices (pressure units).

    Returns
    -------
    torch.Tensor
        Shape ``(..., 4 (s - 1))``: the edges ``i = 0`` and ``i = s - 1`` (all ``j``), then
        ``j = 0`` and ``j = s - 1`` (``1 <= i <= s - 2``); each vertex once (pressure units).
    """
    return torch.cat(
        [p[..., 0, :], p[..., -1, :], p[..., 1:-1, 0], p[..., 1:-1, -1]], dim=-1
    )  # fmt: skip


def darcy_residual_loss(
    k: Tensor,
    p: Tensor,
    h: float,
    forcing: float = 1.0,
    *,
    boundary_weight: float = 1.0,
    face_mean: str = "harmonic",
) -> Tensor:
    """Mean squared Darcy residual per sample, plus the weighted boundary term.

    Parameters
    ----------
    k, p : torch.Tensor
        Shape ``(B, s, s)`` (or any ``(..., s, s)``): permeability and pressure, see
        :func:`darcy_residual`.
    h, forcing, face_mean
        As in :func:`darcy_residual`.
    boundary_weight : float
        Weight of the boundary term (units of ``forcing^2 / pressure^2``: the two terms have
        different units, so this weight is a modelling choice; 0 drops the term).

    Returns
    -------
    torch.Tensor
        Shape ``(B,)`` (the leading shape of the inputs): ``mean(r^2)`` over the interior
        vertices plus ``boundary_weight * mean(p_boundary^2)`` (units of ``forcing^2``).
    """
    interior = darcy_residual(k, p, h, forcing, face_mean).square().mean(dim=(-2, -1))
    if boundary_weight == 0.0:
        return interior
    return interior + boundary_weight * darcy_boundary(p).square().mean(dim=-1)
