"""1-D diffusion-reaction (Fisher-KPP) ``u_t = nu u_xx + rho u (1 - u)`` on the periodic
unit interval, by Strang splitting of its two exactly solvable parts.

Each step of length ``dt`` applies half a reaction step, a whole diffusion step and half a
reaction step. Both parts are solved exactly: diffusion in Fourier space (mode ``k`` of the
grid decays by ``exp(-nu (2 pi k)^2 dt)``, exact for the grid's trigonometric
interpolant), reaction pointwise by the logistic solution
``u(t) = u0 e^{rho t} / (1 - u0 + u0 e^{rho t})``. So the basic forms of docs/references.md,
pure diffusion (``rho = 0``) and pure reaction (``nu = 0``), are solved exactly by the same
code, and only the full equation carries a splitting error, of second order in ``dt``
(verified by self-convergence in
:mod:`pderepro.verification.diffusion_reaction`).

Initial conditions are the PDEBench law's fields (:mod:`pderepro.solvers.common.pdebench_ic`)
mapped into [0, 1] sample by sample, ``(u0 - min u0) / (max u0 - min u0)`` over the grid,
as the released generator does (docs/references.md). The
logistic map keeps values in [0, 1]; the heat semigroup does too, while on the grid its
truncated Fourier kernel is not strictly positive, so a step with small ``nu dt n^2`` can
leave values a round-off-sized amount outside (none seen at the released nu >= 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pderepro.solvers.common.checks import check_real
from pderepro.solvers.common.pdebench_ic import (
    N_CELLS,
    SinesIC,
    cell_centres,
    evaluate_initial_conditions,
    frame_times,
)

#: PDEBench's diffusion-reaction frames: T = 1 (time units), 101 frames.
T_FINAL = 1.0
N_FRAMES = 101
#: Strang steps between saved frames (dt = 1e-4 at the default frame spacing 0.01). Against
#: 400 steps, 1024 cells, every frame, PDEBench law (values in [0, 1], so the errors are
#: relative): over 8 draws, 4 forced ``|.|`` and 4 forced windows the largest error is
#: 1.1e-6 at (nu, rho) = (0.5, 10) and 7.8e-6 at (5, 10), on a ``|.|`` draw (draws 5.6e-6,
#: windows 3.9e-6); over 16 of each, 2.5e-6 and 2.2e-5, the latter a draw of mode 8 alone
#: (offsets aside), in the first frames, while diffusion damps mode 8 by e^-1.3 a step. Still
#: 30 times below the smallest published nRMSE (7e-4); 0.1-0.2 s per sample on one core.
#: Halving dt divides the error by 4 (second order). ``benchmarks/solver_time_errors.py``.
STEPS_PER_FRAME = 100
#: Released parameter values (docs/references.md): nu (length^2 / time) x rho (1 / time).
RELEASED_NUS = (0.5, 1.0, 2.0, 5.0)
RELEASED_RHOS = (1.0, 2.0, 5.0, 10.0)


def unit_interval_initial_conditions(ics: Sequence[SinesIC], x: np.ndarray) -> np.ndarray:
    """PDEBench initial conditions mapped into [0, 1] sample by sample.

    Parameters
    ----------
    ics : sequence of SinesIC
        ``S`` initial conditions.
    x : numpy.ndarray
        Points (length units), shape ``(P,)``.

    Returns
    -------
    numpy.ndarray
        ``(u0 - min u0) / (max u0 - min u0)`` over ``x``, shape ``(S, P)``, float64
        (dimensionless, in [0, 1]).
    """
    u0 = evaluate_initial_conditions(ics, x)
    low, high = u0.min(axis=1, keepdims=True), u0.max(axis=1, keepdims=True)
    if np.any(high <= low):
        raise ValueError("an initial condition is constant on the grid: it cannot be rescaled")
    return (u0 - low) / (high - low)


def logistic(u: np.ndarray, rho: float, t: float) -> np.ndarray:
    """Exact solution of ``u_t = rho u (1 - u)`` after time ``t``, pointwise.

    Parameters
    ----------
    u : numpy.ndarray
        Values at time 0 (dimensionless), any shape.
    rho : float
        Reaction rate (1 / time), non-negative.
    t : float
        Elapsed time (time units), non-negative.

    Returns
    -------
    numpy.ndarray
        ``u e^{rho t} / (1 - u + u e^{rho t})``, the shape of ``u``.
    """
    growth = math.exp(rho * t)
    return u * growth / (1.0 - u + u * growth)


def heat_factors(n_cells: int, nu: float, t: float) -> np.ndarray:
    """Factors ``exp(-nu (2 pi k)^2 t)`` of the ``rfft`` modes ``k = 0 .. n_cells // 2``."""
    k = np.fft.rfftfreq(n_cells, d=1.0 / n_cells)  # integer wavenumbers
    return np.exp(-nu * (2.0 * np.pi * k) ** 2 * t)


def diffusion_reaction_frames(
    u0: np.ndarray,
    nu: float,
    rho: float,
    *,
    t_final: float = T_FINAL,
    n_frames: int = N_FRAMES,
    steps_per_frame: int = STEPS_PER_FRAME,
) -> np.ndarray:
    """Frames of ``u_t = nu u_xx + rho u (1 - u)`` by Strang splitting.

    Parameters
    ----------
    u0 : numpy.ndarray
        Initial values at the cell centres of a uniform grid on [0, 1), shape ``(S, n)``
        (dimensionless).
    nu : float
        Diffusivity (length^2 / time), non-negative; 0 is pure reaction.
    rho : float
        Reaction rate (1 / time), non-negative; 0 is pure diffusion.
    t_final : float
        Time of the last frame (time units).
    n_frames : int
        Frames at ``t_k = k t_final / (n_frames - 1)``, the first ``u0``.
    steps_per_frame : int
        Strang steps between frames.

    Returns
    -------
    numpy.ndarray
        Shape ``(S, n_frames, n)``, float64 (dimensionless).
    """
    nu = check_real("nu", nu, non_negative=True)
    rho = check_real("rho", rho, non_negative=True)
    if isinstance(steps_per_frame, bool) or int(steps_per_frame) != steps_per_frame:
        raise ValueError(f"steps_per_frame must be an integer, got {steps_per_frame!r}")
    if steps_per_frame < 1:
        raise ValueError(f"steps_per_frame must be >= 1, got {steps_per_frame}")
    u = np.array(u0, dtype=np.float64)
    if u.ndim != 2:
        raise ValueError(f"u0 must be (sample, x), got shape {u.shape}")
    times = frame_times(t_final, n_frames)
    dt = float(times[1]) / steps_per_frame
    decay = heat_factors(u.shape[1], nu, dt)  # (n // 2 + 1,)
    frames = np.empty((u.shape[0], len(times), u.shape[1]))  # (S, n_frames, n)
    frames[:, 0] = u
    for k in range(1, len(times)):
        for _ in range(int(steps_per_frame)):
            u = logistic(u, rho, dt / 2)
            if nu:
                u = np.fft.irfft(np.fft.rfft(u, axis=1) * decay, n=u.shape[1], axis=1)
            u = logistic(u, rho, dt / 2)
        frames[:, k] = u
    return frames


def pdebench_diffusion_reaction_frames(
    ics: Sequence[SinesIC],
    nu: float,
    rho: float,
    *,
    n_cells: int = N_CELLS,
    t_final: float = T_FINAL,
    n_frames: int = N_FRAMES,
    steps_per_frame: int = STEPS_PER_FRAME,
) -> np.ndarray:
    """Frames from PDEBench initial conditions mapped into [0, 1], at the cell centres.

    Returns
    -------
    numpy.ndarray
        Shape ``(S, n_frames, n_cells)``, float64 (dimensionless).
    """
    u0 = unit_interval_initial_conditions(ics, cell_centres(n_cells))
    return diffusion_reaction_frames(
        u0, nu, rho, t_final=t_final, n_frames=n_frames, steps_per_frame=steps_per_frame
    )
