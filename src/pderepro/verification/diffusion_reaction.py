"""Verification of the diffusion-reaction solver (rows of ``solvers.csv``).

:mod:`pderepro.solvers.reaction_diffusion.diffusion_reaction` solves each part of the equation
exactly and joins them by Strang splitting, so three checks, each able to fail:

* pure diffusion (``rho = 0``) against the closed form of a sum of sines, every mode
  decaying by ``exp(-nu (2 pi n)^2 t)``, every frame to ``T = 1``: checks the Fourier
  factors, the wavenumbers and the frame times;
* pure reaction (``nu = 0``) against the logistic solution evaluated once at each frame's
  time from the initial values: checks that the half steps compose to the right time;
* the full equation by self-convergence in ``dt`` (each level against the next finer
  one), whose observed order should be Strang's 2.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from pderepro.solvers.common.pdebench_ic import (
    N_CELLS,
    SinesIC,
    cell_centres,
    draw_initial_condition,
    evaluate_initial_conditions,
    frame_times,
)
from pderepro.solvers.reaction_diffusion.diffusion_reaction import (
    N_FRAMES,
    T_FINAL,
    diffusion_reaction_frames,
    logistic,
    unit_interval_initial_conditions,
)
from pderepro.verification.table import convergence_rows, log_table, row, successive_differences

logger = logging.getLogger(__name__)

SOLVER = "pdebench_diffusion_reaction_strang"
#: Sum of two sines for the closed-form diffusion check (no |.|, window or sign flag).
SINES = SinesIC(modes=(1, 3), amplitudes=(0.7, 0.4), phases=(0.3, 1.9))
#: Strang steps per frame of the self-convergence levels (the data use 100).
LEVELS = (12, 25, 50, 100, 200)


def _unit_samples(n_samples: int, seed: int) -> np.ndarray:
    """``n_samples`` PDEBench initial conditions drawn in turn from one generator and mapped
    into [0, 1] at the cell centres, ``(n_samples, N_CELLS)`` (dimensionless)."""
    rng = np.random.default_rng(seed)
    ics = [draw_initial_condition(rng) for _ in range(n_samples)]
    return unit_interval_initial_conditions(ics, cell_centres(N_CELLS))


def pure_diffusion(nu: float = 0.5) -> dict:
    """Largest error of the ``rho = 0`` solution against the closed form (dimensionless)."""
    x, times = cell_centres(N_CELLS), frame_times(T_FINAL, N_FRAMES)
    u = diffusion_reaction_frames(evaluate_initial_conditions([SINES], x), nu, 0.0)[0]
    exact = np.zeros_like(u)  # (n_frames, n_cells)
    for n, amp, phase in zip(SINES.modes, SINES.amplitudes, SINES.phases, strict=True):
        k = 2.0 * np.pi * n
        exact += amp * np.exp(-nu * k**2 * times)[:, None] * np.sin(k * x + phase)[None, :]
    dt = float(times[1]) / 100
    case = f"rho=0, nu={nu:g} vs closed form, 101 frames to T=1"
    return row(SOLVER, case, N_CELLS, dt, np.abs(u - exact).max())


def pure_reaction(rho: float = 10.0, n_samples: int = 16, seed: int = 0) -> dict:
    """Largest error of the ``nu = 0`` solution against the logistic formula at each frame."""
    u0 = _unit_samples(n_samples, seed)
    u = diffusion_reaction_frames(u0, 0.0, rho)  # (S, n_frames, n_cells)
    times = frame_times(T_FINAL, N_FRAMES)
    exact = np.stack([logistic(u0, rho, float(t)) for t in times], axis=1)
    case = f"nu=0, rho={rho:g} vs logistic formula, {n_samples} PDEBench samples"
    return row(SOLVER, case, N_CELLS, float(times[1]) / 100, np.abs(u - exact).max())


def strang_self_convergence(
    nu: float = 0.5, rho: float = 10.0, n_samples: int = 4, seed: int = 1
) -> list[dict]:
    """Rows of each level of :data:`LEVELS` against the next finer one, with orders."""
    u0 = _unit_samples(n_samples, seed)
    errors = successive_differences(
        [diffusion_reaction_frames(u0, nu, rho, steps_per_frame=n) for n in LEVELS]
    )
    spacing = float(frame_times(T_FINAL, N_FRAMES)[1])
    case = f"nu={nu:g}, rho={rho:g} self-convergence in dt, difference to next level"
    dts = [spacing / n for n in LEVELS[:-1]]
    return convergence_rows(SOLVER, case, N_CELLS, dts, errors, [float(n) for n in LEVELS[:-1]])


def diffusion_reaction_verification() -> pd.DataFrame:
    """All diffusion-reaction rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~pderepro.verification.table.COLUMNS`.
    """
    rows = [pure_diffusion(), pure_reaction(), *strang_self_convergence()]
    return log_table(rows, "diffusion-reaction verification", logger)
