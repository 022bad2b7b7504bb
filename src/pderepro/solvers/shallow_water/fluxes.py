"""Reconstruction and Riemann fluxes of the 1-D shallow-water scheme
(:mod:`pderepro.solvers.shallow_water.shallow_water`): ghost cells, limited MUSCL slopes, face
states, the physical flux and the HLL / Rusanov numerical fluxes."""

from __future__ import annotations

import numpy as np

from pderepro.solvers.shallow_water.problem import ShallowWaterProblem

#: Ghost cells per side (a MUSCL slope needs two neighbours).
GHOST = 2


def pad_ghost(values: np.ndarray, boundary: str, *, odd: bool = False) -> np.ndarray:
    """Add :data:`GHOST` ghost cells per side along the last axis (``odd``: the wall
    mirror flips the sign, for the velocity)."""
    if boundary == "periodic":
        return np.concatenate([values[..., -GHOST:], values, values[..., :GHOST]], axis=-1)
    if boundary == "transmissive":
        left = np.repeat(values[..., :1], GHOST, axis=-1)
        right = np.repeat(values[..., -1:], GHOST, axis=-1)
        return np.concatenate([left, values, right], axis=-1)
    sign = -1.0 if odd else 1.0
    left = sign * values[..., GHOST - 1 :: -1]
    right = sign * values[..., : -GHOST - 1 : -1]
    return np.concatenate([left, values, right], axis=-1)


def limited_slopes(padded: np.ndarray, limiter: str) -> np.ndarray:
    """Limited slopes (per cell) of padded cells ``1..n+2``: shape ``(..., n + 2)``."""
    back = padded[..., 1:-1] - padded[..., :-2]
    fwd = padded[..., 2:] - padded[..., 1:-1]
    same = np.sign(back) == np.sign(fwd)
    if limiter == "minmod":
        slope = np.minimum(np.abs(back), np.abs(fwd))
    else:  # monotonised central
        slope = np.minimum(np.minimum(2 * np.abs(back), 2 * np.abs(fwd)), 0.5 * np.abs(back + fwd))
    return np.where(same, np.sign(back) * slope, 0.0)


def face_states(padded: np.ndarray, limiter: str) -> tuple[np.ndarray, np.ndarray]:
    """Values left and right of the ``n + 1`` faces, each ``(..., n + 1)``."""
    centre = padded[..., 1:-1]  # (..., n + 2): the cells next to some face
    half = 0.5 * limited_slopes(padded, limiter)
    return (centre + half)[..., :-1], (centre - half)[..., 1:]


def physical_flux(h: np.ndarray, u: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray]:
    return h * u, h * u * u + 0.5 * g * h * h


def riemann_flux(
    hl: np.ndarray, ul: np.ndarray, hr: np.ndarray, ur: np.ndarray, problem: ShallowWaterProblem
) -> np.ndarray:
    """Numerical flux ``(S, 2, faces)`` between the states left and right of each face."""
    g, tol = problem.gravity, problem.dry_tolerance
    cl, cr = np.sqrt(g * hl), np.sqrt(g * hr)
    fl, fr = physical_flux(hl, ul, g), physical_flux(hr, ur, g)
    jump = (hr - hl, hr * ur - hl * ul)
    if problem.flux == "rusanov":
        a = np.maximum(np.abs(ul) + cl, np.abs(ur) + cr)
        return np.stack([0.5 * (fl[k] + fr[k]) - 0.5 * a * jump[k] for k in range(2)], axis=1)
    dry_l, dry_r = hl < tol, hr < tol
    s_l = np.where(dry_l, ur - 2 * cr, np.minimum(ul - cl, ur - cr))
    s_r = np.where(dry_r, ul + 2 * cl, np.maximum(ul + cl, ur + cr))
    s_l, s_r = np.minimum(s_l, 0.0), np.maximum(s_r, 0.0)  # upwind cases in one formula
    width = s_r - s_l
    both_dry = width <= 0.0  # both sides dry: no flux
    inv = np.where(both_dry, 0.0, 1.0 / np.where(both_dry, 1.0, width))
    return np.stack(
        [(s_r * fl[k] - s_l * fr[k] + s_l * s_r * jump[k]) * inv for k in range(2)], axis=1
    )
