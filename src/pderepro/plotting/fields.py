"""Figures of two-dimensional fields (Darcy, Navier-Stokes); they read predictions and
metrics only, never models."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import xarray as xr

from pderepro.data.layouts import layout_of
from pderepro.plotting.style import apply_theme, save_figure


def _show(ax: plt.Axes, field: np.ndarray, title: str, cmap: str, **limits: float) -> None:
    image = ax.imshow(field, origin="lower", extent=(0, 1, 0, 1), cmap=cmap, **limits)
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    plt.colorbar(image, ax=ax, fraction=0.046, pad=0.02)


def plot_samples_2d(predictions: Sequence[xr.Dataset], *paths: str, n_samples: int) -> None:
    """Test samples as fields: input, truth, then each model's prediction error.

    Parameters
    ----------
    predictions : sequence of xarray.Dataset
        One per model, with the layout's (first) input and target, ``prediction (sample, y, x)``
        and attribute ``label``; the first gives input and truth.
    """
    apply_theme()
    first = predictions[0]
    layout = layout_of(first.attrs)
    n = min(n_samples, first.sizes["sample"])
    cols = 2 + len(predictions)
    fig, axes = plt.subplots(n, cols, figsize=(2.6 * cols, 2.4 * n), squeeze=False)
    for i in range(n):
        truth = first[layout.target][i].to_numpy()
        shown = layout.inputs[0]  # the first input field, when there are several
        _show(axes[i, 0], first[shown][i].to_numpy(), f"input {shown}", "viridis")
        _show(axes[i, 1], truth, f"truth {layout.target}", "magma")
        scale = float(np.abs(truth).max()) or 1.0
        for j, ds in enumerate(predictions):
            error = ds["prediction"][i].to_numpy() - truth
            rel = np.linalg.norm(error) / (np.linalg.norm(truth) or 1.0)
            _show(
                axes[i, 2 + j],
                error,
                f"{ds.attrs['label']} error ({rel:.3f})",
                "RdBu_r",
                vmin=-0.1 * scale,
                vmax=0.1 * scale,
            )
    fig.suptitle("test samples; errors are prediction - truth (relative L2 in brackets)")
    fig.tight_layout()
    save_figure(fig, *paths)


def plot_error_vs_time(errors: pd.DataFrame, *paths: str, title: str) -> None:
    """Mean relative L2 error of each predicted frame against time, per model and regime.

    Parameters
    ----------
    errors : pandas.DataFrame
        Columns ``model`` (label), ``regime``, ``time``, ``rel_l2``.
    """
    apply_theme()
    regimes = list(dict.fromkeys(errors["regime"]))
    fig, axes = plt.subplots(
        1, len(regimes), figsize=(5 * len(regimes), 3.8), squeeze=False, sharey=True
    )
    for ax, regime in zip(axes[0], regimes, strict=True):
        sns.lineplot(
            data=errors[errors["regime"] == regime], x="time", y="rel_l2", hue="model",
            marker="o", ax=ax,
        )  # fmt: skip
        ax.set(
            yscale="log",
            xlabel="time t of the predicted frame",
            ylabel="relative L2 error (test mean)",
            title=f"{title}\n{regime}" if len(regimes) == 1 else regime,
        )
    fig.tight_layout()
    save_figure(fig, *paths)


def plot_superresolution(ds: xr.Dataset, *paths: str, n_times: int = 4) -> None:
    """Zero-shot super-resolution: truth, prediction and error of one test sample at a few
    times, with the test error (fine grid, and the same predictions on the training grid).

    Parameters
    ----------
    ds : xarray.Dataset
        ``w, prediction (sample, time, y, x)`` on the fine grid, with the metrics as
        attributes (``label, rel_l2, rel_l2_as_trained, train_resolution, ...``).
    """
    apply_theme()
    times = np.linspace(0, ds.sizes["time"] - 1, n_times).round().astype(int)
    fig, axes = plt.subplots(3, n_times, figsize=(2.7 * n_times, 7.5), squeeze=False)
    truth_all = ds["w"][0].to_numpy()
    limit = float(np.abs(truth_all).max())
    for j, k in enumerate(times):
        truth = truth_all[k]
        pred = ds["prediction"][0, k].to_numpy()
        t = float(ds["time"][k])
        _show(axes[0, j], truth, f"truth t={t:g}", "RdBu_r", vmin=-limit, vmax=limit)
        _show(axes[1, j], pred, f"{ds.attrs['label']} t={t:g}", "RdBu_r", vmin=-limit, vmax=limit)
        _show(axes[2, j], pred - truth, "error", "RdBu_r", vmin=-0.2 * limit, vmax=0.2 * limit)
    fig.suptitle(
        f"{ds.attrs['label']} trained at {ds.attrs['train_resolution']}^2, 1 frame per time "
        f"unit; tested at {ds.attrs['test_resolution']}^2, {ds.attrs['frames_per_time']} "
        f"frames per unit. Test relative L2: {float(ds.attrs['rel_l2']):.4f} "
        f"(as trained, on the training grid: {float(ds.attrs['rel_l2_as_trained']):.4f})",
        fontsize=10,
    )
    fig.tight_layout()
    save_figure(fig, *paths)
