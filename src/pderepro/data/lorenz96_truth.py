"""Lorenz-96 truth runs as NetCDF, and their coarse-graining into closure training pairs.

Truth files hold ``X(sample, time, k)`` and, for pair runs, ``Y(sample, time, k, j)``.
Coarse-graining is lazy (xarray on dask chunks along ``time``), so a truth run larger
than memory streams through it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import numpy as np
import xarray as xr
from tqdm import tqdm

from pderepro.solvers.lorenz96.coarse import coarse_grained_tendency
from pderepro.solvers.lorenz96.lorenz96 import (
    Lorenz96Problem,
    attractor_state,
    integrate,
    whole_steps,
)

log = logging.getLogger(__name__)

#: Saved states per integration segment of a truth run.
SEGMENT_SAVES = 2000

#: Closure targets a study can train on (variables of the coarse-grained files).
TARGETS = {"subgrid": "subgrid_tendency", "coarse_grained": "coarse_grained_tendency"}


def truth_run(
    problem: Lorenz96Problem,
    *,
    members: int,
    spinup_time: float,
    run_time: float,
    save_interval: float,
    seed: int,
    store_fast: bool,
) -> xr.Dataset:
    """Independent truth trajectories of the two-scale model, spin-up discarded.

    Parameters
    ----------
    problem : Lorenz96Problem
        System parameters and RK4 step (time units).
    members : int
        Number of trajectories, each from its own random start.
    spinup_time : float
        Discarded spin-up (time units).
    run_time : float
        Recorded duration after the spin-up (time units).
    save_interval : float
        Time between saved states (time units); a multiple of ``problem.time_step``.
    seed : int
        Seed of the random starts.
    store_fast : bool
        Keep ``Y`` (needed to coarse-grain into training pairs; 32x the size of ``X``).

    Returns
    -------
    xarray.Dataset
        ``X(sample, time, k)`` and, if ``store_fast``, ``Y(sample, time, k, j)``, float32,
        with ``time`` counted from the end of the spin-up.
    """
    save_every = whole_steps(save_interval, problem.time_step, what="save_interval")
    n_steps = whole_steps(run_time, save_interval, what="run_time") * save_every
    x0, y0 = attractor_state(problem, trajectories=members, spin_up_time=spinup_time, seed=seed)
    log.info(
        "Lorenz-96 truth: %d members x %g time units (F=%g, dt=%g), saved every %g",
        members, run_time, problem.forcing, problem.time_step, save_interval,
    )  # fmt: skip
    n_saved = n_steps // save_every
    xs = np.empty((members, n_saved, problem.K), dtype=np.float32)
    ys = (
        np.empty((members, n_saved, problem.K, problem.J), dtype=np.float32) if store_fast else None
    )
    # in segments, so that only float32 copies of long runs are held (same result as one call)
    for first in tqdm(range(0, n_saved, SEGMENT_SAVES), desc="truth", mininterval=10):
        count = min(SEGMENT_SAVES, n_saved - first)
        run = integrate(
            x0, y0, problem, n_steps=count * save_every, save_every=save_every,
            store_fast=store_fast, t0=first * save_interval,
        )  # fmt: skip
        xs[:, first : first + count] = run.x
        if ys is not None:
            ys[:, first : first + count] = run.y
        x0, y0 = run.x_final, run.y_final
    data = {"X": (("sample", "time", "k"), xs)}
    if ys is not None:
        data["Y"] = (("sample", "time", "k", "j"), ys)
    ds = xr.Dataset(
        data,
        coords={
            "sample": np.arange(members),
            "time": save_interval * np.arange(1, n_saved + 1),
            "k": np.arange(problem.K),
            "j": np.arange(problem.J),
        },
    )
    ds.attrs.update(
        solver="lorenz96_rk4",
        solver_dtype="float64",
        forcing=float(problem.forcing),
        time_step=problem.time_step,
        save_interval=save_interval,
    )
    return ds


def coarse_grain(raw: xr.Dataset, *, coarse_step: float, coupling: float) -> xr.Dataset:
    """Closure training pairs at the coarse step, lazily when ``raw`` is dask-backed.

    Parameters
    ----------
    raw : xarray.Dataset
        A truth run with ``X`` and ``Y`` (attrs ``forcing``, ``save_interval``).
    coarse_step : float
        Coarse-model step (time units), a multiple of the saved interval.
    coupling : float
        ``h c / b``.

    Returns
    -------
    xarray.Dataset
        ``X``, ``subgrid_tendency = -(h c / b) sum_j Y`` and
        ``coarse_grained_tendency = (X(t + dt) - Phi_dt(X(t))) / dt`` on ``(sample, time,
        k)``, float32; the last coarse time is dropped (it has no successor).
    """
    stride = whole_steps(coarse_step, float(raw.attrs["save_interval"]), what="coarse time_step")
    coarse = raw.isel(time=slice(stride - 1, None, stride))  # times that are multiples of dt
    x = coarse["X"].astype(np.float64)
    tendency = xr.apply_ufunc(
        coarse_grained_tendency,
        x,
        x.shift(time=-1),
        kwargs={"forcing": float(raw.attrs["forcing"]), "dt": coarse_step},
        dask="parallelized",
        output_dtypes=[np.float64],
    )
    out = xr.Dataset(
        {
            "X": coarse["X"],
            "subgrid_tendency": (-coupling * coarse["Y"].astype(np.float64).sum("j")).astype(
                np.float32
            ),
            "coarse_grained_tendency": tendency.astype(np.float32),
        }
    ).isel(time=slice(None, -1))
    out.attrs = dict(raw.attrs)
    out.attrs["coarse_step"] = coarse_step
    return out


def time_blocks(n_time: int, fractions: Mapping[str, float], *, gap: int) -> dict[str, slice]:
    """Split ``range(n_time)`` into contiguous blocks in the given order, with gaps.

    Parameters
    ----------
    n_time : int
        Number of times.
    fractions : mapping
        ``{split: fraction}`` in time order, e.g. ``{"train": 0.7, "validation": 0.15,
        "test": 0.15}``; fractions of the time left after the gaps.
    gap : int
        Times left out between neighbouring blocks, so that no test sample is a close
        neighbour of a training sample.

    Returns
    -------
    dict
        ``{split: slice}``.

    Raises
    ------
    ValueError
        When a block would be shorter than two times.
    """
    usable = n_time - gap * (len(fractions) - 1)
    total = sum(fractions.values())
    blocks, start = {}, 0
    for i, (split, fraction) in enumerate(fractions.items()):
        last = i == len(fractions) - 1
        length = usable - (start - i * gap) if last else int(usable * fraction / total)
        if length < 2:
            raise ValueError(
                f"split {split!r} gets {length} times of {n_time}; the truth run is too short "
                f"for the blocks {dict(fractions)} with gaps of {gap}"
            )
        blocks[split] = slice(start, start + length)
        start += length + gap
    return blocks


def ring_pairs(ds: xr.Dataset, target: str) -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``X`` and targets ``U`` as rings ``(sample * time, K)``, float32.

    Parameters
    ----------
    ds : xarray.Dataset
        A coarse-grained split.
    target : str
        A key of :data:`TARGETS`.
    """
    x = ds["X"].to_numpy()
    u = ds[TARGETS[target]].to_numpy()
    K = x.shape[-1]
    return x.reshape(-1, K).astype(np.float32), u.reshape(-1, K).astype(np.float32)
