"""PDEBench 1-D trajectories (docs/references.md): advection, viscous Burgers and
diffusion-reaction (with its basic forms, docs/references.md).

One dataset holds one parameter value (advection speed ``beta``, Burgers viscosity ``nu``,
or the pair ``nu, rho`` of diffusion-reaction); a study makes one dataset per value.
Every sample is a trajectory ``u(sample, time, x)`` at the cell centres of
``base_resolution`` cells on [0, 1), at ``n_frames`` times from 0 to ``t_final`` (the first
frame is the initial condition). Each parameter is a coordinate on ``sample`` (constant
within a file), so the files of several values concatenate along ``sample`` and a model
reads it as a per-sample scalar input.

Each sample's initial condition is drawn by
:func:`~pderepro.solvers.common.pdebench_ic.draw_initial_condition` from a generator seeded with
that sample's own seed (:func:`~pderepro.data.seeds.sample_seeds`, recorded as ``seed``),
and its drawn parameters are recorded beside it (``ic_*`` variables), so any sample can be
audited or regenerated alone and no sample depends on how a split is sharded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
import xarray as xr

from pderepro.data.records import sample_coords, solver_attrs
from pderepro.data.seeds import sample_seeds
from pderepro.solvers.burgers.viscous_burgers import (
    OVERSAMPLE,
    PDEBenchBurgersProblem,
    burgers_frames,
)
from pderepro.solvers.common.pdebench_ic import (
    SinesIC,
    cell_centres,
    draw_initial_condition,
    frame_times,
)
from pderepro.solvers.reaction_diffusion.diffusion_reaction import (
    pdebench_diffusion_reaction_frames,
)
from pderepro.solvers.transport.advection import advection_frames

log = logging.getLogger(__name__)

#: Advection (and diffusion-reaction) samples evaluated together: bounds the float64 frames
#: held at once (64 x 201 x 1024 x 8 B = 105 MB at the default grid).
ADVECTION_BATCH = 64
#: Burgers samples solved together, by device type. On a CPU the solver is 2-5 times
#: faster per sample in batches of 8-16 than alone; on a GPU a step of a small batch costs
#: about its kernel launches, so batches are larger there, but bounded so that the host
#: arrays of a batch at nu = 1e-3 (the initial formula on 8 x 16384 points, the float64
#: frames) stay within the job's memory margin (about 0.4 GB at 64). Grid and step never
#: depend on the batch, so neither do the data.
BURGERS_BATCH = {"cpu": 16, "cuda": 64}
#: Largest accepted spectral tail
#: (:class:`~pderepro.solvers.burgers.viscous_burgers.BurgersFrames`), about the relative spatial
#: error: two orders below the smallest published PDEBench nRMSE (2.9e-3, docs/references.md), so
#: that data error cannot show in a comparison. The solver's default ``points_per_front = 5`` gives
#: 1e-7 or less.
MAX_SPECTRAL_TAIL = 1e-5


class UnderResolvedError(RuntimeError):
    """A Burgers sample's spectral tail exceeds :data:`MAX_SPECTRAL_TAIL`."""


def _parameter(cfg: Mapping[str, Any], name: str) -> float:
    """The dataset's PDE parameter ``name``, with a clear error where a study left it out."""
    if cfg.get(name) is None:
        raise ValueError(
            f"dataset {cfg.get('name')!r}: {name} is not set; a PDEBench dataset holds one "
            f"{name} value, which the study sets per dataset"
        )
    return float(cfg[name])


def _draw(
    cfg: Mapping[str, Any], split: str, start: int, count: int
) -> tuple[np.ndarray, list[SinesIC]]:
    """Per-sample seeds ``(count,)`` and the initial conditions drawn from them."""
    seeds = sample_seeds(cfg["seed"], split, start, count)
    return seeds, [draw_initial_condition(np.random.default_rng(int(s))) for s in seeds]


def ic_records(ics: Sequence[SinesIC]) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """The drawn initial-condition parameters as variables on ``sample`` (and ``sine``).

    Parameters
    ----------
    ics : sequence of SinesIC
        One per sample, all with the same number of sines.

    Returns
    -------
    dict
        ``{name: (dims, values)}``: ``ic_mode`` (int32), ``ic_amplitude`` (velocity units)
        and ``ic_phase`` (radians), each ``(sample, sine)``; ``ic_absolute``,
        ``ic_windowed`` (int8 0/1), ``ic_sign`` (int8 +-1), ``ic_window_left``,
        ``ic_window_right`` and ``ic_wavelength`` (length units), each ``(sample,)``.
        float64, so that :func:`~pderepro.solvers.common.pdebench_ic.evaluate_initial_conditions`
        of the recorded values reproduces the sample.
    """
    pair, single = ("sample", "sine"), ("sample",)
    return {
        "ic_mode": (pair, np.array([ic.modes for ic in ics], dtype=np.int32)),
        "ic_amplitude": (pair, np.array([ic.amplitudes for ic in ics], dtype=np.float64)),
        "ic_phase": (pair, np.array([ic.phases for ic in ics], dtype=np.float64)),
        "ic_absolute": (single, np.array([ic.absolute for ic in ics], dtype=np.int8)),
        "ic_sign": (single, np.array([ic.sign for ic in ics], dtype=np.int8)),
        "ic_windowed": (single, np.array([ic.windowed for ic in ics], dtype=np.int8)),
        "ic_window_left": (single, np.array([ic.x_left for ic in ics], dtype=np.float64)),
        "ic_window_right": (single, np.array([ic.x_right for ic in ics], dtype=np.float64)),
        "ic_wavelength": (single, np.array([ic.wavelength for ic in ics], dtype=np.float64)),
    }


def recorded_initial_conditions(ds: xr.Dataset) -> list[SinesIC]:
    """The initial conditions recorded in a PDEBench file (inverse of :func:`ic_records`)."""
    return [
        SinesIC(
            modes=tuple(int(n) for n in ds["ic_mode"].values[i]),
            amplitudes=tuple(float(a) for a in ds["ic_amplitude"].values[i]),
            phases=tuple(float(p) for p in ds["ic_phase"].values[i]),
            absolute=bool(ds["ic_absolute"].values[i]),
            sign=float(ds["ic_sign"].values[i]),
            windowed=bool(ds["ic_windowed"].values[i]),
            x_left=float(ds["ic_window_left"].values[i]),
            x_right=float(ds["ic_window_right"].values[i]),
            wavelength=float(ds["ic_wavelength"].values[i]),
        )
        for i in range(ds.sizes["sample"])
    ]


def _trajectories(
    u: np.ndarray,
    *,
    cfg: Mapping[str, Any],
    start: int,
    seeds: np.ndarray,
    ics: Sequence[SinesIC],
    parameters: Sequence[str],
    extra: Mapping[str, tuple[tuple[str, ...], np.ndarray]] | None = None,
) -> xr.Dataset:
    """The dataset of ``u`` ``(sample, time, x)`` float32 with its coordinates and records."""
    grid = {
        "time": frame_times(cfg["t_final"], cfg["n_frames"]),
        "x": cell_centres(cfg["base_resolution"]),
        "sine": np.arange(1, len(ics[0].modes) + 1),
    }
    return xr.Dataset(
        {"u": (("sample", "time", "x"), u), **ic_records(ics), **(extra or {})},
        coords=sample_coords(start, seeds, grid, {p: _parameter(cfg, p) for p in parameters}),
    )


def _progress(what: str, done: int, count: int, clock: float, detail: str = "") -> None:
    log.info("%s: %d/%d samples, %.1f s%s", what, done, count, time.perf_counter() - clock, detail)


def _batched_frames(
    ics: Sequence[SinesIC],
    cfg: Mapping[str, Any],
    frames_of: Callable[[Sequence[SinesIC]], np.ndarray],
    what: str,
) -> np.ndarray:
    """``frames_of(batch)`` for batches of :data:`ADVECTION_BATCH` samples, gathered as
    ``u(sample, time, x)`` float32 (``n_frames`` times ``base_resolution`` cells, units of u)."""
    count = len(ics)
    u = np.empty((count, cfg["n_frames"], cfg["base_resolution"]), dtype=np.float32)
    clock = time.perf_counter()
    for first in range(0, count, ADVECTION_BATCH):
        batch = ics[first : first + ADVECTION_BATCH]
        u[first : first + len(batch)] = frames_of(batch)
        _progress(what, first + len(batch), count, clock)
    return u


def generate_pdebench_advection(
    cfg: Mapping[str, Any],
    *,
    split: str,
    start: int,
    count: int,
    device: str | torch.device | None = None,
) -> xr.Dataset:
    """Advection trajectories ``u_t + beta u_x = 0``, samples ``start .. start+count-1``.

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``beta, base_resolution, n_frames, t_final, seed``.
    split : str
        ``train``, ``validation`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str or torch.device, optional
        Unused: the exact solution is a formula evaluated with numpy.

    Returns
    -------
    xarray.Dataset
        ``u(sample, time, x)`` float32 (computed in float64) at the cell centres, with
        coordinates ``time, x, sine, seed(sample), beta(sample)`` and the initial-condition
        records (:func:`ic_records`).
    """
    del device
    beta = _parameter(cfg, "beta")
    seeds, ics = _draw(cfg, split, start, count)
    u = _batched_frames(
        ics, cfg,
        lambda batch: advection_frames(
            batch, beta, n_cells=cfg["base_resolution"], t_final=cfg["t_final"],
            n_frames=cfg["n_frames"],
        ),
        f"PDEBench advection beta={beta:g}",
    )  # fmt: skip
    ds = _trajectories(u, cfg=cfg, start=start, seeds=seeds, ics=ics, parameters=["beta"])
    solver_attrs(
        ds, "pdebench_advection", split=split, solver="pdebench_advection_exact",
        t_final=float(cfg["t_final"]),
    )  # fmt: skip
    return ds


def burgers_problem(cfg: Mapping[str, Any]) -> PDEBenchBurgersProblem:
    """The :class:`PDEBenchBurgersProblem` of a dataset config."""
    return PDEBenchBurgersProblem(
        nu=_parameter(cfg, "nu"),
        n_cells=cfg["base_resolution"],
        t_final=cfg["t_final"],
        n_frames=cfg["n_frames"],
        points_per_front=cfg["points_per_front"],
    )


def _device_type(device: str | torch.device | None) -> str:
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device).type


def _check_resolved(
    tail: np.ndarray, seeds: np.ndarray, first: int, problem: PDEBenchBurgersProblem
) -> None:
    """Raise :class:`UnderResolvedError` naming the samples whose tail is too large."""
    bad = np.flatnonzero(tail > MAX_SPECTRAL_TAIL)
    if bad.size:
        raise UnderResolvedError(
            f"PDEBench Burgers nu={problem.nu:g}: samples {(first + bad).tolist()} (seeds "
            f"{seeds[bad].tolist()}) have spectral tail up to {tail[bad].max():.3g} > "
            f"{MAX_SPECTRAL_TAIL:g} on {problem.resolution} internal points: under-resolved; "
            f"raise points_per_front (now {problem.points_per_front:g})"
        )


def generate_pdebench_burgers(
    cfg: Mapping[str, Any],
    *,
    split: str,
    start: int,
    count: int,
    device: str | torch.device | None = None,
) -> xr.Dataset:
    """Viscous Burgers trajectories ``u_t + (u^2/2)_x = (nu/pi) u_xx``, samples
    ``start .. start+count-1``.

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``nu, base_resolution, n_frames, t_final, points_per_front,
        seed``.
    split : str
        ``train``, ``validation`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str or torch.device, optional
        Torch device of the solver (default CUDA when available); float64 throughout, and
        the random draws are made with numpy, so the data depend on the device only
        through round-off.

    Returns
    -------
    xarray.Dataset
        As :func:`generate_pdebench_advection`, with ``nu(sample)`` in place of ``beta`` and
        the variable ``spectral_tail(sample)``, the solver's resolution indicator.

    Raises
    ------
    UnderResolvedError
        When a sample's spectral tail exceeds :data:`MAX_SPECTRAL_TAIL`; checked batch by
        batch, so a long shard stops at its first bad batch.
    """
    problem = burgers_problem(cfg)
    seeds, ics = _draw(cfg, split, start, count)
    u = np.empty((count, problem.n_frames, problem.n_cells), dtype=np.float32)
    tail = np.empty(count)  # (sample,)
    batch = BURGERS_BATCH.get(_device_type(device), BURGERS_BATCH["cpu"])
    log.info(
        "PDEBench Burgers nu=%g: %d samples on %d internal points, %d steps per frame",
        problem.nu, count, problem.resolution, problem.steps_per_frame,
    )  # fmt: skip
    clock = time.perf_counter()
    for first in range(0, count, batch):
        out = burgers_frames(ics[first : first + batch], problem, device=device)
        n = len(out.spectral_tail)
        _check_resolved(out.spectral_tail, seeds[first : first + n], first + start, problem)
        u[first : first + n] = out.frames
        tail[first : first + n] = out.spectral_tail
        detail = f", spectral tail <= {tail[: first + n].max():.2g}"
        _progress(f"PDEBench Burgers nu={problem.nu:g}", first + n, count, clock, detail)
    ds = _trajectories(
        u,
        cfg=cfg,
        start=start,
        seeds=seeds,
        ics=ics,
        parameters=["nu"],
        extra={"spectral_tail": (("sample",), tail)},
    )
    solver_attrs(
        ds,
        "pdebench_burgers",
        split=split,
        solver="pdebench_burgers_spectral",
        t_final=problem.t_final,
        internal_resolution=problem.resolution,
        time_step=problem.time_step,
        points_per_front=problem.points_per_front,
        courant=problem.courant,
        speed_bound=problem.speed_bound,
        oversample=OVERSAMPLE,
    )
    return ds


def generate_pdebench_diffusion_reaction(
    cfg: Mapping[str, Any],
    *,
    split: str,
    start: int,
    count: int,
    device: str | torch.device | None = None,
) -> xr.Dataset:
    """Diffusion-reaction trajectories ``u_t = nu u_xx + rho u (1 - u)``, samples
    ``start .. start+count-1``; ``rho = 0`` and ``nu = 0`` give its basic forms.

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``nu, rho, base_resolution, n_frames, t_final,
        steps_per_frame, seed``.
    split : str
        ``train``, ``validation`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str or torch.device, optional
        Unused: the split steps run in numpy (0.2 s per sample at 1024 cells).

    Returns
    -------
    xarray.Dataset
        As :func:`generate_pdebench_advection`, with ``nu(sample)`` and ``rho(sample)``;
        ``u`` is dimensionless, in [0, 1].
    """
    del device
    nu, rho = _parameter(cfg, "nu"), _parameter(cfg, "rho")
    seeds, ics = _draw(cfg, split, start, count)
    u = _batched_frames(
        ics, cfg,
        lambda batch: pdebench_diffusion_reaction_frames(
            batch, nu, rho, n_cells=cfg["base_resolution"], t_final=cfg["t_final"],
            n_frames=cfg["n_frames"], steps_per_frame=cfg["steps_per_frame"],
        ),
        f"diffusion-reaction nu={nu:g} rho={rho:g}",
    )  # fmt: skip
    ds = _trajectories(u, cfg=cfg, start=start, seeds=seeds, ics=ics, parameters=["nu", "rho"])
    solver_attrs(
        ds, "pdebench_diffusion_reaction", split=split,
        solver="pdebench_diffusion_reaction_strang", t_final=float(cfg["t_final"]),
        steps_per_frame=int(cfg["steps_per_frame"]),
        initial_condition="PDEBench sines mapped into [0, 1] per sample (min-max)",
    )  # fmt: skip
    return ds
