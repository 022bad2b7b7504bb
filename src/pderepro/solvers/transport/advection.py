"""Linear advection ``u_t + beta u_x = 0`` with periodic boundaries, solved exactly: the
solution is the shifted initial condition, ``u(x, t) = u0(x - beta t)``.

Two instances. PDEBench's advection on the periodic unit interval,
``u(x, t) = u0((x - beta t) mod 1)`` (:func:`advect`, :func:`advection_frames`): since the
PDEBench initial conditions are formulas (:mod:`pderepro.solvers.common.pdebench_ic`), the
formula is evaluated at the shifted points: exact at any shift, also where ``|.|`` leaves a
kink, with no interpolation between grid values. The shift is reduced modulo 1 before it
is subtracted, so large ``beta t`` (up to 14 for the released ``beta = 7``, ``T = 2``) costs
no absolute precision in the points.

The convection problem of the physics-informed study (docs/references.md), on
``x in [0, 2 pi)`` periodic, ``t in [0, 1]``, ``u0 = sin x``: the travelling wave
``u(x, t) = sin(x - beta t)`` (:func:`convection_exact`); the study uses ``beta = 50``
(:data:`BETA`). The formula is checked against the propagation of the grid's Fourier modes
by :mod:`pderepro.verification.allen_cahn`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pderepro.solvers.common.checks import check_real
from pderepro.solvers.common.pdebench_ic import (
    N_CELLS,
    N_FRAMES,
    T_FINAL,
    SinesIC,
    cell_centres,
    evaluate_initial_conditions,
    frame_times,
)

#: Advection speeds of the released PDEBench data (length / time).
RELEASED_BETAS = (0.1, 0.2, 0.4, 0.7, 1.0, 2.0, 4.0, 7.0)

#: The convection study's instance: speed (length / time), periodic domain [lo, hi) (length
#: units), final time (time units; :data:`T_FINAL` is PDEBench's).
BETA = 50.0
DOMAIN = (0.0, 2.0 * math.pi)
CONVECTION_T_FINAL = 1.0


def advected_points(x: np.ndarray, beta: float, t: float) -> np.ndarray:
    """Departure points ``(x - beta t) mod 1`` of the characteristics through ``x`` at ``t``.

    Parameters
    ----------
    x : numpy.ndarray
        Points (length units).
    beta : float
        Advection speed (length / time), any sign.
    t : float
        Time (time units), non-negative.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, values in [0, 1) (length units).
    """
    beta = check_real("beta", beta)
    if not (math.isfinite(t) and t >= 0):
        raise ValueError(f"t must be finite and non-negative, got {t!r}")
    shift = math.fmod(beta * t, 1.0)  # fmod is exact: no precision lost to large beta t
    return np.mod(np.asarray(x, dtype=np.float64) - shift, 1.0)


def advect(ics: Sequence[SinesIC], beta: float, x: np.ndarray, t: float) -> np.ndarray:
    """Exact solution ``u(x, t) = u0((x - beta t) mod 1)`` for PDEBench initial conditions.

    Parameters
    ----------
    ics : sequence of SinesIC
        ``S`` initial conditions.
    beta : float
        Advection speed (length / time).
    x : numpy.ndarray
        Points (length units), shape ``(P,)``.
    t : float
        Time (time units), non-negative.

    Returns
    -------
    numpy.ndarray
        Shape ``(S, P)``, float64 (units of u).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {x.shape}")
    return evaluate_initial_conditions(ics, advected_points(x, beta, t))


def advection_frames(
    ics: Sequence[SinesIC],
    beta: float,
    *,
    n_cells: int = N_CELLS,
    t_final: float = T_FINAL,
    n_frames: int = N_FRAMES,
) -> np.ndarray:
    """Frames of the exact advection solution at the cell centres.

    Parameters
    ----------
    ics : sequence of SinesIC
        ``S`` initial conditions.
    beta : float
        Advection speed (length / time).
    n_cells : int
        Cells on [0, 1); values are point values at the cell centres ``(j + 1/2) / n_cells``.
    t_final : float
        Time of the last frame (time units).
    n_frames : int
        Frames at ``t_k = k t_final / (n_frames - 1)``, the first the initial condition.

    Returns
    -------
    numpy.ndarray
        Shape ``(S, n_frames, n_cells)``, float64 (units of u).
    """
    beta = check_real("beta", beta)
    x = cell_centres(n_cells)
    times = frame_times(t_final, n_frames)
    frames = np.empty((len(ics), len(times), len(x)))  # (S, n_frames, n_cells)
    for k, t in enumerate(times):
        frames[:, k] = advect(ics, beta, x, float(t))
    return frames


def convection_exact(x: np.ndarray, t: np.ndarray, beta: float = BETA) -> np.ndarray:
    """``u(x, t) = sin(x - beta t)``, the solution of ``u_t + beta u_x = 0``, ``u0 = sin x``.

    Parameters
    ----------
    x : numpy.ndarray
        Points (length units), shape ``(nx,)``.
    t : numpy.ndarray
        Times (time units), shape ``(nt,)``.
    beta : float
        Convection speed (length / time), any sign.

    Returns
    -------
    numpy.ndarray
        Shape ``(nt, nx)``, float64 (dimensionless).
    """
    beta = check_real("beta", beta)
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if x.ndim != 1 or t.ndim != 1:
        raise ValueError(f"x and t must be 1-D, got shapes {x.shape} and {t.shape}")
    return np.sin(x[None, :] - beta * t[:, None])  # (nt, nx)
