"""The scaling figure of a physics-informed study: cost and error against a problem
parameter (the dimension), one line per method and family of problems.

Three panels, log-log: seconds per Adam iteration, peak memory (what training added) and
the relative L2 error on the test points, each the mean over seeds. Runs stopped at the
preset's time limit are drawn as crosses at their measured cost and have no error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from pderepro.plotting.style import legend_outside, save_figure


def plot_scaling(metrics: Sequence[str], scaling: Mapping[str, Any], methods: Mapping[str, str],
                 paths: list[str]) -> None:  # fmt: skip
    """Write the figure to ``paths`` from every run's metrics file.

    ``scaling`` is the study's block with ``problems``: ``{problem: {"family", "value"}}``.
    """
    runs = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    problems = scaling["problems"]
    runs = runs[runs["problem"].isin(problems)].assign(
        value=lambda df: df["problem"].map(lambda p: problems[p]["value"]),
        family=lambda df: df["problem"].map(lambda p: problems[p]["family"]),
        method_label=lambda df: df["method"].map(methods),
        stopped=lambda df: np.isfinite(df["projected_s"].to_numpy(float)),
    )
    mean = runs.groupby(["family", "method_label", "value"], as_index=False).agg(
        s_per_iteration=("s_per_iteration", "mean"), peak_memory_mb=("peak_memory_mb", "mean"),
        rel_l2=("rel_l2", "mean"), stopped=("stopped", "any"),
    )  # fmt: skip
    panels = [("s_per_iteration", "seconds per Adam iteration"),
              ("peak_memory_mb", "peak memory added (MB)"),
              ("rel_l2", "relative L2 (test points)")]  # fmt: skip
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), squeeze=False)
    order = list(methods.values())
    for ax, (column, label) in zip(axes[0], panels, strict=True):
        data = mean[mean[column] > 0]
        sns.lineplot(data=data, x="value", y=column, hue="method_label", hue_order=order,
                     style="family", markers=True, ax=ax, legend=ax is axes[0, -1])  # fmt: skip
        stopped = data[data["stopped"]]
        ax.scatter(stopped["value"], stopped[column], marker="x", s=80, color="black",
                   zorder=5, label="stopped at the time limit")  # fmt: skip
        ax.set(xscale="log", yscale="log", xlabel=scaling.get("label", scaling["parameter"]),
               ylabel=label)  # fmt: skip
    x = np.array(sorted(mean["value"].unique()), dtype=float)
    if len(x) > 1:  # a linear guide through the first method's smallest cost
        first = mean.sort_values("value").iloc[0]["s_per_iteration"]
        axes[0, 0].plot(x, first * x / x[0], color="grey", linestyle=":", label="linear in d")
        axes[0, 0].legend(loc="upper left", fontsize="small")
    legend_outside(axes[0, -1])
    save_figure(fig, *paths)
