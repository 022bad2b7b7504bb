"""Figures of a physics-informed study.

* ``error_vs_iteration``: relative L2 on the reference grid against iteration, one panel
  per problem, one line per method (the mean over seeds, the band their range);
* ``propagation_failure``: for one problem, the absolute residual field and the
  collocation points at a few iterations (seed 0), one row per method: a PINN stuck at a
  trivial solution shows a thin band of high residual its points never reach;
* ``predictions``: the reference and each method's prediction (seed 0), one row per
  problem: fields over the plane of a two-coordinate domain (a three-coordinate one's at
  its last time), curves on a one-coordinate one;
* ``<quantity>_vs_iteration``: a trained scalar (an eigenvalue) against iteration, beside
  its reference, one panel per problem that trains one;
* ``scaling``: cost and error against a problem parameter (:mod:`.pinn_scaling`).

Rule plot_pinn makes one figure per job (:func:`plot_pinn_figure`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import xarray as xr
from matplotlib.colors import LogNorm

from pderepro.plotting.pinn_scaling import plot_scaling
from pderepro.plotting.style import apply_theme, legend_outside, save_figure


def _run_key(path: str) -> tuple[str, str, int]:
    """``(problem, method, seed)`` of ``results/<study>/<problem>/runs/<method>/seed<k>/...``."""
    parts = Path(path).parts
    return parts[-5], parts[-3], int(parts[-2].removeprefix("seed"))


def _outputs(outputs: Mapping[str, str], name: str) -> list[str]:
    return [outputs[f"{name}_{ext}"] for ext in ("png", "pdf")]


def plot_error_vs_iteration(histories: Sequence[str], problems: Mapping[str, str],
                            methods: Mapping[str, str], paths: list[str]) -> None:  # fmt: skip
    frames = []
    for path in histories:
        problem, method, seed = _run_key(path)
        history = pd.read_csv(path)
        frames.append(history.assign(problem=problems[problem], method=methods[method], seed=seed))
    data = pd.concat(frames, ignore_index=True)
    fig, axes = plt.subplots(1, len(problems), figsize=(5 * len(problems), 3.6), squeeze=False)
    for ax, label in zip(axes[0], problems.values(), strict=True):
        sns.lineplot(data=data[data["problem"] == label], x="iteration", y="rel_l2",
                     hue="method", hue_order=list(methods.values()), errorbar=("pi", 100),
                     ax=ax, legend=ax is axes[0, -1])  # fmt: skip
        ax.set(yscale="log", title=label, ylabel="error (reference grid)")
    legend_outside(axes[0, -1])
    save_figure(fig, *paths)


def plot_propagation_failure(fields: Mapping[tuple[str, str], xr.Dataset],
                             failure: Mapping[str, Any], problems: Mapping[str, str],
                             methods: Mapping[str, str], paths: list[str]) -> None:  # fmt: skip
    problem, chosen = failure["failure_problem"], failure["failure_methods"]
    shown = [fields[problem, m] for m in chosen]
    iterations = shown[0]["iteration"].values
    residuals = np.concatenate([ds["residual"].values.ravel() for ds in shown])
    positive = residuals[residuals > 0]
    norm = LogNorm(vmin=max(np.percentile(positive, 1), 1e-6), vmax=positive.max())
    fig, axes = plt.subplots(len(chosen), len(iterations),
                             figsize=(3.2 * len(iterations), 2.6 * len(chosen)),
                             squeeze=False, sharex=True, sharey=True)  # fmt: skip
    for row, (method, ds) in enumerate(zip(chosen, shown, strict=True)):
        for col, iteration in enumerate(iterations):
            ax = axes[row, col]
            snap = ds.sel(iteration=iteration)
            image = ax.pcolormesh(ds["t_grid"], ds["x_grid"], snap["residual"].values.T,
                                  norm=norm, cmap="magma", shading="auto")  # fmt: skip
            ax.scatter(snap["points_t"], snap["points_x"], s=0.3, c="cyan", alpha=0.5)
            ax.set_title(f"{methods[method]}, iteration {int(iteration)}", fontsize=9)
            if col == 0:
                ax.set_ylabel("x")
            if row == len(chosen) - 1:
                ax.set_xlabel("t")
    fig.colorbar(image, ax=axes, label="|PDE residual|", shrink=0.8)
    fig.suptitle(f"{problems[problem]}: residual field and collocation points (seed 0)")
    save_figure(fig, *paths)


def _field_row(axes, ref: xr.Dataset, fields, problem: str, columns: list[str],
               methods: Mapping[str, str], label: str):  # fmt: skip
    """Row of fields ``u`` over the plane: the reference, then each method."""
    second, first = ref["u"].dims  # (t, x) or (y, x)
    limit = float(np.abs(ref["u"]).max())
    for col, key in enumerate(columns):
        ax = axes[col]
        u = ref["u"].values if key == "reference" else fields[problem, key]["u_pred"].values
        image = ax.pcolormesh(ref[second], ref[first], u.T, cmap="RdBu_r", vmin=-limit,
                              vmax=limit, shading="auto")  # fmt: skip
        ax.set_title("reference" if key == "reference" else methods[key], fontsize=8)
        ax.set_xlabel(second)
        if col == 0:
            ax.set_ylabel(f"{label}\n{first}")
    return image


def _curve_row(axes, ref: xr.Dataset, fields, problem: str, methods: Mapping[str, str],
               label: str) -> None:  # fmt: skip
    """One panel of curves ``u(x)``: the reference and each method (seed 0)."""
    (name,) = ref["u"].dims
    ax = axes[0]
    ax.plot(ref[name], ref["u"], color="black", lw=2.5, alpha=0.4, label="reference")
    for key, method_label in methods.items():
        ax.plot(ref[name], fields[problem, key]["u_pred"], lw=1, label=method_label)
    ax.set(title=label, xlabel=name, ylabel="u")
    ax.legend(fontsize=7)
    for ax in axes[1:]:
        ax.set_visible(False)


def plot_predictions(fields: Mapping[tuple[str, str], xr.Dataset],
                     references: Mapping[str, xr.Dataset], problems: Mapping[str, str],
                     methods: Mapping[str, str], paths: list[str]) -> None:  # fmt: skip
    columns = ["reference", *methods]
    references, fields, problems = dict(references), dict(fields), dict(problems)
    for problem in problems:  # a (t, y, x) field is shown at its last time
        if references[problem]["u"].ndim == 3:
            references[problem] = references[problem].isel(t=-1)
            for method in methods:
                fields[problem, method] = fields[problem, method].isel(t=-1)
            time = float(references[problem]["t"])
            problems[problem] = f"{problems[problem]}, t = {time:g}"
    planes = [p for p in problems if references[p]["u"].ndim == 2]
    n_cols = len(columns) if planes else 1
    curves = len(problems) - len(planes)
    fig, axes = plt.subplots(len(problems) if planes else 1, n_cols if planes else curves,
                             figsize=(2.4 * len(columns), 2.9 * len(problems)) if planes
                             else (4.2 * curves, 3.4),
                             layout="constrained", squeeze=False)  # fmt: skip
    for row, (problem, label) in enumerate(problems.items()):
        ref = references[problem]
        if ref["u"].ndim == 2:
            image = _field_row(axes[row], ref, fields, problem, columns, methods, label)
            fig.colorbar(image, ax=axes[row].tolist(), shrink=0.8)
        elif planes:
            _curve_row(axes[row], ref, fields, problem, methods, label)
        else:  # every problem in one dimension: one panel each, side by side
            _curve_row(axes[:, row], ref, fields, problem, methods, label)
    fig.suptitle("Predictions of seed 0 against the reference (an eigenfunction's sign "
                 "aligned with the reference's)" if not planes else
                 "Predictions of seed 0 against the reference")  # fmt: skip
    save_figure(fig, *paths)


def plot_quantity_vs_iteration(histories: Sequence[str], references: Mapping[str, xr.Dataset],
                               quantity: str, problems: Mapping[str, str],
                               methods: Mapping[str, str], paths: list[str]) -> None:  # fmt: skip
    """The trained scalar ``quantity`` against iteration (mean over seeds, band: their
    range), its reference dashed, one panel per problem whose reference holds it."""
    frames = []
    for path in histories:
        problem, method, seed = _run_key(path)
        history = pd.read_csv(path)
        if quantity in history:
            frames.append(history.assign(problem=problem, method=methods[method], seed=seed))
    data = pd.concat(frames, ignore_index=True)
    shown = [p for p in problems if p in set(data["problem"])]
    fig, axes = plt.subplots(1, len(shown), figsize=(4.6 * len(shown), 3.6), squeeze=False)
    for ax, problem in zip(axes[0], shown, strict=True):
        sns.lineplot(data=data[data["problem"] == problem], x="iteration", y=quantity,
                     hue="method", hue_order=list(methods.values()), errorbar=("pi", 100),
                     ax=ax, legend=ax is axes[0, -1])  # fmt: skip
        title = problems[problem]
        if quantity in references[problem]:
            value = float(references[problem][quantity])
            ax.axhline(value, color="black", ls="--", lw=1)
            title = f"{title}\nreference (dashed) {value:.6g}"
        ax.set(title=title, ylabel=quantity)
    legend_outside(axes[0, -1])
    save_figure(fig, *paths)


def plot_pinn_figure(*, name: str, histories: Sequence[str], fields: Sequence[str],
                     references: Sequence[str], outputs: Mapping[str, str], title: str,
                     problems: Mapping[str, str], methods: Mapping[str, str],
                     figures: Mapping[str, Any], metrics: Sequence[str] = (),
                     scaling: Mapping[str, Any] | None = None) -> None:  # fmt: skip
    """Write the figure ``name`` (PNG and PDF) to ``outputs['png']``, ``outputs['pdf']``."""
    apply_theme()
    paths = [outputs["png"], outputs["pdf"]]
    if name == "scaling":
        plot_scaling(metrics, scaling, methods, paths)
        return
    if name == "error_vs_iteration":
        plot_error_vs_iteration(histories, problems, methods, paths)
        return
    refs = {Path(p).stem: xr.load_dataset(p) for p in references}
    if name == f"{figures.get('quantity')}_vs_iteration":
        plot_quantity_vs_iteration(histories, refs, figures["quantity"], problems, methods, paths)
        return
    runs = {}
    for path in fields:
        problem, method, _ = _run_key(path)
        runs[problem, method] = xr.load_dataset(path)
    if name == "propagation_failure":
        plot_propagation_failure(runs, figures, problems, methods, paths)
    elif name == "predictions":
        plot_predictions(runs, refs, problems, methods, paths)
    else:
        raise ValueError(f"no figure {name!r} in this study")
