"""Verification of the physics-informed study's references (rows of ``solvers.csv``).

:mod:`pderepro.solvers.reaction_diffusion.allen_cahn` has no exact solution at the study's instance
(``d = 1e-4``, ``r = 5``, ``u0 = x^2 cos(pi x)`` on [-1, 1)), so four checks, each able to
fail (the tolerances are the unit tests', ``tests/unit/test_allen_cahn.py``):

* ETDRK4 self-convergence in ``dt`` on the study's 512-point grid, each level against the
  next finer, the largest difference over 11 frames to ``t = 1``: the observed order
  should be 4 (tolerance 3.8-4.2; measured 3.87, 3.93, 3.97, 3.98 for ``dt = 0.05 ..
  0.003125``, differences 4.4e-5 down to 8.0e-10);
* a second, independent method, Strang splitting of the exact reaction flow and exact diffusion
  (:func:`~pderepro.solvers.reaction_diffusion.allen_cahn.allen_cahn_frames` with
  ``method="strang"``), against ETDRK4
  at its default step, at ``t = 1``: the differences should fall at order 2 (tolerance 1.9-2.1;
  measured 2.00, 1.99) and be below 1e-7 at the finest level (measured 3.2e-7, 8.1e-8, 2.0e-8 for
  ``dt = 1e-3, 5e-4, 2.5e-4``);
* the grid at ``t = 1``, 256, 512, 1024 and 2048 points, each against the next finer on
  the common points: spectral convergence, each doubling dividing the difference by more
  than 100, below 1e-5 at 512 points and 1e-8 at 1024 (measured 6.1e-4, 1.4e-6, 1.3e-9);
  and, on the 512-point grid, the largest difference from 2048 points over the study's
  201 frames, which sits at the kink of ``u0``'s periodic extension (``x = -1``) in the
  first frames and converges only algebraically (tolerance 2e-3; measured 8.3e-4; as a
  relative L2 over all frames, 1.1e-5 against 4096 points);
* the convection formula :func:`~pderepro.solvers.transport.advection.convection_exact` against the
  exact propagation of the grid's Fourier modes (the reference of the study's code, 512
  points, 251 frames): round-off (tolerance 1e-11; measured 4.5e-15).

About 1.2-1.7 s on one core.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from pderepro.solvers.reaction_diffusion.allen_cahn import (
    DIFFUSION,
    DOMAIN,
    REACTION,
    STEPS_PER_UNIT,
    T_FINAL,
    allen_cahn_frames,
    periodic_grid,
    study_initial_condition,
)
from pderepro.solvers.transport.advection import BETA, convection_exact
from pderepro.solvers.transport.advection import DOMAIN as CONVECTION_DOMAIN
from pderepro.verification.table import convergence_rows, log_table, row, successive_differences

logger = logging.getLogger(__name__)

SOLVER = "allen_cahn_etdrk4"
#: The study's grid.
N_POINTS = 512
#: ETDRK4 steps per time unit of the self-convergence levels (the default is 400).
TIME_LEVELS = (20, 40, 80, 160, 320, 640)
#: Strang steps per time unit (second order: many more than ETDRK4's).
STRANG_LEVELS = (1000, 2000, 4000)
#: Grid sizes of the resolution rows.
SPACE_LEVELS = (256, 512, 1024, 2048)
#: The study's frames: 201 to t = 1.
N_FRAMES = 201


def _solve(
    n: int, times: np.ndarray, steps_per_unit: int = STEPS_PER_UNIT, *, strang: bool = False
):
    lo, hi = DOMAIN
    u0 = study_initial_condition(periodic_grid(lo, hi, n))  # (n,)
    method = "strang" if strang else "etdrk4"
    return allen_cahn_frames(
        u0, hi - lo, times, DIFFUSION, REACTION, steps_per_unit, method=method
    )  # (nt, n)


def time_self_convergence(levels=TIME_LEVELS, n: int = N_POINTS) -> list[dict]:
    """Rows of each level of ``levels`` (steps per unit) against the next finer, with orders."""
    times = np.linspace(0.0, T_FINAL, 11)
    errors = successive_differences([_solve(n, times, s) for s in levels])
    case = f"d={DIFFUSION:g}, r={REACTION:g} self-convergence in dt, 11 frames to t=1"
    steps = [float(s) for s in levels[:-1]]
    return convergence_rows(SOLVER, case, n, [1.0 / s for s in levels[:-1]], errors, steps)


def strang_agreement(levels=STRANG_LEVELS, n: int = N_POINTS) -> list[dict]:
    """Rows of Strang splitting at each level against ETDRK4 at its default step, t = 1."""
    times = np.array([T_FINAL])
    reference = _solve(n, times)[-1]
    errors = [float(np.abs(_solve(n, times, s, strang=True)[-1] - reference).max()) for s in levels]
    case = f"Strang splitting (exact flows) vs ETDRK4 dt={1 / STEPS_PER_UNIT:g}, t=1"
    dts = [1.0 / s for s in levels]
    return convergence_rows("allen_cahn_strang", case, n, dts, errors, [float(s) for s in levels])


def space_convergence(levels=SPACE_LEVELS) -> list[dict]:
    """Rows of each grid of ``levels`` against the next finer at t = 1, then the study grid's
    largest difference from the finest over the study's frames."""
    times = np.linspace(0.0, T_FINAL, N_FRAMES)
    solutions = [_solve(n, times) for n in levels]  # each (N_FRAMES, n)
    diffs = [
        np.abs(a - b[:, :: b.shape[1] // a.shape[1]])
        for a, b in zip(solutions[:-1], solutions[1:], strict=True)
    ]
    errors = [float(d[-1].max()) for d in diffs]
    dt = 1.0 / STEPS_PER_UNIT
    case = "grid vs twice as many points, t=1"
    rows = convergence_rows(SOLVER, case, levels[:-1], dt, errors, [float(n) for n in levels[:-1]])
    if N_POINTS in levels[:-1]:
        fine = solutions[-1][:, :: levels[-1] // N_POINTS]
        kink = float(np.abs(solutions[levels.index(N_POINTS)] - fine).max())
        case = f"grid vs {levels[-1]} points, all {N_FRAMES} frames (kink of u0 at x=-1)"
        rows.append(row(SOLVER, case, N_POINTS, dt, kink))
    return rows


def convection_fourier(n: int = N_POINTS, n_frames: int = 251, beta: float = BETA) -> dict:
    """Row of :func:`convection_exact` against the propagated Fourier modes of ``sin x``."""
    lo, hi = CONVECTION_DOMAIN
    x, times = periodic_grid(lo, hi, n), np.linspace(0.0, 1.0, n_frames)
    k = 2.0 * np.pi * np.fft.rfftfreq(n, d=(hi - lo) / n)  # (n // 2 + 1,) angular
    shift = np.exp(-1j * beta * k[None, :] * times[:, None])  # (nt, n // 2 + 1)
    fourier = np.fft.irfft(np.fft.rfft(np.sin(x))[None, :] * shift, n=n, axis=1)  # (nt, n)
    error = np.abs(convection_exact(x, times, beta) - fourier).max()
    case = f"beta={beta:g} formula vs Fourier propagation, {n_frames} frames"
    return row("convection_exact", case, n, times[1], error)


def allen_cahn_verification() -> pd.DataFrame:
    """All rows of the physics-informed study's references.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~pderepro.verification.table.COLUMNS`.
    """
    rows = [
        *time_self_convergence(),
        *strang_agreement(),
        *space_convergence(),
        convection_fourier(),
    ]
    return log_table(rows, "Allen-Cahn and convection verification", logger)
