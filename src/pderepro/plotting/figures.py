"""Figures, one function each: error against resolution (Burgers, Darcy), 1-D test samples
(Burgers) and solver convergence (every solver). They read evaluated metrics and
predictions only, never models; 2-D fields are in :mod:`pderepro.plotting.fields`."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import xarray as xr

from pderepro.plotting.style import apply_theme, legend_outside, save_figure


def split_published(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows with a published value, split into verified and unverified ones.

    A table without ``published_verified`` (written before the flag existed) counts as
    verified throughout; the flag may come back from a CSV as bool, object or float.
    """
    rows = table.dropna(subset=["published"])
    if "published_verified" not in rows:
        return rows, rows.iloc[:0]
    unverified = rows["published_verified"].astype("boolean").eq(False).fillna(False)
    return rows[~unverified.to_numpy(bool)], rows[unverified.to_numpy(bool)]


def plot_error_vs_resolution(table: pd.DataFrame, *paths: str, title: str) -> None:
    """Relative L2 error against resolution: ours (seed mean with its 95% bootstrap
    interval over test samples), no-learning references grey, published dashed, with
    hollow markers on published values marked unverified.

    Parameters
    ----------
    table : pandas.DataFrame
        The resolution table (:data:`~pderepro.evaluation.tables.RESOLUTION_COLUMNS`),
        models in table order; rows with ``n_params == 0`` are references.
    """
    apply_theme()
    fig, ax = plt.subplots(figsize=(6, 4))
    labels = list(dict.fromkeys(table["model"]))
    palette = dict(zip(labels, sns.color_palette(n_colors=len(labels)), strict=True))
    for label, rows in table.groupby("model", sort=False):
        reference = bool((rows["n_params"] == 0).all())
        ax.errorbar(
            rows["resolution"],
            rows["rel_l2_mean"],
            yerr=[rows["rel_l2_mean"] - rows["ci_low"], rows["ci_high"] - rows["rel_l2_mean"]],
            marker="s" if reference else "o",
            ls=":" if reference else "-",
            color=palette[label],
            capsize=3,
            label=label if not reference or "no learning" in label else f"{label} (no learning)",
        )
    for label, rows in table.dropna(subset=["published"]).groupby("model", sort=False):
        ax.plot(
            rows["resolution"],
            rows["published"],
            ls="--",
            lw=1,
            marker="x",  # a single published resolution draws no line
            color=palette.get(label, "grey"),
            label=f"{label} (published)",
        )
    _, unverified = split_published(table)
    for label, rows in unverified.groupby("model", sort=False):
        ax.plot(
            rows["resolution"],
            rows["published"],
            "o",
            mfc="none",
            ms=7,
            color=palette.get(label, "grey"),
        )
    if len(unverified):  # one legend entry for every model's hollow markers
        ax.plot([], [], "o", mfc="none", ms=7, color="k", label="published, unverified")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="resolution s (grid points)",
        ylabel="relative L2 error (test, 95% CI)",
        title=title,
    )
    ax.set_xticks(sorted(table["resolution"].unique()))
    ax.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    legend_outside(ax)
    save_figure(fig, *paths)


def plot_samples_1d(predictions: Sequence[xr.Dataset], *paths: str, n_samples: int) -> None:
    """Test samples: input, truth and each model's prediction on one row per sample.

    Parameters
    ----------
    predictions : sequence of xarray.Dataset
        One per model, with ``u0, u, prediction (sample, x)`` and attribute ``label``.
    """
    apply_theme()
    n = min(n_samples, predictions[0].sizes["sample"])
    fig, axes = plt.subplots(n, 2, figsize=(9, 2.2 * n), squeeze=False, sharex=True)
    first = predictions[0]
    for i in range(n):
        x = first["x"].to_numpy()
        axes[i, 0].plot(x, first["u0"][i], color="k")
        axes[i, 0].set_ylabel(f"sample {int(first['sample'][i])}")
        axes[i, 1].plot(x, first["u"][i], color="k", lw=2.5, alpha=0.4, label="truth")
        for ds in predictions:
            axes[i, 1].plot(ds["x"], ds["prediction"][i], lw=1, label=ds.attrs["label"])
    axes[0, 0].set_title("input u(x, 0)")
    axes[0, 1].set_title("output u(x, 1): truth and predictions")
    legend_outside(axes[0, 1])
    for ax in axes[-1]:
        ax.set_xlabel("x")
    save_figure(fig, *paths)


def plot_convergence(table: pd.DataFrame, *paths: str) -> None:
    """Solver verification: error against grid size or time step, one panel per case.

    A dashed line of the rounded observed order (from the finest pair) is drawn where
    the case has one.
    """
    apply_theme()
    cases = list(dict.fromkeys(zip(table["solver"], table["case"], strict=True)))
    columns = min(4, len(cases))
    rows_n = -(-len(cases) // columns)
    fig, axes = plt.subplots(rows_n, columns, figsize=(4.5 * columns, 3.8 * rows_n), squeeze=False)
    for ax, (solver, case) in zip(axes.flat, cases, strict=False):
        rows = table[(table["solver"] == solver) & (table["case"] == case)]
        # a case varies either the time step or the grid; plot against what varies
        xcol = "dt" if rows["dt"].nunique() > 1 else "resolution"
        err = rows["max_abs_error"].clip(lower=1e-17)
        ax.loglog(rows[xcol], err, "o-", label=solver)
        order = rows["observed_order"].iloc[-1]
        if np.isfinite(order) and round(order) > 0:
            x = rows[xcol].to_numpy(dtype=float)
            sign = 1 if xcol == "dt" else -1  # error falls with dt, and with 1/grid points
            ref = err.iloc[-1] * (x / x[-1]) ** (sign * round(order))
            ax.loglog(x, ref, "k--", lw=1, label=f"slope {round(order)}")
        ax.set(
            xlabel="time step" if xcol == "dt" else "grid points",
            ylabel="error",
            title=case,
        )
        ax.title.set_fontsize("small")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(cases) :]:
        ax.set_visible(False)
    if np.isfinite(axes[0, 0].get_ylim()).all():
        fig.tight_layout()
    save_figure(fig, *paths)
