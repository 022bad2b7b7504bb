"""Stages of a neural-spectral study: each problem's test inputs, reference and supervised
pairs, one training run per (problem, method, seed), the tables and the figure.

Runs are deterministic on the CPU: one thread, torch's global seed set before the network
is built, and every draw of inputs through the run's own generator; the test inputs and
the supervised pairs come from the study's data seed, each with its own offset.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from pderepro.data.io import atomic_write, open_netcdf, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.nsm_tables import (
    NSM_RUN_COLUMNS,
    errors_table,
    relative_l2_pct,
    speed_table,
)
from pderepro.evaluation.tables import write_table
from pderepro.plotting.nsm import plot_error_vs_time
from pderepro.runtime import describe_device, select_device, set_threads
from pderepro.training.checkpoint import save_checkpoint
from pderepro.training.pinn.loop import Budget
from pderepro.training.pinn.run_state import Segment
from pderepro.training.spectral.loop import build_operator_network, train_operator
from pderepro.training.spectral.problems import build_operator_problem

log = logging.getLogger(__name__)

#: Offsets of the data seed's streams: the test inputs, then each supervised method's pairs.
TEST_STREAM, PAIRS_STREAM = 0, 1


def grid_dims(sizes: Mapping[str, int], ndim: int, suffix: str = "") -> tuple[str, ...]:
    """Dimension names of a grid given by sizes: ``{"nt", "nx"}`` -> ``("t", "x")``; one
    size ``n`` per direction of a square grid -> ``("y", "x")``."""
    names = [k[1:] for k in sizes if k.startswith("n") and len(k) > 1]
    if len(names) != ndim:
        names = ["z", "y", "x"][-ndim:]
    return tuple(f"{n}{suffix}" for n in names)


def _node_dims(ndim: int, suffix: str = "") -> tuple[str, ...]:
    return tuple(f"{n}{suffix}" for n in (("node_y", "node_x") if ndim == 2 else ("node",)))


def run_nsm_data(
    *, output: str, problem: str, parameters: Mapping[str, Any], test_grid: Mapping[str, int],
    reference: Mapping[str, int], n_test: int, seed: int,
    supervised: Mapping[str, Mapping[str, int]],
) -> None:  # fmt: skip
    """Write a problem's test inputs (node values), its reference on the test grid and each
    supervised method's training pairs (inputs, solution on the method's grid)."""
    op = build_operator_problem(problem, dict(parameters))
    inputs = op.sample_inputs(n_test, np.random.default_rng([seed, TEST_STREAM]))
    u = op.reference(inputs, dict(test_grid), dict(reference))
    if not np.all(np.isfinite(u)):
        raise FloatingPointError(f"the reference of {problem} {dict(parameters)} is not finite")
    axes = op.test_grid(dict(test_grid))
    dims = grid_dims(test_grid, len(axes))
    coords: dict[str, Any] = {d: (d, a, {"long_name": "time" if d == "t" else f"coordinate {d}",
                                         "units": "1"})
                              for d, a in zip(dims, axes, strict=True)}  # fmt: skip
    data: dict[str, Any] = {
        "inputs": (("sample", *_node_dims(inputs.ndim - 1)), inputs,
                   {"long_name": "test inputs at the nodes", "units": "1"}),
        "u": (("sample", *dims), u, {"long_name": "reference solution u", "units": "1"}),
    }  # fmt: skip
    for i, (key, m) in enumerate(supervised.items()):
        rng = np.random.default_rng([seed, PAIRS_STREAM, i])
        pair_inputs = op.sample_inputs(int(m["n_train"]), rng)
        method = {"kind": "supervised", "n": int(m["n"])}
        sizes = op.method_grid(method)
        targets = op.reference(pair_inputs, sizes, dict(reference))
        pair_dims = grid_dims(sizes, targets.ndim - 1, f"_{key}")
        node_dims = _node_dims(pair_inputs.ndim - 1, f"_{key}")
        data[f"train_inputs_{key}"] = (
            (f"pair_{key}", *node_dims),
            pair_inputs,
            {"long_name": f"{key}: training inputs", "units": "1"},
        )
        data[f"train_u_{key}"] = ((f"pair_{key}", *pair_dims), targets,
                                  {"long_name": f"{key}: solver solution on its grid",
                                   "units": "1"})  # fmt: skip
    params = {"problem": problem, "parameters": dict(parameters), "test_grid": dict(test_grid),
              "reference": dict(reference), "n_test": n_test,
              "supervised": {k: dict(v) for k, v in supervised.items()}}  # fmt: skip
    ds = xr.Dataset(data, coords=coords, attrs={
        **provenance_attrs(title=f"test inputs and reference of {problem}", rule="nsm_data",
                           params=params, seed=seed),
        "float64": "the reference keeps float64 (the solver ladder's errors reach round-off)",
    })  # fmt: skip
    write_netcdf(ds, output)
    log.info("%s: %d test inputs, reference %s, pairs %s", problem, n_test, u.shape,
             {k: v["n_train"] for k, v in supervised.items()})  # fmt: skip


def run_train_nsm(
    *, data: str, outputs: Mapping[str, str], problem_key: str, method_key: str, seed: int,
    settings: Mapping[str, Any], resume: Sequence[str] = (), stop_step: int | None = None,
    state: str | None = None,
) -> None:  # fmt: skip
    """Train one run and write its checkpoint, history and metrics row.

    ``settings`` is :func:`pderepro.studies.neural_spectral_inputs.train_params`'s. A run
    longer than a cluster job trains in segments (:mod:`pderepro.studies.run_segments`):
    one resumes from the previous segment's state (``resume``, one path) and, but for the
    last, stops at iteration ``stop_step`` and writes only its own ``state``.
    """
    set_threads(1)
    device = select_device("auto" if settings.get("gpu") else "cpu")
    op = build_operator_problem(settings["problem"], dict(settings["parameters"]))
    ds = open_netcdf(data, required=("inputs", "u"))
    method = dict(settings["method"])
    pairs = None
    if method["kind"] == "supervised":
        pairs = (ds[f"train_inputs_{method_key}"].values, ds[f"train_u_{method_key}"].values)
    network = dict(settings["network"])
    net = build_operator_network(network, op, seed=seed)
    budget = Budget(
        iterations=settings["iterations"], learning_rate=settings["learning_rate"],
        decay_every=1, decay_factor=settings["decay_factor"], log_every=settings["log_every"],
        schedule="step",
    )  # fmt: skip
    run = train_operator(
        op, net, method=method, budget=budget, batch_size=settings["batch_size"], seed=seed,
        test_inputs=ds["inputs"].values, test_reference=ds["u"].values,
        grid_sizes=dict(settings["test_grid"]), train_data=pairs,
        time_limit_s=settings.get("time_limit_s"), device=device,
        segment=Segment(resume=resume[0] if resume else None, stop=stop_step, save=state),
    )  # fmt: skip
    if state is not None:  # a segment before the last: its state is its output
        return
    history = pd.DataFrame(run.history)
    atomic_write(outputs["history"], lambda tmp: history.to_csv(tmp, index=False))
    stopped = math.isfinite(run.projected_s)
    error = math.nan if stopped else float(run.rel_l2)
    row = {
        "problem": problem_key, "method": method_key, "seed": seed, "rel_l2": error,
        "rel_l2_pct": 100 * error, "loss": run.history[-1].get("loss", math.nan),
        "iterations": budget.iterations, "s_per_iteration": run.s_per_iteration,
        "train_s": run.train_s, "inference_s_per_instance": run.inference_s_per_instance,
        "peak_memory_mb": run.peak_memory_mb, "projected_s": run.projected_s,
        "device": describe_device(device),
    }  # fmt: skip
    metrics = pd.DataFrame([row], columns=NSM_RUN_COLUMNS)
    atomic_write(outputs["metrics"], lambda tmp: metrics.to_csv(tmp, index=False))
    save_checkpoint(
        outputs["checkpoint"],
        metadata={
            "architecture": type(net).__name__.lower(),  # fno2d, or fno3d in space-time
            "hparams": network,
            "in_channels": op.network_channels,
            "problem": settings["problem"],
            "parameters": dict(settings["parameters"]),
            "method": method,
            "seed": seed,
            "rel_l2": error,
            "iterations": budget.iterations,
            "decay_factor": settings["decay_factor"],
        },  # fmt: skip
        model=net.state_dict(),
    )
    log.info("%s / %s seed %d: error %.4g %% after %d iterations (%.2f ms per iteration, "
             "inference %.3g s per instance, peak memory %.0f MB on %s)%s", problem_key,
             method_key, seed, 100 * error, budget.iterations, 1e3 * run.s_per_iteration,
             run.inference_s_per_instance, run.peak_memory_mb, describe_device(device),
             f"; stopped: projected {run.projected_s:.0f} s over the limit" if stopped
             else "")  # fmt: skip


def solver_ladder(op, inputs: np.ndarray, u: np.ndarray, ladder: Sequence[Mapping[str, int]],
                  test_grid: Mapping[str, int]) -> list[dict[str, Any]]:  # fmt: skip
    """Our solver at each resolution of ``ladder``: its error (%) against the reference on
    the test grid and its seconds per instance (one thread)."""
    rungs = []
    for resolution in ladder:
        solved, seconds = op.solve_timed(inputs, dict(resolution), dict(test_grid))
        rungs.append({"resolution": dict(resolution), "rel_l2_pct": relative_l2_pct(solved, u),
                      "s_per_instance": seconds})  # fmt: skip
        log.info("solver at %s: %.3g %%, %.3g s per instance", dict(resolution),
                 rungs[-1]["rel_l2_pct"], seconds)  # fmt: skip
    return rungs


def run_nsm_tables(
    *, metrics: Sequence[str], data: Sequence[str], outputs: Mapping[str, str],
    problems: Mapping[str, Any], methods: Mapping[str, Any], published: Mapping[str, Any],
    captions: Mapping[str, str],
) -> None:  # fmt: skip
    """The errors and speed tables (CSV and Markdown) from every run's metrics row, each
    problem's no-learning field and our solver's ladder."""
    set_threads(1)
    runs = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    no_learning, ladders = {}, {}
    for path in data:  # data/reference/<study>/<problem>.nc
        key = Path(path).stem
        spec = problems[key]
        op = build_operator_problem(spec["problem"], dict(spec["parameters"]))
        ds = open_netcdf(path, required=("inputs", "u"))
        inputs, u = ds["inputs"].values, ds["u"].values
        label, field_ = op.no_learning(inputs, u)
        no_learning[key] = (label, relative_l2_pct(field_, u))
        ladders[key] = solver_ladder(op, inputs, u, spec["solver_ladder"], spec["test_grid"])
    errors = errors_table(runs, no_learning, problems=problems, methods=methods,
                          published=published)  # fmt: skip
    write_table(errors, outputs["errors_csv"], outputs["errors_md"], caption=captions["errors"])
    speed = speed_table(errors, ladders, problems=problems)
    write_table(speed, outputs["speed_csv"], outputs["speed_md"], caption=captions["speed"])


def run_plot_nsm(
    *, histories: Sequence[str], outputs: Mapping[str, str], title: str,
    problems: Mapping[str, str], methods: Mapping[str, str],
) -> None:  # fmt: skip
    """The error-against-time figure (:func:`pderepro.plotting.nsm.plot_error_vs_time`)."""
    plot_error_vs_time(histories, problems, methods, [outputs["png"], outputs["pdf"]], title)
