"""Figures of a parametric study: nRMSE against the parameter (seen and unseen values
marked), against the rollout step, space-time rollouts with their errors, and the
basic-forms experiment's nRMSE against the target-data fraction. They read tables,
per-step errors and kept rollouts only, never models."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import xarray as xr
from matplotlib.ticker import NullLocator

from pderepro.plotting.style import apply_theme, legend_outside, save_figure


def plot_error_vs_parameter(table: pd.DataFrame, *paths: str, title: str) -> None:
    """nRMSE (seed mean, 95% interval) against the parameter on a log axis, one panel per
    PDE and one line per model; seen values filled markers, unseen hollow.

    Parameters
    ----------
    table : pandas.DataFrame
        The parameters table (:data:`~pderepro.evaluation.parametric_tables.
        PARAMETERS_COLUMNS`).
    """
    apply_theme()
    pdes = list(dict.fromkeys(table["pde"]))
    fig, axes = plt.subplots(1, len(pdes), figsize=(5 * len(pdes), 3.8), squeeze=False)
    models = list(dict.fromkeys(table["model"]))
    palette = dict(zip(models, sns.color_palette(n_colors=len(models)), strict=True))
    for ax, pde in zip(axes[0], pdes, strict=True):
        rows = table[table["pde"] == pde]
        for model, group in rows.groupby("model", sort=False):
            group = group.sort_values("parameter")
            color = palette[model]
            mean = group["nrmse_mean"]
            ax.errorbar(
                group["parameter"], mean, yerr=[mean - group["ci_low"], group["ci_high"] - mean],
                color=color, lw=1, capsize=2, label=model,
            )  # fmt: skip
            for split, face in (("seen", color), ("unseen", "white")):
                part = group[group["split"] == split]
                ax.plot(part["parameter"], part["nrmse_mean"], "o", mfc=face, mec=color, ms=6)
        ax.set(xscale="log", yscale="log", xlabel=f"parameter ({pde})", title=pde)
        ax.set_ylabel("nRMSE, predicted frames (95% CI)")
    axes[0][-1].plot([], [], "o", color="grey", label="seen (trained on)")
    axes[0][-1].plot([], [], "o", mfc="white", mec="grey", label="unseen")
    legend_outside(axes[0][-1])
    fig.suptitle(title, fontsize=10)
    save_figure(fig, *paths)


def plot_error_vs_step(steps: pd.DataFrame, *paths: str, title: str) -> None:
    """Mean nRMSE of each predicted frame against the rollout step, per model, over the
    seen and over the unseen values (one panel each).

    Parameters
    ----------
    steps : pandas.DataFrame
        ``model, value, split, step, nrmse`` rows of every run's per-step file.
    """
    apply_theme()
    splits = [s for s in ("seen", "unseen") if s in set(steps["split"])]
    fig, axes = plt.subplots(1, len(splits), figsize=(5 * len(splits), 3.6), squeeze=False)
    for ax, split in zip(axes[0], splits, strict=True):
        sns.lineplot(
            data=steps[steps["split"] == split], x="step", y="nrmse", hue="model",
            errorbar=None, ax=ax,
        )  # fmt: skip
        ax.set(yscale="log", title=f"{split} values", xlabel="rollout step", ylabel="nRMSE")
        ax.get_legend().remove()
    handles, labels = axes[0][0].get_legend_handles_labels()
    axes[0][-1].legend(
        handles, labels, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1)
    )
    fig.suptitle(title, fontsize=10)
    save_figure(fig, *paths)


def plot_rollouts(rollouts: Sequence[xr.Dataset], *paths: str) -> None:
    """Space-time plots of the first kept trajectory at the smallest and largest value of
    each rollout file: truth, prediction and error (time upwards, context included)."""
    apply_theme()
    rows = [
        (ds, v) for ds in rollouts for v in sorted({float(ds["value"][0]), float(ds["value"][-1])})
    ]
    fig, axes = plt.subplots(len(rows), 3, figsize=(10, 2.4 * len(rows)), squeeze=False)
    for (ds, value), ax_row in zip(rows, axes, strict=True):
        truth = ds["u"].sel(value=value).isel(sample=0).to_numpy()  # (time, x)
        pred = ds["prediction"].sel(value=value).isel(sample=0).to_numpy()
        limit = float(np.nanmax(np.abs(truth)))
        seen = f"{value:g}" in ds.attrs["seen_values"].split(",")
        which = "seen" if seen else "unseen"
        name = f"{ds.attrs['label']}, {ds.attrs['parameter']} = {value:g} ({which})"
        for ax, field, what, cmap in (
            (ax_row[0], truth, "truth", "RdBu_r"),
            (ax_row[1], pred, "rollout", "RdBu_r"),
            (ax_row[2], pred - truth, "error", "PuOr_r"),
        ):
            scale = limit if what != "error" else float(np.nanmax(np.abs(pred - truth)) or 1.0)
            image = ax.imshow(
                field, origin="lower", aspect="auto", cmap=cmap, vmin=-scale, vmax=scale
            )
            ax.set_title(f"{what}: {name}" if what == "truth" else what, fontsize=8)
            ax.set(xlabel="cell", ylabel="frame")
            plt.colorbar(image, ax=ax, fraction=0.046, pad=0.02)
    save_figure(fig, *paths)


def plot_basic_forms(table: pd.DataFrame, *paths: str, title: str) -> None:
    """nRMSE (seed mean, 95% interval) against the fraction of target data on log axes,
    one line per training, in-distribution and out-of-distribution panels; persistence
    (no learning) as a dashed horizontal line.

    Parameters
    ----------
    table : pandas.DataFrame
        The basic-forms table (:data:`~pderepro.evaluation.parametric_tables.
        BASIC_FORMS_COLUMNS`).
    """
    apply_theme()
    splits = [s for s in ("id", "ood") if s in set(table["split"])]
    fig, axes = plt.subplots(
        1, len(splits), figsize=(4.5 * len(splits), 3.6), squeeze=False, sharey=True
    )
    trainings = [t for t in dict.fromkeys(table["training"]) if t != "persistence"]
    fractions = sorted(table["target_fraction"].dropna().unique())
    palette = dict(zip(trainings, sns.color_palette(n_colors=len(trainings)), strict=True))
    for ax, split in zip(axes[0], splits, strict=True):
        rows = table[table["split"] == split]
        for training in trainings:
            group = rows[rows["training"] == training].sort_values("target_fraction")
            mean = group["nrmse_mean"]
            ax.errorbar(
                group["target_fraction"], mean,
                yerr=[mean - group["ci_low"], group["ci_high"] - mean],
                color=palette[training], marker="o", lw=1, capsize=2, label=training,
            )  # fmt: skip
        reference = rows[rows["training"] == "persistence"]["nrmse_mean"]
        if len(reference):
            ax.axhline(reference.iloc[0], color="grey", ls="--", lw=1, label="persistence")
        name = "in distribution" if split == "id" else "out of distribution"
        ax.set(xscale="log", yscale="log", title=name, xlabel="share of the target data")
        ax.set_xticks(fractions, [f"{100 * f:g}%" for f in fractions])
        ax.xaxis.set_minor_locator(NullLocator())
    axes[0][0].set_ylabel("nRMSE, predicted frames (95% CI)")
    legend_outside(axes[0][-1])
    fig.suptitle(title, fontsize=10)
    save_figure(fig, *paths)
