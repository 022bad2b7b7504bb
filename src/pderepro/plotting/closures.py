"""Figures of a closure study; they read evaluated curves and tables only, never closures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import xarray as xr

from pderepro.plotting.style import apply_theme, legend_outside, save_figure

TRUTH_STYLE = {"color": "black", "linewidth": 2.0, "zorder": 5}
#: A noise floor (a second truth ensemble, scored like a closure) drawn as a line.
FLOOR_STYLE = {"color": "0.5", "linewidth": 0.9, "linestyle": "--", "zorder": 4}


def _palette(labels: Sequence[str]) -> dict[str, tuple]:
    return dict(zip(labels, sns.color_palette(n_colors=len(labels)), strict=True))


def _save(fig: plt.Figure, outputs: Mapping[str, str], name: str) -> None:
    save_figure(fig, outputs[f"{name}_png"], outputs[f"{name}_pdf"])


def _finish(
    fig: plt.Figure, outputs: Mapping[str, str], name: str, title: str,
    fontsize: str | float = "medium",
) -> None:  # fmt: skip
    """Give ``fig`` its suptitle and write it to ``outputs["<name>_png" / "<name>_pdf"]``."""
    fig.suptitle(title, fontsize=fontsize)
    _save(fig, outputs, name)


def _panels(n: int, width: float = 3.6) -> tuple[plt.Figure, np.ndarray]:
    fig, axes = plt.subplots(1, n, figsize=(width * n, 3.4), squeeze=False)
    return fig, axes[0]


class _SetupCurve(NamedTuple):
    """A per-setup figure's curve: ``y`` (and the truth's ``<y>_truth``) against ``x``, the
    axis labels, and whether ``y`` is mass per bin, drawn as a density."""

    x: str
    y: str
    labels: tuple[str, str]
    density: bool = False


#: The per-setup figures, by name (:func:`_per_setup`).
SETUP_CURVES = {
    "climate_pdfs": _SetupCurve("x_value", "pdf", ("X", "probability density"), density=True),
    "autocorrelation": _SetupCurve("lag", "acf", ("lag (time units)", "autocorrelation of X")),
}


def _per_setup(
    online: Sequence[xr.Dataset], outputs: Mapping[str, str], title: str,
    setups: Mapping[str, float], name: str,
) -> None:  # fmt: skip
    """Figure ``name`` (:data:`SETUP_CURVES`): one panel per setup, ordered by the setup's
    parameter (Lorenz-96: the forcing F), the truth (black) and every closure."""
    x, y, labels, density = SETUP_CURVES[name]
    models = [ds for ds in online if ds.attrs["closure"] != "truth"]
    colours = _palette([ds.attrs["label"] for ds in models])
    setups = sorted(online[0]["setup"].to_numpy(), key=lambda s: setups[str(s)])
    fig, axes = _panels(len(setups))
    for ax, setup in zip(axes, setups, strict=True):
        first = online[0].sel(setup=setup)
        scale = float(np.diff(first[x])[0]) if density else 1.0  # mass per bin -> density
        ax.plot(first[x], first[f"{y}_truth"] / scale, label="truth", **TRUTH_STYLE)
        for ds in models:
            curve = ds.sel(setup=setup)
            ax.plot(curve[x], curve[y] / scale, label=ds.attrs["label"],
                    color=colours[ds.attrs["label"]])  # fmt: skip
        ax.set(title=setup, xlabel=labels[0], ylabel=labels[1])
    legend_outside(axes[-1])
    _finish(fig, outputs, name, title)


def plot_climate_pdfs(
    online: Sequence[xr.Dataset], outputs: Mapping[str, str], title: str,
    setups: Mapping[str, float],
):  # fmt: skip
    """PDF of X per setup: truth (black) against every closure."""
    _per_setup(online, outputs, title, setups, "climate_pdfs")


def plot_autocorrelation(
    online: Sequence[xr.Dataset], outputs: Mapping[str, str], title: str,
    setups: Mapping[str, float],
):  # fmt: skip
    """Autocorrelation of X against lag per setup, truth against closures."""
    _per_setup(online, outputs, title, setups, "autocorrelation")


def plot_forecast_skill(
    online: Sequence[xr.Dataset], outputs: Mapping[str, str], title: str, setup: str
):
    """Forecast RMSE (solid) and ensemble spread (dashed) against lead time."""
    models = [ds for ds in online if ds.attrs["closure"] != "truth"]
    colours = _palette([ds.attrs["label"] for ds in models])
    fig, ax = plt.subplots(figsize=(6, 4))
    for ds in models:
        curve, colour = ds.sel(setup=setup), colours[ds.attrs["label"]]
        ax.plot(curve["lead"], curve["forecast_rmse"], color=colour, label=ds.attrs["label"])
        if np.nanmax(curve["forecast_spread"]) > 0:
            ax.plot(curve["lead"], curve["forecast_spread"], color=colour, linestyle="--",
                    label=f"{ds.attrs['label']} (spread)")  # fmt: skip
    ax.set(xlabel="lead time (time units)", ylabel="RMSE of X", title=f"{title}\n{setup}")
    legend_outside(ax)
    _save(fig, outputs, "forecast_skill")


def plot_offline_fit(offline: Sequence[xr.Dataset], outputs: Mapping[str, str], title: str):
    """Test-block U against X with each local closure's curve; non-local ones as points."""
    colours = _palette([ds.attrs["label"] for ds in offline])
    fig, ax = plt.subplots(figsize=(6, 4.5))
    first = offline[0]
    ax.scatter(first["x_test"], first["u_test"], s=2, color="0.6", alpha=0.5, label="truth")
    for ds in offline:
        colour = colours[ds.attrs["label"]]
        if np.isfinite(ds["curve"]).any():
            ax.plot(ds["x_value"], ds["curve"], color=colour, label=ds.attrs["label"])
        else:
            ax.scatter(ds["x_test"], ds["u_pred"], s=2, color=colour, alpha=0.5,
                       label=f"{ds.attrs['label']} (predictions)")  # fmt: skip
    lo, hi = float(first["x_test"].min()), float(first["x_test"].max())
    ax.set_xlim(lo - 1, hi + 1)
    ax.set(xlabel="X_k", ylabel=f"U_k ({first.attrs['target']})",
           title=f"{title}\ntest block, {first.attrs['setup']}")  # fmt: skip
    legend_outside(ax, markerscale=4)
    _save(fig, outputs, "offline_fit")


def plot_extrapolation(
    table: pd.DataFrame, outputs: Mapping[str, str], title: str, setups: Mapping[str, float]
):
    """Hellinger distance and Wasserstein-1 against forcing F, noise floor in black."""
    table = table.copy()
    table["F"] = table["setup"].map(setups)
    fig, axes = _panels(2, width=4.5)
    closures = [c for c in dict.fromkeys(table["closure"]) if c != "truth"]
    colours = _palette(closures)
    for ax, metric in zip(axes, ("hellinger", "wasserstein"), strict=True):
        for closure in closures:
            rows = table[table["closure"] == closure].sort_values("F")
            ax.plot(rows["F"], rows[metric], marker="o", color=colours[closure], label=closure)
        floor = table[table["closure"] == "truth"].sort_values("F")
        ax.plot(floor["F"], floor[metric], marker="s", label="truth floor", **TRUTH_STYLE)
        ax.set(yscale="log", xlabel="forcing F", ylabel=metric)
    legend_outside(axes[-1])
    _finish(fig, outputs, "extrapolation", f"{title}: climate error against forcing")


def plot_closure_figures(
    offline: Sequence[xr.Dataset],
    online: Sequence[xr.Dataset],
    table: pd.DataFrame,
    outputs: Mapping[str, str],
    *,
    title: str,
    training_setup: str,
    setups: Mapping[str, float],
) -> None:
    """All figures of a closure study (keys ``<figure>_png`` / ``<figure>_pdf``)."""
    apply_theme()
    plot_climate_pdfs(online, outputs, title, setups)
    plot_autocorrelation(online, outputs, title, setups)
    plot_forecast_skill(online, outputs, title, training_setup)
    plot_offline_fit(offline, outputs, title)
    plot_extrapolation(table, outputs, title, setups)
