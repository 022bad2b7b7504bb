"""Two-dimensional datasets of the FNO paper: Darcy ``a -> u`` and Navier-Stokes frames.

Each sample is drawn from its own seed (:func:`sample_seeds`), so the data do not depend
on how a split is sharded into jobs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from pderepro.data.records import sample_coords, solver_attrs
from pderepro.data.seeds import sample_seeds
from pderepro.solvers.elliptic.darcy import DarcyProblem, generate_darcy_samples
from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, solve_navier_stokes
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf

log = logging.getLogger(__name__)

#: Navier-Stokes samples integrated together (one batched solver call).
NS_BATCH = 20


def darcy_problem(cfg: Mapping[str, Any]) -> DarcyProblem:
    """The :class:`DarcyProblem` of a dataset config (``psi``, ``forcing``, ``grf``,
    ``face_mean``)."""
    return DarcyProblem(
        resolution=cfg["base_resolution"],
        psi_high=cfg["psi_high"],
        psi_low=cfg["psi_low"],
        forcing=cfg["forcing"],
        face_mean=cfg["face_mean"],
        **_grf_settings(cfg),
    )


def _grf_settings(cfg: Mapping[str, Any]) -> dict[str, float]:
    """The config's ``grf: {scale, shift, exponent}`` as the problems' ``grf_*`` settings."""
    return {f"grf_{key}": cfg["grf"][key] for key in ("scale", "shift", "exponent")}


def generate_darcy(
    cfg: Mapping[str, Any], *, split: str, start: int, count: int, device: str | None = None
) -> xr.Dataset:
    """Darcy samples ``start .. start+count-1``: coefficient ``a`` and solution ``u``.

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``base_resolution, psi_high, psi_low, forcing, face_mean,
        seed`` and ``grf: {scale, shift, exponent}``.
    split : str
        ``train`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str, optional
        Unused: the sparse direct solve runs on the CPU.

    Returns
    -------
    xarray.Dataset
        ``a(sample, y, x)`` (permeability units) and ``u(sample, y, x)`` as float32 (solved
        in float64) on the vertex grid ``linspace(0, 1, s)``, with coordinate ``seed(sample)``.
    """
    del device
    problem = darcy_problem(cfg)
    seeds = sample_seeds(cfg["seed"], split, start, count)
    s = problem.resolution
    a = np.empty((count, s, s), dtype=np.float32)
    u = np.empty((count, s, s), dtype=np.float32)
    every = max(1, count // 10)
    clock = time.perf_counter()
    for i, seed in enumerate(seeds):
        a_i, u_i = generate_darcy_samples(1, problem, seed=int(seed))
        a[i], u[i] = a_i[0], u_i[0]
        if (i + 1) % every == 0 or i + 1 == count:
            log.info(
                "Darcy s=%d: %d/%d samples, %.1f s", s, i + 1, count, time.perf_counter() - clock
            )
    dims = ("sample", "y", "x")
    ds = xr.Dataset(
        {"a": (dims, a), "u": (dims, u)},
        coords=sample_coords(start, seeds, {"y": problem.grid, "x": problem.grid}),
    )
    solver_attrs(ds, "darcy", split=split, solver="darcy_fd5_spsolve")
    return ds


def navier_stokes_problem(cfg: Mapping[str, Any]) -> NavierStokesProblem:
    """The :class:`NavierStokesProblem` of a dataset config."""
    return NavierStokesProblem(
        viscosity=cfg["viscosity"],
        t_final=cfg["t_final"],
        time_step=cfg["time_step"],
        resolution=cfg["base_resolution"],
        record_interval=1.0 / cfg["records_per_time"],
        forcing_amplitude=cfg["forcing_amplitude"],
        **_grf_settings(cfg),
    )


def generate_navier_stokes(
    cfg: Mapping[str, Any], *, split: str, start: int, count: int, device: str | None = None
) -> xr.Dataset:
    """Navier-Stokes samples: the first ``frames_in`` time units as input, the rest as target.

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``viscosity, t_final, time_step, base_resolution, frames_in,
        records_per_time, forcing_amplitude, seed`` and ``grf: {scale, shift, exponent}``.
    split : str
        ``train`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str, optional
        Torch device of the solver (the paper's 256 x 256 runs want a GPU).

    Returns
    -------
    xarray.Dataset
        ``w_in(sample, time_in, y, x)``: vorticity at ``t = 1 .. frames_in`` (one frame per
        time unit, the model's input); ``w(sample, time, y, x)``: vorticity at every
        ``1 / records_per_time`` after ``frames_in`` up to ``t_final`` (the target). float32,
        solved in float64.
    """
    problem = navier_stokes_problem(cfg)
    per_unit = int(cfg["records_per_time"])
    frames_in = int(cfg["frames_in"])
    seeds = sample_seeds(cfg["seed"], split, start, count)
    grf = cfg["grf"]
    n = problem.resolution
    w0 = np.concatenate(
        [
            sample_vorticity_grf(
                1, n, scale=grf["scale"], shift=grf["shift"], exponent=grf["exponent"],
                seed=int(s), device="cpu",
            ).numpy()
            for s in seeds
        ]
    )  # fmt: skip  # (count, n, n)
    frames = []
    clock = time.perf_counter()
    for first in range(0, count, NS_BATCH):
        w = solve_navier_stokes(w0[first : first + NS_BATCH], problem, device=device)
        frames.append(w.cpu().numpy().astype(np.float32))  # (batch, records + 1, n, n)
        log.info(
            "Navier-Stokes n=%d nu=%g: %d/%d samples, %.1f s",
            n, problem.viscosity, min(first + NS_BATCH, count), count, time.perf_counter() - clock,
        )  # fmt: skip
    # the solver stores w[..., i, j] = w(x_i, y_j); files hold (y, x)
    w = np.concatenate(frames).swapaxes(-1, -2)  # (count, records + 1, n(y), n(x))
    times = problem.record_times
    unit = np.arange(per_unit, frames_in * per_unit + 1, per_unit)  # records at t = 1..frames_in
    dims = ("sample", "time_in", "y", "x")
    ds = xr.Dataset(
        {
            "w_in": (dims, w[:, unit]),
            "w": (("sample", "time", "y", "x"), w[:, unit[-1] + 1 :]),
        },
        coords=sample_coords(
            start,
            seeds,
            {
                "time_in": times[unit],
                "time": times[unit[-1] + 1 :],
                "y": problem.grid,
                "x": problem.grid,
            },
            {"viscosity": problem.viscosity},
        ),
    )
    solver_attrs(
        ds, "navier_stokes", split=split, solver="navier_stokes_ab2cn_pseudospectral",
        time_step=problem.time_step,
    )  # fmt: skip
    return ds
