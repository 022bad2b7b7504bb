"""Stages of a design study: one job per task running every method (and every seed of the
seeded ones) on the same physics, the tables across tasks, the figure of the designs.

A task is a structure (:func:`pderepro.solvers.elasticity.tasks.build_task`), a volume
fraction and a filter radius; a method is one optimiser of
:mod:`pderepro.training.design.optimisers` with its budget of objective evaluations. The
no-optimisation reference is the uniform design (every density at the volume fraction).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from pderepro.data.io import atomic_write, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.design_tables import design_tables, perimeter
from pderepro.evaluation.tables import write_table
from pderepro.runtime import set_threads

log = logging.getLogger(__name__)

#: Columns of a task job's metrics file: one row per (method, seed).
RUN_COLUMNS = ["task", "family", "nelx", "nely", "volume", "method", "seed", "compliance",
               "volume_error", "evaluations", "wall_s"]  # fmt: skip
#: Columns of a task job's histories file: one row per (method, seed, objective evaluation).
HISTORY_COLUMNS = ["task", "method", "seed", "evaluation", "compliance"]
#: The methods every design study may name, by optimiser.
OPTIMISERS = ("uniform", "oc", "mma", "pixel_lbfgs", "cnn_lbfgs")


def _run(optimiser: str, structure, volume: float, filt, iterations: int, seed: int,
         network: Mapping[str, Any]):  # fmt: skip
    """One optimiser's :class:`~pderepro.training.design.optimisers.DesignRun`."""
    from pderepro.models.design_cnn import DesignCNN
    from pderepro.training.design import optimisers

    if optimiser == "uniform":
        density = np.full((structure.nely, structure.nelx), float(volume))
        return optimisers.DesignRun([structure.compliance(density)[0]], density)
    if optimiser == "oc":
        return optimisers.optimality_criteria(structure, volume, filt, iterations)
    if optimiser == "mma":
        return optimisers.mma(structure, volume, filt, iterations)
    if optimiser == "pixel_lbfgs":
        return optimisers.pixel_lbfgs(structure, volume, filt, iterations)
    if optimiser == "cnn_lbfgs":
        cnn = DesignCNN(structure.nely, structure.nelx, latent=network["latent"],
                        channels=tuple(network["channels"]), seed=seed)  # fmt: skip
        return optimisers.lbfgs(structure, volume, filt, iterations, list(cnn.parameters()), cnn)
    raise ValueError(f"no design optimiser {optimiser!r}; choose from {OPTIMISERS}")


def run_design_task(
    *,
    metrics: str,
    designs: str,
    histories: str,
    task_key: str,
    task: Mapping[str, Any],
    methods: Mapping[str, Mapping[str, Any]],
    seeds: int,
    network: Mapping[str, Any],
    threads: int = 1,
) -> None:
    """Run every method on one task and write its metrics and final designs.

    Parameters
    ----------
    metrics : str
        CSV of :data:`RUN_COLUMNS`: compliance (dimensionless, E0 = 1 and unit loads) of
        the final design, ``volume_error`` = |mean filtered density - volume|, the
        objective evaluations spent and the wall seconds.
    designs : str
        NetCDF of the final filtered densities, ``density(run, y, x)``, ``run`` naming
        ``<method>/seed<seed>``.
    histories : str
        CSV of :data:`HISTORY_COLUMNS`: the compliance at every objective evaluation of
        every run (an L-BFGS line search's trial points included; the uniform design's one
        evaluation at 0).
    task_key : str
        The task's key in the study.
    task : mapping
        ``family``, ``nelx``, ``nely``, ``volume``, ``filter_radius`` (element widths).
    methods : mapping
        Per method key: ``optimiser`` (:data:`OPTIMISERS`), ``iterations``, ``seeded``.
    seeds : int
        Seeds 0..seeds-1 of the seeded methods (the CNN's initialisation); the others
        are deterministic and run once (seed 0).
    network : mapping
        The CNN's ``latent`` size and ``channels``.
    threads : int
        Torch and BLAS threads.
    """
    from pderepro.solvers.elasticity.fem import cone_filter
    from pderepro.solvers.elasticity.tasks import build_task

    set_threads(threads)
    structure = build_task(task["family"], task["nelx"], task["nely"])
    filt = cone_filter(task["nelx"], task["nely"], task["filter_radius"])
    volume = float(task["volume"])
    rows, fields, names, curves = [], [], [], []
    for key, method in methods.items():
        for seed in range(seeds if method.get("seeded") else 1):
            start = time.perf_counter()
            run = _run(method["optimiser"], structure, volume, filt, method["iterations"],
                       seed, network)  # fmt: skip
            wall = time.perf_counter() - start
            if not np.isfinite(run.final):
                raise FloatingPointError(f"{task_key} {key} seed {seed}: compliance {run.final}")
            rows.append({
                "task": task_key, "family": task["family"], "nelx": task["nelx"],
                "nely": task["nely"], "volume": volume, "method": key, "seed": seed,
                "compliance": run.final,
                "volume_error": abs(float(run.density.mean()) - volume),
                "evaluations": max(len(run.history) - 1, 0),  # the last entry re-scores the final
                "wall_s": wall,
            })  # fmt: skip
            fields.append(run.density)
            names.append(f"{key}/seed{seed}")
            evaluated = run.history[:-1] or run.history  # the last entry re-scores the final
            curves += [(task_key, key, seed, i, c) for i, c in enumerate(evaluated)]
            log.info("%s %s seed %d: compliance %.5g in %d evaluations, %.2f s", task_key, key,
                     seed, run.final, rows[-1]["evaluations"], wall)  # fmt: skip
    table = pd.DataFrame(rows, columns=RUN_COLUMNS)
    atomic_write(metrics, lambda tmp: table.to_csv(tmp, index=False, float_format="%.10g"))
    curve_table = pd.DataFrame(curves, columns=HISTORY_COLUMNS)
    atomic_write(histories, lambda tmp: curve_table.to_csv(tmp, index=False,
                                                           float_format="%.10g"))  # fmt: skip
    ds = xr.Dataset(
        {"density": (("run", "y", "x"), np.stack(fields).astype(np.float32))},
        coords={"run": names},
    )
    ds.attrs["task"] = task_key
    ds.attrs.update(provenance_attrs(
        title=f"design task {task_key}: final filtered densities", rule="design_task",
        params={"task": dict(task), "methods": {k: dict(v) for k, v in methods.items()}},
        seed=0,
    ))  # fmt: skip
    write_netcdf(ds, designs)


def _runs(metrics: Sequence[str]) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)


def _perimeters(designs: Sequence[str]) -> pd.DataFrame:
    """``task, method, seed, perimeter`` of every final design."""
    rows = []
    for path in designs:
        with xr.open_dataset(path) as ds:
            for run in ds["run"].values:
                method, seed = str(run).rsplit("/seed", 1)
                length = perimeter(ds["density"].sel(run=run).values)
                rows.append({"task": ds.attrs["task"], "method": method, "seed": int(seed),
                             "perimeter": length})  # fmt: skip
    return pd.DataFrame(rows, columns=["task", "method", "seed", "perimeter"])


def run_design_tables(
    *,
    metrics: Sequence[str],
    designs: Sequence[str],
    outputs: Mapping[str, str],
    labels: Mapping[str, str],
    reference: str,
    tolerance: float,
    captions: Mapping[str, str],
) -> None:
    """The tasks and wins tables (CSV and Markdown) from every task job's metrics, with
    each final design's perimeter (:func:`~pderepro.evaluation.design_tables.perimeter`)
    read from its ``designs`` file.

    ``labels`` maps each method key to its label (table order); ``reference`` is the
    no-optimisation method's key; ``tolerance`` the relative gap within which a design
    counts as the best of its task.
    """
    runs = _runs(metrics).merge(_perimeters(designs), on=["task", "method", "seed"], how="left")
    tables = design_tables(runs, list(labels), reference=reference,
                           tolerance=tolerance)  # fmt: skip
    for name, table in tables.items():
        table.insert(table.columns.get_loc("method") + 1, "label", table["method"].map(labels))
        write_table(table, outputs[f"{name}_csv"], outputs[f"{name}_md"], caption=captions[name])
    for _, row in tables["wins"].iterrows():
        log.info("%s: best on %.1f tasks [%g, %g], %.1f%% worse than the best on average",
                 row["method"], row["wins"], row["wins_low"], row["wins_high"],
                 row["pct_worse_mean"])  # fmt: skip


def run_plot_designs(
    *, designs: Sequence[str], tasks: str, outputs: Mapping[str, str], title: str,
    labels: Mapping[str, str],
) -> None:  # fmt: skip
    """The final designs of every task (rows) and method (columns, first seed)."""
    from pderepro.plotting.design import plot_designs

    fields = {}
    for path in designs:
        with xr.open_dataset(path) as ds:
            fields[ds.attrs["task"]] = {
                str(r): ds["density"].sel(run=r).values for r in ds["run"].values
            }
    plot_designs(fields, pd.read_csv(tasks), labels=labels, title=title,
                 paths=[outputs["png"], outputs["pdf"]])  # fmt: skip


def run_plot_design_curves(
    *, histories: Sequence[str], outputs: Mapping[str, str], title: str,
    labels: Mapping[str, str],
) -> None:  # fmt: skip
    """Compliance against objective evaluations of a few tasks (one panel each), every
    method's first seed, the uniform design as the no-optimisation line."""
    from pderepro.plotting.design import plot_compliance_curves

    curves = pd.concat([pd.read_csv(p) for p in histories], ignore_index=True)
    plot_compliance_curves(curves, labels=labels, title=title,
                           paths=[outputs["png"], outputs["pdf"]])  # fmt: skip
