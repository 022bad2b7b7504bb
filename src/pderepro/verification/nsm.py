"""Verification of the Neural Spectral Methods references (rows of ``solvers.csv``).

* Poisson in Fourier (:func:`~pderepro.solvers.elliptic.nsm_reference.poisson_solution`) against a
  manufactured, not band-limited, solution on refined grids: spectral convergence to
  round-off;
* the reaction-diffusion reference's Strang splitting by self-convergence in ``dt``
  (order 2) and in ``nx`` (fixed ``dt``) at ``nu = 0.005, rho = 5`` from
  Gaussian-random-field initial conditions of the study's law;
* the forced Navier-Stokes reference (the torus solver, whose exact-solution rows are the
  ``navier_stokes_spectral`` ones) by self-convergence in ``dt`` (order 2) and ``nx`` at
  the study's law (T = 50, nu = 2e-3, GRF length 0.8): how far its sizes are from the limit.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from pderepro.solvers.common.random_fields import sample_periodic_kernel_grf
from pderepro.solvers.elliptic.nsm_reference import (
    navier_stokes_reference,
    poisson_solution,
    reaction_diffusion_reference,
)
from pderepro.verification.table import convergence_rows, log_table, row, successive_differences

logger = logging.getLogger(__name__)

SOLVER = "nsm_reference"


def poisson_manufactured(resolutions: tuple[int, ...] = (8, 12, 16, 24, 32, 48)) -> list[dict]:
    """``u = exp(sin 2 pi x + cos 2 pi y)`` (not band-limited): max error against the exact
    ``u - u(0, 0)`` on refined grids; falls exponentially to round-off."""
    errors = []
    for n in resolutions:
        x = np.arange(n) / n
        yy, xx = np.meshgrid(x, x, indexing="ij")  # (n, n): (y, x)
        a, b = 2.0 * np.pi * xx, 2.0 * np.pi * yy
        u = np.exp(np.sin(a) + np.cos(b))
        lap = 4.0 * np.pi**2 * (np.cos(a) ** 2 - np.sin(a) + np.sin(b) ** 2 - np.cos(b)) * u
        exact = u - u[0, 0]
        errors.append(float(np.abs(poisson_solution(-lap) - exact).max()))
    case = "Poisson in Fourier vs exp(sin 2 pi x + cos 2 pi y), gauge u(0,0)=0"
    refinements = [float(n) for n in resolutions]
    return convergence_rows(SOLVER, case, resolutions, math.nan, errors, refinements)


def _grf_initial(n_samples: int, seed: int) -> np.ndarray:
    """The reaction-diffusion inputs' law: 64 nodes, length 0.2, min-max rescaled."""
    h = sample_periodic_kernel_grf(
        n_samples, 64, length=0.2, ndim=1, rng=np.random.default_rng(seed)
    )
    low, high = h.min(axis=1, keepdims=True), h.max(axis=1, keepdims=True)
    return (h - low) / (high - low)


def reaction_diffusion_convergence(
    nu: float = 0.005,
    rho: float = 5.0,
    levels: tuple[int, ...] = (20, 40, 80, 160, 320),
    grids: tuple[int, ...] = (64, 128, 256, 1024),
    n_samples: int = 4,
    seed: int = 3,
) -> list[dict]:
    """Self-convergence of the splitting: in ``dt`` at ``nx = 256`` (each level against
    the next finer one, 11 frames to T = 1) and in ``nx`` at 320 steps (against
    ``grids[-1]``), from Gaussian-random-field initial conditions."""
    h = _grf_initial(n_samples, seed)
    t = np.linspace(0.0, 1.0, 11)
    runs = [
        reaction_diffusion_reference(h, nu, rho, nx=256, steps=s, t=t, x_points=256) for s in levels
    ]
    case = f"RD nu={nu:g}, rho={rho:g}, GRF: Strang self-convergence in dt, next level"
    steps = [float(s) for s in levels[:-1]]
    rows = convergence_rows(
        SOLVER, case, 256, [1.0 / s for s in levels[:-1]], successive_differences(runs), steps
    )
    finest = reaction_diffusion_reference(
        h, nu, rho, nx=grids[-1], steps=levels[-1], t=t, x_points=grids[0]
    )
    case = f"RD nu={nu:g}, rho={rho:g}, GRF: grid self-convergence vs nx={grids[-1]}"
    for n in grids[:-1]:
        u = reaction_diffusion_reference(h, nu, rho, nx=n, steps=levels[-1], t=t, x_points=grids[0])
        rows.append(row(SOLVER, case, n, 1.0 / levels[-1], float(np.abs(u - finest).max())))
    return rows


def navier_stokes_convergence(
    levels: tuple[int, ...] = (2500, 5000, 10000, 20000),
    grids: tuple[int, ...] = (16, 32),
    n_samples: int = 2,
    seed: int = 5,
) -> list[dict]:
    """Self-convergence of the forced Navier-Stokes reference on [0, 50], 11 frames, from
    initial vorticities of the study's law (64 x 64 nodes, length 0.8, mean removed): in
    ``dt`` at ``nx = 64`` (each level against the next finer one) and in ``nx`` at
    ``levels[1]`` steps (against ``nx = 64``). About 7 s on one core."""
    w0 = sample_periodic_kernel_grf(
        n_samples, 64, length=0.8, ndim=2, rng=np.random.default_rng(seed)
    )
    w0 = w0 - w0.mean(axis=(-2, -1), keepdims=True)

    def solve(nx: int, steps: int) -> np.ndarray:
        return navier_stokes_reference(w0, nu=2e-3, forcing_amplitude=0.1, t_final=50.0,
                                       nx=nx, steps=steps, n_times=11, x_points=64)  # fmt: skip

    runs = [solve(64, s) for s in levels]
    case = "NS forced nu=0.002, T=50, GRF l=0.8: AB2/CN self-convergence in dt, next level"
    steps = [float(s) for s in levels[:-1]]
    rows = convergence_rows(
        SOLVER, case, 64, [50.0 / s for s in levels[:-1]], successive_differences(runs), steps
    )
    case = "NS forced nu=0.002, T=50, GRF l=0.8: grid self-convergence vs nx=64"
    for n in grids:
        error = float(np.abs(solve(n, levels[1]) - runs[1]).max())
        rows.append(row(SOLVER, case, n, 50.0 / levels[1], error))
    return rows


def nsm_verification() -> pd.DataFrame:
    """All Neural Spectral Methods reference rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~pderepro.verification.table.COLUMNS`.
    """
    rows = [
        *poisson_manufactured(),
        *reaction_diffusion_convergence(),
        *navier_stokes_convergence(),
    ]
    return log_table(rows, "NSM reference verification", logger)
