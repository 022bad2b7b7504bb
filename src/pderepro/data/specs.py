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
