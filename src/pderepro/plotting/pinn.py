"""Figures of a physics-informed study.

* ``error_vs_iteration``: relative L2 on the reference grid against iteration, one panel
  per problem, one line per method (the mean over seeds, the band their range);
* ``propagation_failure``: for one problem, the absolute residual field and the
  collocation points at a few iterations (seed 0), one row per method: a PINN stuck at a
  trivial solution shows a thin band of high residual its points never reach;
* ``predictions``: the reference and each method's prediction (seed 0), one row per problem.
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
        ax.set(yscale="log", title=label, ylabel="relative L2 (reference grid)")
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


def plot_predictions(fields: Mapping[tuple[str, str], xr.Dataset],
                     references: Mapping[str, xr.Dataset], problems: Mapping[str, str],
                     methods: Mapping[str, str], paths: list[str]) -> None:  # fmt: skip
    columns = ["reference", *methods]
    fig, axes = plt.subplots(len(problems), len(columns),
                             figsize=(2.4 * len(columns), 2.9 * len(problems)),
                             layout="constrained",
                             squeeze=False, sharey="row")  # fmt: skip
    for row, problem in enumerate(problems):
        ref = references[problem]
        limit = float(np.abs(ref["u"]).max())
        for col, key in enumerate(columns):
            ax = axes[row, col]
            u = ref["u"].values if key == "reference" else fields[problem, key]["u_pred"].values
            image = ax.pcolormesh(ref["t"], ref["x"], u.T, cmap="RdBu_r", vmin=-limit,
                                  vmax=limit, shading="auto")  # fmt: skip
            ax.set_title("reference" if key == "reference" else methods[key], fontsize=8)
            ax.set_xlabel("t")
            if col == 0:
                ax.set_ylabel(f"{problems[problem]}\nx")
        fig.colorbar(image, ax=axes[row].tolist(), shrink=0.8)
    fig.suptitle("Predictions of seed 0 against the reference")
    save_figure(fig, *paths)


def plot_pinn_figures(*, histories: Sequence[str], fields: Sequence[str],
                      references: Sequence[str], outputs: Mapping[str, str], title: str,
                      problems: Mapping[str, str], methods: Mapping[str, str],
                      failure: Mapping[str, Any]) -> None:  # fmt: skip
    """Write the three figures (PNG and PDF each) to ``outputs['<figure>_<ext>']``."""
    apply_theme()
    plot_error_vs_iteration(histories, problems, methods, _outputs(outputs, "error_vs_iteration"))
    runs = {}
    for path in fields:
        problem, method, _ = _run_key(path)
        runs[problem, method] = xr.load_dataset(path)
    refs = {Path(p).stem: xr.load_dataset(p) for p in references}
    plot_propagation_failure(runs, failure, problems, methods,
                             _outputs(outputs, "propagation_failure"))  # fmt: skip
    plot_predictions(runs, refs, problems, methods, _outputs(outputs, "predictions"))
