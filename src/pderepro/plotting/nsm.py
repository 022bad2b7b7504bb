"""Figures of a neural-spectral study.

* ``error_vs_time``: the test error (relative L2 in %, on the test grid) against training
  wall time, one panel per problem, one line per method and seed (a run stopped at the time
  limit has no line): what each loss buys per second of training.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from pderepro.plotting.style import apply_theme, legend_outside, save_figure


def _run_key(path: str) -> tuple[str, str, int]:
    """``(problem, method, seed)`` of ``results/<study>/<problem>/runs/<method>/seed<k>/...``."""
    parts = Path(path).parts
    return parts[-5], parts[-3], int(parts[-2].removeprefix("seed"))


def plot_error_vs_time(
    histories: Sequence[str], problems: Mapping[str, str], methods: Mapping[str, str],
    paths: Sequence[str], title: str = "",
) -> None:  # fmt: skip
    """Test error (%) against training wall time (s), log-log, from the runs' histories
    (columns ``wall_s`` and ``rel_l2``, a fraction)."""
    apply_theme()
    frames = []
    for path in histories:
        problem, method, seed = _run_key(path)
        history = pd.read_csv(path)
        history = history[history["rel_l2"].notna() & (history["wall_s"] > 0)]
        frames.append(history.assign(problem=problems[problem], method=methods[method],
                                     seed=seed, error_pct=100 * history["rel_l2"]))  # fmt: skip
    data = pd.concat(frames, ignore_index=True)
    fig, axes = plt.subplots(1, len(problems), figsize=(4.8 * len(problems), 3.6), squeeze=False)
    for ax, label in zip(axes[0], problems.values(), strict=True):
        sns.lineplot(data=data[data["problem"] == label], x="wall_s", y="error_pct",
                     hue="method", hue_order=list(methods.values()), units="seed",
                     estimator=None, marker="o", markersize=3, ax=ax,
                     legend=ax is axes[0, -1])  # fmt: skip
        ax.set(xscale="log", yscale="log", title=label, xlabel="training wall time (s)",
               ylabel="relative L2 on the test grid (%)")  # fmt: skip
    if title:
        fig.suptitle(title, fontsize="medium", y=1.04)
    legend_outside(axes[0, -1])
    save_figure(fig, *paths)
