"""Cost stages: the solver timed at a surrogate's resolution, and a study's cost table."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from pderepro.data.io import atomic_write
from pderepro.data.specs import dataset_spec
from pderepro.evaluation.cost import cost_table
from pderepro.evaluation.tables import write_table
from pderepro.runtime import describe_device, select_device, set_threads

log = logging.getLogger(__name__)

#: Samples the solver is timed on (after one untimed warm-up sample).
SOLVER_TIMING_SAMPLES = 4


def run_time_solver(
    *, dataset: Mapping[str, Any], resolution: int, output: str, threads: int = 1
) -> None:
    """Time the dataset's generator (initial condition and solve) on the grid of a
    surrogate's resolution, per sample; writes ``resolution, n_samples,
    solver_s_per_sample, solver_device``.

    The solver runs with the dataset's science (time step included) on a
    ``resolution``-point grid, so the surrogate is compared with the solver at the
    resolution the surrogate answers at.
    """
    set_threads(threads)
    device = select_device()
    spec = dataset_spec(dataset["solver"])
    generate = spec.load_generator()
    cfg = {**dataset, "base_resolution": resolution}
    generate(cfg, split="test", start=0, count=1, device=device)  # imports, FFT plans
    tic = time.perf_counter()
    generate(cfg, split="test", start=1, count=SOLVER_TIMING_SAMPLES, device=device)
    seconds = (time.perf_counter() - tic) / SOLVER_TIMING_SAMPLES
    log.info("%s at %d points: %.4g s per sample", dataset["solver"], resolution, seconds)
    row = {
        "resolution": resolution,
        "n_samples": SOLVER_TIMING_SAMPLES,
        "solver_s_per_sample": seconds,
        "solver_device": f"{describe_device(device)} x {threads}",
    }
    atomic_write(output, lambda tmp: pd.DataFrame([row]).to_csv(tmp, index=False))


def _benchmark_seconds(path: str) -> float:
    """Wall time of a job from its Snakemake benchmark file."""
    return float(pd.read_csv(path, sep="\t")["s"].astype(float).mean())


def run_cost_table(
    *,
    units: Mapping[str, Mapping[str, Any]],
    model_order: list[str],
    csv: str,
    markdown: str,
    caption: str,
) -> None:
    """A study's cost table (:func:`pderepro.evaluation.cost.cost_table`).

    Parameters
    ----------
    units : mapping
        Per unit: ``generate`` (benchmark files of its generation jobs), ``n_generated``
        (samples they made), ``n_build`` (train and validation samples), ``runs`` (one
        ``{"benchmark", "metrics"}`` per training run: the training job's benchmark file
        and the run's metrics file) and ``solver`` (solver timing files).
    """
    runs, data, solver = [], [], []
    for unit, files in units.items():
        generation_s = sum(_benchmark_seconds(p) for p in files["generate"])
        data.append(
            {
                "unit": unit,
                "data_s_per_sample": generation_s / files["n_generated"],
                "n_build_samples": files["n_build"],
            }
        )
        for run in files["runs"]:
            metrics = pd.read_csv(run["metrics"])
            runs.append(
                {
                    "unit": unit,
                    "model": metrics["model"].iloc[0],
                    "label": metrics["label"].iloc[0],
                    "resolution": int(metrics["resolution"].iloc[0]),
                    # a segmented training: every segment's job, the last one included
                    "train_s": sum(
                        map(_benchmark_seconds, [*run.get("segments", []), run["benchmark"]])
                    ),
                    "inference_s_per_sample": float(metrics["inference_s_per_sample"].iloc[0]),
                    "train_device": metrics["device"].iloc[0],
                    "inference_device": metrics["inference_device"].iloc[0],
                }
            )
        solver += [pd.read_csv(p).assign(unit=unit) for p in files["solver"]]
    table = cost_table(
        pd.DataFrame(runs),
        pd.DataFrame(data),
        pd.concat(solver, ignore_index=True).drop(columns="n_samples"),
        model_order=model_order,
    )
    write_table(table, csv, markdown, caption=caption)
    log.info("cost table of %d units written to %s", len(units), Path(csv).parent)
