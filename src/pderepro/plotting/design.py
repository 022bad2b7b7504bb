"""The figures of a design study: ``designs``, the final density of every task (rows) and
method (columns, the first seed of a seeded one), black solid and white void, titled with
the compliance and its percent worse than the task's best design; and
``compliance_vs_evaluation``, each method's compliance against its objective evaluations
on a few tasks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from pderepro.plotting.style import apply_theme, save_figure


def plot_designs(
    fields: Mapping[str, Mapping[str, np.ndarray]],
    tasks: pd.DataFrame,
    *,
    labels: Mapping[str, str],
    title: str,
    paths: Sequence[str],
) -> None:
    """``fields[task]["<method>/seed0"]``: ``(nely, nelx)`` densities in [0, 1];
    ``tasks``: the tasks table (compliance and percent worse per task and method)."""
    apply_theme()
    order = [t for t in tasks["task"].drop_duplicates() if t in fields]
    methods = list(labels)
    fig, axes = plt.subplots(len(order), len(methods), squeeze=False,
                             figsize=(2.2 * len(methods), 1.0 * len(order) + 0.8))  # fmt: skip
    for i, task in enumerate(order):
        for j, method in enumerate(methods):
            ax = axes[i, j]
            ax.set_xticks([])
            ax.set_yticks([])
            density = fields[task].get(f"{method}/seed0")
            if density is None:
                ax.set_axis_off()
                continue
            ax.imshow(density, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
            row = tasks[(tasks["task"] == task) & (tasks["method"] == method)].iloc[0]
            ax.set_title(f"{row['compliance_mean']:.4g} (+{row['pct_worse_mean']:.1f}%)",
                         fontsize=7)  # fmt: skip
            if i == 0:
                ax.text(0.5, 1.45, labels[method], transform=ax.transAxes, ha="center",
                        fontsize=8, weight="bold")  # fmt: skip
            if j == 0:
                ax.set_ylabel(task, fontsize=6, rotation=0, ha="right", va="center")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, *paths)


def plot_compliance_curves(
    curves: pd.DataFrame, *, labels: Mapping[str, str], title: str, paths: Sequence[str]
) -> None:
    """One panel per task of ``curves`` (the histories' columns: ``task, method, seed,
    evaluation, compliance``): each method's first seed against its evaluations, log
    compliance (dimensionless); a one-evaluation method (the uniform design, the
    no-optimisation reference) as a dashed horizontal line."""
    apply_theme()
    order = list(curves["task"].drop_duplicates())
    fig, axes = plt.subplots(1, len(order), squeeze=False, figsize=(3.6 * len(order), 3.2))
    for ax, task in zip(axes[0], order, strict=True):
        of_task = curves[(curves["task"] == task) & (curves["seed"] == 0)]
        for method, label in labels.items():
            run = of_task[of_task["method"] == method]
            if run.empty:
                continue
            if len(run) == 1:
                ax.axhline(run["compliance"].iloc[0], color="0.5", ls="--", lw=1, label=label)
            else:
                ax.plot(run["evaluation"], run["compliance"], lw=1.2, label=label)
        ax.set_yscale("log")
        ax.set_xlabel("objective evaluation")
        ax.set_title(task, fontsize=8)
    axes[0, 0].set_ylabel("compliance")
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=7, frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))  # room for the legend below the panels
    save_figure(fig, *paths)
