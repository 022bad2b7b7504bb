"""Dataset specs: one per solver, registered once.

A :class:`DatasetSpec` says everything the workflow needs to know about the data of one
solver without running it: the generator (imported only when a job runs it), the
input/target layout recorded in its files, the spatial dimensions of its grid, the
values stored per sample, the schema of its config (``schemas/<solver>.yaml`` beside this
module) and the cost model of a generation job. A new PDE adds a solver, a generator and
one entry in :data:`DATASET_SPECS`.

Kept free of heavy imports (no torch, xarray, dask, numba): Snakemake imports it to
build the DAG and to size every job.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pderepro.data.layouts import Layout
from pderepro.resources import BYTES_PER_MB, mem_mb, runtime_minutes
from pderepro.solvers.burgers.viscous_burgers_problem import PDEBenchBurgersProblem

SCHEMA_DIR = Path(__file__).parent / "schemas"
#: Bytes of one stored float32 value.
FLOAT32_BYTES = 4
#: float64 solver temporaries per grid point and sample (measured peak, all solvers).
SOLVER_TEMPORARIES = 30


@dataclass(frozen=True)
class DatasetSpec:
    """What the workflow knows about one solver's datasets.

    Attributes
    ----------
    solver : str
        ``dataset.solver`` in a study config.
    layout : Layout
        Input and target variables and the grid kind, recorded in every file.
    ndim : int
        Spatial dimensions of the solver grid (``base_resolution`` points per side).
    generator : str
        ``module:function`` of the generator, imported only when a job runs it; it is
        called as ``generator(cfg, split=, start=, count=, device=)`` and returns an
        ``xarray.Dataset``.
    values_per_sample : callable
        ``cfg -> int``: stored float32 values (input and target) of one sample.
    seconds_per_sample : callable
        ``cfg -> float``: solver time of one sample on one CPU core (s), measured.
    """

    solver: str
    layout: Layout
    ndim: int
    generator: str
    values_per_sample: Callable[[Mapping[str, Any]], float]
    seconds_per_sample: Callable[[Mapping[str, Any]], float]

    @property
    def schema_path(self) -> Path:
        """The JSON-schema fragment (YAML) of this solver's dataset config."""
        return SCHEMA_DIR / f"{self.solver}.yaml"

    def load_generator(self) -> Callable[..., Any]:
        """Import and return the generator function."""
        module, _, name = self.generator.partition(":")
        return getattr(importlib.import_module(module), name)

    def points(self, cfg: Mapping[str, Any]) -> int:
        """Grid points of one sample's field on the solver grid."""
        return cfg["base_resolution"] ** self.ndim

    def generate_mem_mb(self, cfg: Mapping[str, Any]) -> int:
        """Memory (MB) of a job generating one shard: float64 solver temporaries for
        every sample of the shard plus the shard's stored float32 values."""
        stored = cfg["shard_size"] * self.values_per_sample(cfg) * FLOAT32_BYTES
        return mem_mb(SOLVER_TEMPORARIES * 8 * cfg["shard_size"] * self.points(cfg) + stored)

    def generate_runtime(self, cfg: Mapping[str, Any]) -> int:
        """Time limit (minutes) of a job generating one shard."""
        return runtime_minutes(cfg["shard_size"] * self.seconds_per_sample(cfg))

    def split_mb(self, cfg: Mapping[str, Any], split: str) -> float:
        """Size (MB) of one raw split: its float32 input and target values."""
        return FLOAT32_BYTES * cfg[f"n_{split}"] * self.values_per_sample(cfg) / BYTES_PER_MB


def _steps(cfg: Mapping[str, Any]) -> int:
    return round(cfg["t_final"] / cfg["time_step"])


def _frames(cfg: Mapping[str, Any]) -> int:
    """Stored frames of a time-series sample: the input frames and the target frames."""
    return round(cfg["frames_in"] + (cfg["t_final"] - cfg["frames_in"]) * cfg["records_per_time"])


#: ETDRK4 Burgers: about 2e-11 s per sample, grid point and time step on one core.
BURGERS_S_PER_POINT_STEP = 2e-11
#: Darcy: sparse direct solve, about 5e-6 s per grid point (s^2) at s = 421 on one core.
DARCY_S_PER_POINT = 5e-6
#: Navier-Stokes: about 2e-8 s per sample, grid point and step at 64^2 on one core.
NS_S_PER_POINT_STEP = 2e-8

#: PDEBench advection: about 1e-7 s per stored value (cell and frame) on one core: the
#: generator's CPU time was 0.014-0.023 s per sample for 64 samples at 1024 cells x 201
#: frames (0.05 s per sample for 16, the fixed costs showing), on a loaded 2-core machine.
PDEBENCH_ADVECTION_S_PER_VALUE = 1e-7
#: PDEBench Burgers: about 8e-8 s per sample, internal grid point and ETDRK4 step on one
#: core: the generator's CPU time (one torch thread, float64, batches of 16 and 8) was
#: 0.19 s per sample at nu = 1 (1024 points x 2200 steps, 8.6e-8) and 0.69 s at nu = 0.01
#: (2048 x 4400, 7.7e-8), on a loaded 2-core machine, under the old two-sine law (speed bound
#: 2). PDEBench's law (bound 4) doubles grid and steps below nu = 0.04: 2.5 s at nu = 0.01
#: (4096 x 17,200, 3.5e-8; benchmarks/solver_time_errors.py), so the model is conservative
#: there, and about 6 min at nu = 1e-3 (32768 x 137,400; not measured).
PDEBENCH_BURGERS_S_PER_POINT_STEP = 8e-8
#: PDEBench diffusion-reaction: about 2e-8 s per sample, cell and Strang step on one core
#: (0.2 s per sample at 1024 cells x 10,000 steps, batches of 8).
PDEBENCH_DIFFUSION_REACTION_S_PER_POINT_STEP = 2e-8


def _trajectory_values(cfg: Mapping[str, Any]) -> int:
    """Stored values of a PDEBench sample: ``n_frames`` frames of ``base_resolution`` cells."""
    return cfg["n_frames"] * cfg["base_resolution"]


def _pdebench_burgers_seconds(cfg: Mapping[str, Any]) -> float:
    """Solver time of one PDEBench Burgers sample: the solver's own internal grid and step
    for this ``nu`` (32 times the saved grid and 31 times the steps at ``nu = 1e-3``)."""
    problem = PDEBenchBurgersProblem(
        nu=cfg["nu"],
        n_cells=cfg["base_resolution"],
        t_final=cfg["t_final"],
        n_frames=cfg["n_frames"],
        points_per_front=cfg["points_per_front"],
    )
    steps = problem.steps_per_frame * (problem.n_frames - 1)
    return problem.resolution * steps * PDEBENCH_BURGERS_S_PER_POINT_STEP


def _pdebench_spec(
    equation: str,
    scalars: tuple[str, ...],
    seconds_per_sample: Callable[[Mapping[str, Any]], float],
) -> DatasetSpec:
    """The spec of PDEBench's 1-D ``equation`` (``advection``, ``burgers``, ...): trajectories
    ``u(sample, time, x)`` on the periodic grid, with the PDE parameters ``scalars`` recorded
    per sample, made by ``generate_pdebench_<equation>``; ``seconds_per_sample`` as
    :attr:`DatasetSpec.seconds_per_sample` (s)."""
    return DatasetSpec(
        solver=f"pdebench_{equation}",
        layout=Layout(
            inputs=("u",), target="u", grid="periodic", scalars=scalars, trajectory_dim="time"
        ),
        ndim=1,
        generator=f"pderepro.data.generate_pdebench:generate_pdebench_{equation}",
        values_per_sample=_trajectory_values,
        seconds_per_sample=seconds_per_sample,
    )


#: Every solver's spec, by ``dataset.solver``.
DATASET_SPECS: dict[str, DatasetSpec] = {
    spec.solver: spec
    for spec in (
        DatasetSpec(
            solver="burgers",
            layout=Layout(inputs=("u0",), target="u", grid="periodic"),
            ndim=1,
            generator="pderepro.data.generate:generate_burgers",
            values_per_sample=lambda cfg: 2 * cfg["base_resolution"],
            seconds_per_sample=lambda cfg: (
                cfg["base_resolution"] * _steps(cfg) * BURGERS_S_PER_POINT_STEP
            ),
        ),
        DatasetSpec(
            solver="darcy",
            layout=Layout(inputs=("a",), target="u", grid="vertex"),
            ndim=2,
            generator="pderepro.data.generate_fields:generate_darcy",
            values_per_sample=lambda cfg: 2 * cfg["base_resolution"] ** 2,
            seconds_per_sample=lambda cfg: cfg["base_resolution"] ** 2 * DARCY_S_PER_POINT,
        ),
        DatasetSpec(
            solver="navier_stokes",
            layout=Layout(inputs=("w_in",), target="w", grid="periodic"),
            ndim=2,
            generator="pderepro.data.generate_fields:generate_navier_stokes",
            values_per_sample=lambda cfg: _frames(cfg) * cfg["base_resolution"] ** 2,
            seconds_per_sample=lambda cfg: (
                cfg["base_resolution"] ** 2 * _steps(cfg) * NS_S_PER_POINT_STEP
            ),
        ),
        _pdebench_spec(
            "advection",
            ("beta",),
            lambda cfg: _trajectory_values(cfg) * PDEBENCH_ADVECTION_S_PER_VALUE,
        ),
        _pdebench_spec("burgers", ("nu",), _pdebench_burgers_seconds),
        _pdebench_spec(
            "diffusion_reaction",
            ("nu", "rho"),
            lambda cfg: (
                cfg["base_resolution"]
                * (cfg["n_frames"] - 1)
                * cfg["steps_per_frame"]
                * PDEBENCH_DIFFUSION_REACTION_S_PER_POINT_STEP
            ),  # fmt: skip
        ),
    )
}


def dataset_spec(solver: str) -> DatasetSpec:
    """The spec of ``solver``; a ValueError names the known ones."""
    try:
        return DATASET_SPECS[solver]
    except KeyError:
        raise ValueError(
            f"unknown dataset solver {solver!r}; registered: {sorted(DATASET_SPECS)}"
        ) from None
