"""The figure of a random-feature study: ``error_vs_features``.

Left, the relative L2 test error against the number of random features N (log-log), one
line per dimension (the geometric mean over seeds, what the slope fits; the band the
seeds' range), each dimension's fitted power law drawn over the sizes it was fitted on
(black, dashed), beside a guide line of the paper's slope. Sizes at which a seed's feature
matrix lost numerical rank are marked with crosses. Right, the error divided by
``N^slope`` (the paper's slope): flat where the error decays at the paper's rate, rising
where it decays more slowly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from pderepro.plotting.style import apply_theme, legend_outside, save_figure


def _geomean(values: pd.Series) -> float:
    return float(np.exp(np.log(values).mean()))


def _fitted_lines(ax, data: pd.DataFrame, slopes: pd.DataFrame, colours) -> None:
    """Each dimension's fitted power law over its window (through the window's centroid
    of log N and mean log error), and crosses at its rank-deficient sizes."""
    for (_, row), colour in zip(slopes.iterrows(), colours, strict=True):
        rows = data[data["dimension"] == row["label"]]
        if row["n_sizes"] >= 2:
            window = rows[rows["n_features"].between(row["n_min"], row["n_max"])]
            x, y = np.log(window["n_features"].astype(float)), np.log(window["rel_l2"])
            n = np.array([row["n_min"], row["n_max"]], dtype=float)
            ax.plot(n, np.exp(y.mean() + row["slope"] * (np.log(n) - x.mean())), ls="--",
                    lw=1.2, color="black", alpha=0.7)  # fmt: skip
        if np.isfinite(row["rank_limit"]):
            deficient = rows[rows["n_features"] >= row["rank_limit"]]
            means = deficient.groupby("n_features")["rel_l2"].apply(_geomean)
            ax.plot(means.index, means.to_numpy(), "x", ms=8, mew=1.5, color=colour)


def plot_error_vs_features(
    runs: pd.DataFrame, slopes: pd.DataFrame, *, dimensions: Mapping[str, str],
    reference: float, title: str, paths: Sequence[str],
) -> None:  # fmt: skip
    """Draw the figure from every seed's metrics rows and the slopes table.

    Parameters
    ----------
    runs : pandas.DataFrame
        Rows ``dimension, model, n_features, seed, rel_l2`` (the no-learning rows are
        left out).
    slopes : pandas.DataFrame
        The slopes table (:func:`pderepro.evaluation.rate_fits.slopes_table`, with
        ``label``), one row per dimension in ``dimensions``' order.
    dimensions : mapping
        ``{key: label}`` in legend order.
    reference : float
        The paper's slope (-1/2), drawn as a guide and used to compensate the right panel.
    title : str
        The study's title.
    paths : sequence of str
        The files to write (PNG and PDF).
    """
    apply_theme()
    data = runs[runs["model"] == "random_features"].copy()
    data["dimension"] = data["dimension"].map(dimensions)
    data["compensated"] = data["rel_l2"] / data["n_features"].astype(float) ** reference
    order = list(dimensions.values())
    colours = sns.color_palette(n_colors=len(order))
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.0))
    for ax, column, ylabel in (
        (axes[0], "rel_l2", "relative L2 error (test points)"),
        (axes[1], "compensated", f"error / N^({reference:g})"),
    ):
        sns.lineplot(data=data, x="n_features", y=column, hue="dimension", hue_order=order,
                     palette=colours, estimator=_geomean, errorbar=("pi", 100), marker="o",
                     ax=ax, legend=ax is axes[1])  # fmt: skip
        ax.set(xscale="log", yscale="log", xlabel="random features N", ylabel=ylabel)
    ordered = slopes.set_index("dimension").loc[list(dimensions)].reset_index()
    _fitted_lines(axes[0], data, ordered, colours)
    sizes = np.sort(data["n_features"].unique()).astype(float)
    start = data[data["n_features"] == sizes[0]]["rel_l2"]
    anchor = 1.3 * _geomean(start)  # above the lines at the first N
    axes[0].plot(sizes, anchor * (sizes / sizes[0]) ** reference, "k:", lw=1.5,
                 label=f"slope {reference:g} (paper)")  # fmt: skip
    axes[0].legend(fontsize="small", loc="lower left")
    axes[0].set_title("error against N (dashed: fitted; x: rank-deficient)", fontsize=10)
    axes[1].set_title(f"compensated: flat at slope {reference:g}", fontsize=10)
    legend_outside(axes[1])
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    save_figure(fig, *paths)
