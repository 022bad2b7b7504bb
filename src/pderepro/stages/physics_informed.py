"""Stages of a physics-informed study: the reference solution of each problem, one
training run per (problem, method, seed), the table and the figures.

Runs are deterministic on the CPU: one thread, torch's global seed set before the
network is built, and every draw of points through the run's own generator.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import atomic_write, open_netcdf, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.pinn_tables import PINN_RUN_COLUMNS, errors_table
from pderepro.evaluation.tables import write_table
from pderepro.models.pinn_gaussian import build_coordinate_network
from pderepro.runtime import describe_device, select_device, set_threads
from pderepro.training.checkpoint import save_checkpoint
from pderepro.training.pinn.loop import Budget, LossSetup, PinnField, Segment, train_pinn
from pderepro.training.pinn.problems import build_problem
from pderepro.training.pinn.reference import Reference
from pderepro.training.pinn.samplers import build_sampler, build_weighting

log = logging.getLogger(__name__)

#: Seed offset of a run's collocation points (its network's weights take the seed itself).
SAMPLER_SEED_OFFSET = 1_000_003


def _coords(pde, axes) -> dict[str, Any]:
    return {name: (name, axis, {"long_name": "time" if name == "t" else f"coordinate {name}",
                                "units": "1"})
            for name, axis in zip(pde.domain.names, axes, strict=True)}  # fmt: skip


def run_pinn_reference(
    *, output: str, problem: str, parameters: Mapping[str, float], grid: Mapping[str, int]
) -> None:
    """Write a problem's reference solution (NetCDF, CF) and the reference value of the
    problem's trainable scalar, if it has one, as a scalar variable named after it.

    On a grid (``grid``: ``{"nx": ..}``), dimensions in the domain's coordinates reversed
    (``(t, x)``). On a ball's scattered test points (``grid``: ``{"points": n, "seed": s}``),
    dimension ``point``: the file keeps the points' seed and checksum (their coordinate
    sum), not the ``n x d`` coordinates, which :func:`read_reference` redraws and checks.
    """
    pde = build_problem(problem, dict(parameters))
    attrs: dict[str, Any] = {}
    if pde.domain.scattered:
        points = pde.domain.test_points(int(grid["points"]), int(grid["seed"]))
        u, dims, coords = pde.reference_at(points), ("point",), {}
        attrs = {"test_points_seed": int(grid["seed"]), "test_points_checksum": float(points.sum()),
                 "dimension": pde.domain.dim}  # fmt: skip
    else:
        axes = pde.domain.grid(grid)
        u, dims, coords = pde.reference(*axes), pde.domain.names[::-1], _coords(pde, axes)
    if not np.all(np.isfinite(u)):
        raise FloatingPointError(f"the reference of {problem} {dict(parameters)} is not finite")
    data = {"u": (dims, u, {"long_name": "reference solution u", "units": "1"})}
    if pde.quantity:
        attrs = {"long_name": f"reference {pde.quantity}", "units": "1"}
        data[pde.quantity] = ((), pde.reference_quantity(), attrs)
    ds = xr.Dataset(
        data,
        coords=coords,
        attrs={
            **attrs,
            **provenance_attrs(
                title=f"reference solution of {problem}",
                rule="pinn_reference",
                params={"problem": problem, "parameters": dict(parameters), "grid": dict(grid)},
            ),
            "reference_method": pde.reference_method,
        },
    )
    write_netcdf(ds, output)
    log.info("%s reference (%s): %s", problem, pde.reference_method, u.shape)


def read_reference(path: str, pde) -> Reference:
    """A reference file written by :func:`run_pinn_reference`, for ``pde``'s domain (a
    ball's test points redrawn from the file's seed and checked against its checksum)."""
    ds = open_netcdf(path, required=("u",))
    quantity = float(ds[pde.quantity].values) if pde.quantity else None
    u = ds["u"].values.astype(np.float64)
    if pde.domain.scattered:
        points = pde.domain.test_points(u.shape[0], int(ds.attrs["test_points_seed"]))
        expected = float(ds.attrs["test_points_checksum"])
        if not np.isclose(points.sum(), expected, rtol=1e-9, atol=1e-9):
            seed = ds.attrs["test_points_seed"]
            raise ValueError(f"{path}: the test points of seed {seed} do not match its checksum")
        return Reference(axes=(), u=u, quantity=quantity, coordinates=points)
    axes = tuple(ds[name].values for name in pde.domain.names)
    return Reference(axes=axes, u=u, quantity=quantity)


def run_train_pinn(
    *,
    reference: str,
    outputs: Mapping[str, str],
    problem_key: str,
    method_key: str,
    seed: int,
    settings: Mapping[str, Any],
    resume: Sequence[str] = (),
    stop_step: int | None = None,
    state: str | None = None,
) -> None:
    """Train one run and write its checkpoint, history, metrics row and fields.

    ``settings`` is :func:`pderepro.studies.physics_informed.run_settings`'s: the problem's
    spec, the method's, the snapshot fractions and the logging interval. A run longer than
    a cluster job trains in segments (:mod:`pderepro.studies.run_segments`): one resumes
    from the previous segment's state (``resume``, one path) and, but for the last, stops
    at run step ``stop_step`` (an Adam iteration, or an L-BFGS block past them) and writes
    only its own ``state``.
    """
    set_threads(1)
    torch.manual_seed(seed)
    spec, method = settings["problem"], settings["method"]
    device = select_device("auto" if settings.get("gpu") else "cpu")
    problem = build_problem(spec["problem"], dict(spec["parameters"]))
    ref = read_reference(reference, problem)
    # the points' own stream: torch's global stream (the weights) seeded alike would make
    # the first points affine copies of the first layer's initial weights
    generator = torch.Generator().manual_seed(seed + SAMPLER_SEED_OFFSET)
    network = dict(spec["network"])
    network = build_coordinate_network(network.pop("architecture", "mlp"), problem.domain.bounds,
                                       seed=seed, **network)  # fmt: skip
    model = PinnField(problem, network)
    losses = dict(spec["losses"])
    sampler = build_sampler(
        method["sampler"], problem.domain, losses.pop("n_collocation"), generator,
        seed=seed, options=method["sampler_options"],
    )  # fmt: skip
    training = spec["training"]
    weighting = build_weighting(method["weighting"], problem.domain, method["weighting_options"])
    budget = Budget(
        iterations=training["iterations"], learning_rate=training["learning_rate"],
        decay_every=training["decay_every"], decay_factor=training["decay_factor"],
        lbfgs_iterations=training["lbfgs_iterations"], log_every=settings["log_every"],
        schedule=training.get("schedule", "step"),
    )  # fmt: skip
    # residual snapshots of (x, t) domains (the propagation-failure figure), Adam phase
    snapshots = sorted({round(f * budget.iterations) for f in settings["snapshots"]})
    if problem.domain.names != ("x", "t") or seed != 0:
        snapshots = []
    segment = Segment(resume=resume[0] if resume else None, stop=stop_step, save=state)
    run = train_pinn(
        problem, model, sampler, weighting, budget=budget, setup=LossSetup(**losses),
        seed=seed, reference=ref, snapshot_iterations=snapshots,
        time_limit_s=settings.get("time_limit_s"), device=device, segment=segment,
    )  # fmt: skip
    if state is not None:  # a segment before the last: its state is its output
        return
    history = pd.DataFrame(run.history)
    atomic_write(outputs["history"], lambda tmp: history.to_csv(tmp, index=False))
    final = run.history[-1]
    error = run.rel_l2
    row = {
        "problem": problem_key, "method": method_key, "seed": seed, "rel_l2": error,
        "validation_residual": final["validation_residual"], "loss": final["loss"],
        "residual_loss": final["residual_loss"],
        "adam_iterations": budget.iterations, "lbfgs_iterations": run.lbfgs_iterations_taken,
        "s_per_iteration": run.adam_s_per_iteration,
        "lbfgs_s_per_iteration": run.lbfgs_s_per_iteration, "train_s": run.train_s,
        "n_points": final.get("n_points", math.nan),
        "quantity": run.quantity, "peak_memory_mb": run.peak_memory_mb,
        "projected_s": run.projected_s, "device": describe_device(device),
    }  # fmt: skip
    metrics = pd.DataFrame([row], columns=PINN_RUN_COLUMNS)
    atomic_write(outputs["metrics"], lambda tmp: metrics.to_csv(tmp, index=False))
    _write_fields(outputs["fields"], run, ref, problem, problem_key, method_key, seed)
    save_checkpoint(
        outputs["checkpoint"],
        metadata={
            "architecture": spec["network"].get("architecture", "mlp"),
            "hparams": network.hparams(),
            "problem": spec["problem"],
            "parameters": dict(spec["parameters"]),
            "method": dict(method),
            "seed": seed,
            "rel_l2": error,
        },  # fmt: skip
        model=model.state_dict(),
    )
    log.info("%s / %s seed %d: error %.4g after %d Adam + %d L-BFGS iterations "
             "(%.2f ms per Adam iteration, peak memory %.0f MB on %s)%s%s", problem_key,
             method_key, seed, error, budget.iterations, run.lbfgs_iterations_taken,
             1e3 * run.adam_s_per_iteration, run.peak_memory_mb, describe_device(device),
             f"; {problem.quantity} {run.quantity:.6g}" if problem.quantity else "",
             f"; stopped: projected {run.projected_s:.0f} s over the limit"
             if math.isfinite(run.projected_s) else "")  # fmt: skip


def _write_fields(
    path: str, run, ref: Reference, pde, problem: str, method: str, seed: int
) -> None:
    """The prediction on the reference grid and the snapshots (residual fields and
    collocation points, NaN-padded to the largest set)."""
    dims = ("point",) if pde.domain.scattered else pde.domain.names[::-1]
    data: dict[str, Any] = {
        "u_pred": (dims, run.prediction, {"long_name": "predicted u", "units": "1"}),
    }  # fmt: skip
    coords: dict[str, Any] = {} if pde.domain.scattered else _coords(pde, ref.axes)
    if run.snapshots:
        n_max = max(s.points.shape[0] for s in run.snapshots)
        points = np.full((len(run.snapshots), n_max, 2), np.nan)
        for i, snap in enumerate(run.snapshots):
            points[i, : snap.points.shape[0]] = snap.points
        nt, nx = run.snapshots[0].residual.shape
        data["residual"] = (
            ("iteration", "t_grid", "x_grid"), np.stack([s.residual for s in run.snapshots]),
            {"long_name": "absolute PDE residual on the snapshot grid", "units": "1"},
        )  # fmt: skip
        data["points_x"] = (("iteration", "point"), points[..., 0], {"units": "1"})
        data["points_t"] = (("iteration", "point"), points[..., 1], {"units": "1"})
        coords["iteration"] = ("iteration", [s.iteration for s in run.snapshots])
        # the grid _snapshot evaluated on: the domain's ends, both included
        first, second = pde.domain.bounds
        coords["x_grid"] = ("x_grid", np.linspace(*first, nx), {"units": "1"})
        coords["t_grid"] = ("t_grid", np.linspace(*second, nt), {"units": "1"})
    ds = xr.Dataset(data, coords=coords, attrs=provenance_attrs(
        title=f"physics-informed run {problem} / {method}", rule="train_pinn",
        params={"problem": problem, "method": method}, seed=seed,
    ))  # fmt: skip
    write_netcdf(ds, path)


def run_pinn_tables(
    *, metrics: Sequence[str], references: Sequence[str], outputs: Mapping[str, str],
    problems: Mapping[str, Any], methods: Mapping[str, str], published: Mapping[str, Any],
    preset: str,
) -> None:  # fmt: skip
    """The errors table (CSV and Markdown) from every run's metrics row."""
    runs = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    no_learning = {}
    for path in references:  # data/reference/<study>/<problem>.nc
        key = Path(path).stem
        pde = build_problem(problems[key]["problem"], dict(problems[key]["parameters"]))
        ref = read_reference(path, pde)
        label, field_ = pde.no_learning(ref.axes, ref.u, points=ref.coordinates)
        no_learning[key] = (label, pde.error(field_, ref.u), ref.quantity)
    table, caption = errors_table(runs, no_learning, problems=problems, methods=methods,
                                  published=published, preset=preset)  # fmt: skip
    write_table(table, outputs["errors_csv"], outputs["errors_md"], caption=caption)
