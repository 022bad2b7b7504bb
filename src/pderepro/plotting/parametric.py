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
    seen and over the unseen values (columns) of each PDE (rows). Each frame is normalised
    by its own truth, so a truth that decays (Burgers at large nu) drives the late steps
    of every model up, whatever it predicts.

    Parameters
    ----------
    steps : pandas.DataFrame
        ``pde, model, value, split, step, nrmse`` rows of every run's per-step file.
    """
    apply_theme()
    pdes = list(dict.fromkeys(steps["pde"]))
    splits = [s for s in ("seen", "unseen") if s in set(steps["split"])]
    fig, axes = plt.subplots(
        len(pdes), len(splits), figsize=(5 * len(splits), 3.2 * len(pdes)), squeeze=False
    )
    for row, pde in zip(axes, pdes, strict=True):
        for ax, split in zip(row, splits, strict=True):
            here = steps[(steps["pde"] == pde) & (steps["split"] == split)]
            if here.empty:
                ax.set_axis_off()
                continue
            sns.lineplot(data=here, x="step", y="nrmse", hue="model", errorbar=None, ax=ax)
            ax.set(yscale="log", title=f"{pde}, {split} values", xlabel="rollout step",
                   ylabel="nRMSE of the frame")  # fmt: skip
            ax.get_legend().remove()
    handles: dict = {}
    for ax in axes.flat:  # every model once, whichever panels it appears in
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    axes[0][-1].legend(
        list(handles.values()), list(handles), fontsize="small", loc="upper left",
        bbox_to_anchor=(1.02, 1),
    )  # fmt: skip
    fig.subplots_adjust(hspace=0.5)
    fig.suptitle(title, fontsize=10)
    save_figure(fig, *paths)


def plot_rollouts(rollouts: Sequence[xr.Dataset], *paths: str) -> None:
    """Space-time plots (time upwards, context included) of the first kept trajectory at
    the smallest and largest value of each PDE: the truth, then each model's rollout error
    on one colour scale per row, so that the models compare at a glance."""
    apply_theme()
    by_pde: dict[str, list[xr.Dataset]] = {}
    for ds in rollouts:
        by_pde.setdefault(ds.attrs["pde"], []).append(ds)
    rows = [
        (pde, group, value)
        for pde, group in by_pde.items()
        for value in sorted({float(group[0]["value"][0]), float(group[0]["value"][-1])})
    ]
    n_cols = 1 + max(len(group) for group in by_pde.values())
    fig, axes = plt.subplots(
        len(rows), n_cols, figsize=(2.8 * n_cols, 2.3 * len(rows)), squeeze=False,
        layout="constrained",
    )  # fmt: skip
    for (pde, group, value), ax_row in zip(rows, axes, strict=True):
        truth = group[0]["u"].sel(value=value).isel(sample=0).to_numpy()  # (time, x)
        errors = [
            ds["prediction"].sel(value=value).isel(sample=0).to_numpy() - truth for ds in group
        ]
        limit = float(np.nanmax(np.abs(truth)))
        scale = max(float(np.nanmax(np.abs(e))) for e in errors) or 1.0
        seen = f"{value:g}" in group[0].attrs["seen_values"].split(",")
        name = f"{pde}, {group[0].attrs['parameter']} = {value:g} ({'seen' if seen else 'unseen'})"
        panels = [(truth, f"truth: {name}", "RdBu_r", limit)] + [
            (err, f"error: {ds.attrs['label']}", "PuOr_r", scale)
            for ds, err in zip(group, errors, strict=True)
        ]
        for ax in ax_row[len(panels) :]:
            ax.axis("off")
        for k, (ax, (field, title, cmap, bound)) in enumerate(zip(ax_row, panels, strict=False)):
            image = ax.imshow(
                field, origin="lower", aspect="auto", cmap=cmap, vmin=-bound, vmax=bound
            )
            ax.set_title(title, fontsize=7)
            ax.set(xlabel="cell", ylabel="frame" if k == 0 else None)
            ax.grid(False)
            if k in (0, len(panels) - 1):  # the truth's scale, and the errors' shared one
                fig.colorbar(image, ax=ax, fraction=0.08, pad=0.03)
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
