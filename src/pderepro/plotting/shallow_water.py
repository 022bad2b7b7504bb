"""Figures of the shallow-water sub-grid flux closure study.

They read evaluated curves and the online table only, never closures or solvers: the
per-closure online curve files (with the noise floor's, attrs ``closure == "truth"``, which
also holds member 0's fine depth), the per-closure offline files and the online table.

* ``sw_solutions``: member 0's depth at three records, per setup: the fine run, its filter
  (the truth on the coarse grid) and every closure's coarse run;
* ``sw_error_energy``: the depth error over time and the available energy over time, per
  setup, with the noise floor;
* ``sw_out_of_regime``: the time-mean depth error of every closure in every setup (bars;
  blow-ups counted in the legend), the noise floor as a line;
* ``sw_offline_fit``: predicted against exact mass and momentum corrections at the training
  setup's test block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from pderepro.plotting.closures import FLOOR_STYLE, TRUTH_STYLE, _finish, _palette, _save
from pderepro.plotting.style import apply_theme, legend_outside

FINE_STYLE = {"color": "0.6", "linewidth": 0.6, "zorder": 3}


def _setup_title(setup: str, training_setup: str, setups: Mapping[str, float]) -> str:
    title = f"{setup}, A = {setups[setup]:g}" if setup in setups else setup
    return f"{title} (training)" if setup == training_setup else title


def _order(ds: xr.Dataset, setups: Mapping[str, float], training_setup: str) -> list[str]:
    """The setups of ``ds``: the training one first, then the others."""
    present = {str(s) for s in ds["setup"].to_numpy()}
    return [s for s in dict.fromkeys([training_setup, *setups]) if s in present]


def _label(table: pd.DataFrame, ds: xr.Dataset) -> str:
    rows = table[table["closure"] == ds.attrs["closure"]]
    blowups = int(np.nansum(rows["blowups"].to_numpy(dtype=float))) if len(rows) else 0
    return ds.attrs["label"] + (f" ({blowups} blow-ups)" if blowups else "")


def _solutions(models, truth, table, outputs, title, setups, training_setup, colours):
    names = _order(truth, setups, training_setup)
    records = truth.sizes["record"]
    picks = sorted({max(1, records // 10), records // 2, records - 1})
    fig, axes = plt.subplots(len(picks), len(names), figsize=(4.2 * len(names), 2.6 * len(picks)),
                             squeeze=False, sharex=True)  # fmt: skip
    for j, setup in enumerate(names):
        for i, record in enumerate(picks):
            ax = axes[i, j]
            ax.plot(truth["x_fine"], truth["h_fine"].sel(setup=setup)[record], label="fine run",
                    **FINE_STYLE)  # fmt: skip
            ax.step(truth["x"], truth["h_truth0"].sel(setup=setup)[record], where="mid",
                    label="filtered truth", **TRUTH_STYLE)  # fmt: skip
            for ds in models:
                ax.step(ds["x"], ds["h_member0"].sel(setup=setup)[record], where="mid",
                        color=colours[ds.attrs["label"]], linewidth=1.0,
                        label=_label(table, ds))  # fmt: skip
            time = float(truth["time"][record])
            ax.set_title(f"{_setup_title(setup, training_setup, setups)}, {time:g} after start",
                         fontsize=8)  # fmt: skip
            ax.set_ylabel("depth h")
        axes[-1, j].set_xlabel("x")
    legend_outside(axes[0, -1])
    _finish(fig, outputs, "sw_solutions", f"{title}: depth of run 0", fontsize=9)


def _error_energy(models, truth, table, outputs, title, setups, training_setup, colours):
    names = _order(truth, setups, training_setup)
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 6.0), squeeze=False,
                             sharex="col")  # fmt: skip
    for j, setup in enumerate(names):
        t = truth["time"].to_numpy()
        axes[0, j].plot(t, truth["h_error_series"].sel(setup=setup), label="noise floor",
                        **FLOOR_STYLE)  # fmt: skip
        axes[1, j].plot(t, truth["energy_truth"].sel(setup=setup), label="filtered truth",
                        **TRUTH_STYLE)  # fmt: skip
        for ds in models:
            style = {"color": colours[ds.attrs["label"]], "linewidth": 1.0}
            axes[0, j].plot(t, ds["h_error_series"].sel(setup=setup), label=_label(table, ds),
                            **style)  # fmt: skip
            axes[1, j].plot(t, ds["energy_series"].sel(setup=setup), **style)
        axes[0, j].set_yscale("log")
        axes[0, j].set_title(_setup_title(setup, training_setup, setups), fontsize=8)
        axes[0, j].set_ylabel("depth error (relative)")
        axes[1, j].set_ylabel("available energy")
        axes[1, j].set_xlabel("time since the start")
    legend_outside(axes[0, -1])
    _finish(fig, outputs, "sw_error_energy", f"{title}: error and energy over time", fontsize=9)


def _out_of_regime(table, outputs, title, setups, training_setup, styles):
    models = table[table["closure"] != "truth"]
    floor = table[table["closure"] == "truth"].set_index("setup")["h_error"]
    names = [s for s in [training_setup, *setups] if s in set(table["setup"].astype(str))]
    names = list(dict.fromkeys(names))
    closures = list(dict.fromkeys(models["closure"]))
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(names), 3.6))
    width = 0.8 / max(len(closures), 1)
    for i, closure in enumerate(closures):
        rows = models[models["closure"] == closure].set_index("setup")
        values = [float(rows["h_error"].get(s, np.nan)) for s in names]
        blowups = int(np.nansum(rows["blowups"].to_numpy(dtype=float)))
        label, colour = styles[closure]
        label += f" ({blowups} blow-ups)" if blowups else ""
        ax.bar(np.arange(len(names)) + (i - (len(closures) - 1) / 2) * width, values, width,
               color=colour, label=label)  # fmt: skip
    for k, setup in enumerate(names):
        if setup in floor:
            ax.hlines(floor[setup], k - 0.45, k + 0.45, label="noise floor" if k == 0 else None,
                      **FLOOR_STYLE)  # fmt: skip
    ax.set_xticks(np.arange(len(names)),
                  [_setup_title(s, training_setup, setups) for s in names], fontsize=7)  # fmt: skip
    ax.set_yscale("log")
    ax.set_ylabel("time-mean depth error (relative)")
    legend_outside(ax)
    ax.set_title(f"{title}: in and out of the training regime", fontsize=9)
    _save(fig, outputs, "sw_out_of_regime")


def _offline_fit(offline, outputs, title):
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.6), squeeze=False)
    learned = [ds for ds in offline if ds.attrs["kind"] != "none"]
    colours = _palette([ds.attrs["label"] for ds in learned] or ["-"])
    for v, name in enumerate(("mass", "momentum")):
        ax = axes[0, v]
        for ds in learned:
            ax.scatter(ds["correction_true"][v], ds["correction_pred"][v], s=3, alpha=0.5,
                       color=colours[ds.attrs["label"]], label=ds.attrs["label"])  # fmt: skip
        values = np.concatenate([ds["correction_true"][v].to_numpy() for ds in offline])
        low, high = float(np.min(values)), float(np.max(values))
        ax.plot([low, high], [low, high], **TRUTH_STYLE)
        ax.set_xlabel(f"exact {name} flux correction")
        ax.set_ylabel("predicted")
        setup = offline[0].attrs.get("setup", "") if offline else ""
        ax.set_title(f"{name}, test block of {setup}", fontsize=8)
    if learned:
        legend_outside(axes[0, -1])
    _finish(fig, outputs, "sw_offline_fit", f"{title}: offline fit", fontsize=9)


def plot_shallow_water_figures(
    offline: Sequence[xr.Dataset], online: Sequence[xr.Dataset], table: pd.DataFrame,
    outputs: Mapping[str, str], *, title: str, training_setup: str,
    setups: Mapping[str, float],
) -> None:  # fmt: skip
    """Write every figure (module docstring) to ``outputs`` (``<name>_png``, ``<name>_pdf``)."""
    apply_theme()
    models = [ds for ds in online if ds.attrs["closure"] != "truth"]
    truth = next(ds for ds in online if ds.attrs["closure"] == "truth")
    colours = _palette([ds.attrs["label"] for ds in models])
    styles = {ds.attrs["closure"]: (ds.attrs["label"], colours[ds.attrs["label"]]) for ds in models}
    args = (table, outputs, title, setups, training_setup, colours)
    _solutions(models, truth, *args)
    _error_energy(models, truth, *args)
    _out_of_regime(table, outputs, title, setups, training_setup, styles)
    _offline_fit(offline, outputs, title)
