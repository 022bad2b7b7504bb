"""Figures of the forced 2-D turbulence LES-closure study (issue 17).

They read evaluated curves and the online table only, never closures or solvers. The
inputs are the per-closure online curve files (plus the DNS noise-floor file, attrs
``closure == "truth"``), the per-closure offline files and the online table; see
:func:`plot_turbulence_figures`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
import xarray as xr

from pderepro.plotting.closures import FLOOR_STYLE, TRUTH_STYLE, _finish, _palette, _panels
from pderepro.plotting.style import apply_theme, legend_outside

log = logging.getLogger(__name__)

SMAGORINSKY_CS = 0.17  # textbook (Lilly) constant, the reference line of the C_s panel
TAIL_SIGMA = 3.0  # half-width of the fields' colour scale in reference sigmas
#: Dotted marks of a threshold: the largest scored shell, the tails of the PDFs.
MARK_STYLE = {"color": "0.3", "linestyle": ":", "linewidth": 1.0}
NO_RL_TEXT = "no RL closure in this study"


def _split(online: Sequence[xr.Dataset]) -> tuple[list[xr.Dataset], xr.Dataset | None]:
    """The closures' datasets and the truth-floor dataset (None when absent)."""
    models = [ds for ds in online if ds.attrs["closure"] != "truth"]
    truth = next((ds for ds in online if ds.attrs["closure"] == "truth"), None)
    return models, truth


def _cases(ds: xr.Dataset, setups: Mapping[str, float]) -> list[str]:
    """Case names ordered by their beta; cases missing from ``setups`` go last."""
    return sorted((str(c) for c in ds["case"].to_numpy()),
                  key=lambda c: (setups.get(c, np.inf), c))  # fmt: skip


def _case_title(case: str, training_setup: str, setups: Mapping[str, float]) -> str:
    title = f"{case}, β = {setups[case]:g}" if case in setups else case
    return f"{title} (training case)" if case == training_setup else title


def _blowups(table: pd.DataFrame, ds: xr.Dataset, case: str | None = None) -> int:
    """Blown-up runs of the closure of ``ds`` in ``table`` (all cases unless ``case``)."""
    if table is None or table.empty or "blowups" not in table:
        return 0
    rows = table[table["closure"].isin([ds.attrs["closure"], ds.attrs["label"]])]
    if case is not None:
        rows = rows[rows["case"].astype(str) == case]
    return int(np.nansum(rows["blowups"].to_numpy(dtype=float)))


def _legend_label(table: pd.DataFrame, ds: xr.Dataset, case: str | None = None) -> str:
    n = _blowups(table, ds, case)
    return f"{ds.attrs['label']} ({n} blew up)" if n else ds.attrs["label"]


@dataclass(frozen=True)
class CaseCurves:
    """The online curves of a study with what its per-case figures read of them.

    Parameters
    ----------
    online : sequence of xarray.Dataset
        One per closure, plus the DNS noise floor (attrs ``closure == "truth"``) if any.
    table : pandas.DataFrame
        The online table, for the blown-up runs in legends.
    title : str
        The study's title, prefixed to figure titles.
    training_setup : str
        The case the closures were trained on.
    setups : mapping of str to float
        Case name to its beta (1/(length time)), the order of the panels.
    """

    online: Sequence[xr.Dataset]
    table: pd.DataFrame
    title: str
    training_setup: str
    setups: Mapping[str, float]

    @property
    def models(self) -> list[xr.Dataset]:
        """The closures' datasets."""
        return _split(self.online)[0]

    @property
    def truth(self) -> xr.Dataset | None:
        """The noise floor's dataset (None when absent)."""
        return _split(self.online)[1]

    @property
    def reference(self) -> xr.Dataset:
        """The dataset whose truth curves, cases and shells the figures use."""
        return self.truth if self.truth is not None else self.online[0]

    @property
    def colours(self) -> dict[str, tuple]:
        """Each closure's colour, by label."""
        return _palette([ds.attrs["label"] for ds in self.models])

    @property
    def cases(self) -> list[str]:
        """The reference's cases, ordered by beta."""
        return _cases(self.reference, self.setups)

    def case_title(self, case: str) -> str:
        """Panel title of ``case``: its beta, and whether it is the training case."""
        return _case_title(case, self.training_setup, self.setups)

    def label(self, ds: xr.Dataset, case: str | None = None) -> str:
        """Legend label of the closure of ``ds`` with its blown-up runs (in ``case``)."""
        return _legend_label(self.table, ds, case)


def _positive(values: xr.DataArray) -> np.ndarray:
    """Values with non-positive entries masked, so log axes drop them instead of clipping."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, np.nan)


def _integer_shell_ticks(ax: plt.Axes) -> None:
    """Label a log shell axis 1, 2, 5, 10, ... rather than 2x10^0, which overlap."""
    ax.xaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(mticker.NullFormatter())


def plot_spectra(curves: CaseCurves, outputs: Mapping[str, str]) -> None:
    """Enstrophy and energy shell spectra per case, filtered DNS against every closure.

    One row per case (ordered by beta), two log-log panels against shell K >= 1: the
    filtered DNS (black), the DNS noise floor (the second ensemble, dashed grey), each
    closure coloured, and a dotted line at the largest scored shell ``k_max``.

    Parameters
    ----------
    curves : CaseCurves
        The study's online curves.
    outputs : mapping of str to str
        ``spectra_png`` and ``spectra_pdf`` paths.
    """
    reference, truth, colours, cases = curves.reference, curves.truth, curves.colours, curves.cases
    fig, axes = plt.subplots(len(cases), 2, figsize=(8.4, 3.2 * len(cases)), squeeze=False,
                             layout="constrained")  # fmt: skip
    k_max = reference.attrs.get("k_max")
    for row, case in zip(axes, cases, strict=True):
        for ax, var, name in zip(row, ("enstrophy", "energy"), ("Z(K)", "E(K)"), strict=True):
            shells = reference["shell"].to_numpy()
            # K = 0 is the mean, off a log axis; beyond n_les / 2 a shell holds only the
            # corners of the LES grid's square of modes, where the spectra fall off a cliff
            shells = shells[(shells >= 1) & (shells <= reference.sizes["x"] // 2)]
            ref = reference.sel(case=case, shell=shells)
            spec, bottom = f"{var}_spectrum", None
            ax.plot(shells, _positive(ref[f"{spec}_truth"]), label="filtered DNS",
                    **TRUTH_STYLE)  # fmt: skip
            if truth is not None:
                ax.plot(shells, _positive(ref[spec]), label="DNS noise floor", **FLOOR_STYLE)
            for ds in curves.models:
                curve = ds.sel(case=case).sel(shell=shells)
                ax.plot(shells, _positive(curve[spec]), label=curves.label(ds),
                        color=colours[ds.attrs["label"]])  # fmt: skip
            if k_max is not None:
                ax.axvline(k_max, label=f"k_max = {int(k_max)}", **MARK_STYLE)
                # beyond k_max the shells hold ever fewer advected modes and the spectra
                # fall by decades: keep the axis on the scored range
                scored = ref[f"{spec}_truth"].sel(shell=slice(1, int(k_max))).to_numpy()
                if np.isfinite(scored).any() and np.nanmin(scored) > 0:
                    bottom = 0.1 * np.nanmin(scored)
            ax.set(xscale="log", yscale="log", xlabel="shell K", ylabel=f"{var} spectrum {name}",
                   title=curves.case_title(case))  # fmt: skip
            if bottom is not None:
                ax.set_ylim(bottom=bottom)
            _integer_shell_ticks(ax)
    legend_outside(axes[0, -1])
    _finish(fig, outputs, "spectra", f"{curves.title}: shell spectra")


def _case_sigma(ds: xr.Dataset, case: str) -> float:
    """The reference's vorticity standard deviation in ``case`` (1/time)."""
    return float(ds["sigma_truth"].sel(case=case))


def plot_vorticity_pdfs(curves: CaseCurves, outputs: Mapping[str, str]) -> None:
    """PDF of vorticity in units of the reference sigma, one log-y panel per case.

    The density is per unit of ``w / sigma_truth`` (mass per bin over the normalised bin
    width), so curves of different cases share a scale; dotted lines mark the tail threshold
    (the curves' ``tail_sigma``).

    Parameters
    ----------
    curves : CaseCurves
        The study's online curves; ``w_value`` and ``sigma_truth`` in 1/time.
    outputs : mapping of str to str
        ``vorticity_pdfs_png`` and ``vorticity_pdfs_pdf`` paths.
    """
    reference, colours, cases = curves.reference, curves.colours, curves.cases
    fig, axes = _panels(len(cases), width=3.8)
    fig.set_layout_engine("constrained")  # keeps the suptitle clear of the panel titles
    for ax, case in zip(axes, cases, strict=True):
        ref = reference.sel(case=case)
        sigma = _case_sigma(reference, case)
        x = np.asarray(ref["w_value"], dtype=float) / sigma
        width = np.gradient(x) if x.size > 1 else np.ones_like(x)  # normalised bin widths
        ax.plot(x, _positive(ref["pdf_truth"] / width), label="filtered DNS", **TRUTH_STYLE)
        for ds in curves.models:
            pdf = ds.sel(case=case)["pdf"]
            ax.plot(x, _positive(pdf / width), label=curves.label(ds),
                    color=colours[ds.attrs["label"]])  # fmt: skip
        tail = float(reference.attrs["tail_sigma"])  # where the tail ratio begins
        for sign in (-1, 1):
            ax.axvline(sign * tail, label=f"±{tail:g}σ tail" if sign > 0 else None, **MARK_STYLE)
        panel = f"{curves.case_title(case)}\nσ_truth = {sigma:.3g}"
        ax.set(yscale="log", xlabel="w / σ_truth", ylabel="probability density", title=panel)
    legend_outside(axes[-1])
    _finish(fig, outputs, "vorticity_pdfs", f"{curves.title}: vorticity PDFs")


def plot_rl_training(
    offline: Sequence[xr.Dataset],
    colours: Mapping[str, tuple],
    outputs: Mapping[str, str],
    title: str,
) -> None:
    """SMARL training: episode reward and mean C_s against environment timesteps.

    The C_s panel carries the textbook Smagorinsky constant 0.17 as a reference. With no
    SMARL closure in the study the figure is a single panel saying so, so the rule's
    outputs always exist.
    """
    agents = [ds for ds in offline if ds.attrs.get("kind") == "smarl" and "rl_reward" in ds]
    if not agents:
        log.info("no SMARL closure among %d offline files; rl_training is a stub", len(offline))
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.text(0.5, 0.5, NO_RL_TEXT, ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        _finish(fig, outputs, "rl_training", f"{title}: RL training")
        return
    fig, (ax_reward, ax_cs) = _panels(2, width=4.5)
    fig.set_layout_engine("constrained")
    for ds in agents:
        label, colour = ds.attrs["label"], colours.get(ds.attrs["label"])
        steps = np.asarray(ds["rl_timesteps"], dtype=float)
        ax_reward.plot(steps, ds["rl_reward"], color=colour, label=label)
        ax_cs.plot(steps, ds["rl_mean_cs"], color=colour, label=label)
    ax_cs.axhline(SMAGORINSKY_CS, color="0.3", linestyle="--", linewidth=1.0,
                  label=f"Smagorinsky C_s = {SMAGORINSKY_CS}")  # fmt: skip
    ax_reward.set(xlabel="environment timesteps", ylabel="mean episode reward", title="reward")
    ax_cs.set(xlabel="environment timesteps", ylabel="mean C_s", title="mean Smagorinsky C_s")
    legend_outside(ax_cs)
    _finish(fig, outputs, "rl_training", f"{title}: RL training")


def _extent(field: xr.DataArray) -> list[float] | None:
    """imshow extent from the field's (x, y) coordinates, half a cell beyond the centres."""
    bounds = []
    for dim in field.dims:
        if dim not in field.coords or field.sizes[dim] < 2:
            return None
        c = np.asarray(field[dim], dtype=float)
        half = 0.5 * (c[1] - c[0])
        bounds += [c[0] - half, c[-1] + half]
    return bounds


def plot_vorticity_fields(curves: CaseCurves, outputs: Mapping[str, str]) -> None:
    """Vorticity snapshots of the training case: DNS, filtered DNS and each closure.

    Fields are stored ``w[x, y]``, so the transpose is shown with ``origin="lower"``
    (x horizontal). All panels share a symmetric colour scale of +-3 sigma of the
    filtered DNS; a closure whose every run blew up shows "blew up" instead.

    Parameters
    ----------
    curves : CaseCurves
        The study's online curves; the fields' vorticity in 1/time.
    outputs : mapping of str to str
        ``vorticity_fields_png`` and ``vorticity_fields_pdf`` paths.
    """
    truth, training_setup = curves.truth, curves.training_setup
    panels: list[tuple[str, xr.DataArray | None]] = []
    if truth is not None:
        snap = truth.sel(case=training_setup)
        n_dns, n_les = snap.sizes.get("x_dns", 0), snap.sizes.get("x", 0)
        if "w_dns" in snap:
            panels.append((f"DNS ({n_dns}²)", snap["w_dns"]))
        if "w_filtered" in snap:
            panels.append((f"filtered DNS ({n_les}²)", snap["w_filtered"]))
    for ds in curves.models:
        field = ds.sel(case=training_setup)["w_final"]
        label = curves.label(ds, training_setup)
        panels.append((label, field if np.isfinite(field).any() else None))
    scale_from = next((f for name, f in panels if name.startswith("filtered")), None)
    if scale_from is not None and np.isfinite(scale_from).any():
        vmax = TAIL_SIGMA * float(np.nanstd(scale_from))
    else:  # no filtered DNS: fall back to the reference sigma of the curves
        vmax = TAIL_SIGMA * _case_sigma(curves.online[0], training_setup)
    vmax = vmax if np.isfinite(vmax) and vmax > 0 else 1.0
    ncols = min(4, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.0 * ncols, 3.0 * nrows),
                             squeeze=False, layout="constrained")  # fmt: skip
    image = None
    for ax, (name, field) in zip(axes.ravel(), panels, strict=False):
        if field is None:
            ax.text(0.5, 0.5, "blew up", ha="center", va="center", transform=ax.transAxes,
                    fontsize="large", color="firebrick")  # fmt: skip
            ax.set(xticks=[], yticks=[])
        else:
            image = ax.imshow(np.asarray(field, dtype=float).T, origin="lower", cmap="RdBu_r",
                              vmin=-vmax, vmax=vmax, extent=_extent(field),
                              interpolation="nearest")  # fmt: skip
            ax.set(xlabel="x", ylabel="y")
        ax.grid(False)
        ax.set_title(name, fontsize="small")
    for ax in axes.ravel()[len(panels) :]:
        ax.set_axis_off()
    if image is not None:
        fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="vorticity w")
    suptitle = f"{curves.title}: vorticity, {training_setup} (training case)"
    _finish(fig, outputs, "vorticity_fields", suptitle)


def plot_turbulence_figures(
    offline: Sequence[xr.Dataset],
    online: Sequence[xr.Dataset],
    table: pd.DataFrame,
    outputs: Mapping[str, str],
    *,
    title: str,
    training_setup: str,
    setups: Mapping[str, float],
) -> None:
    """All four figures of the 2-D turbulence closure study.

    Parameters
    ----------
    offline : sequence of xarray.Dataset
        One per closure, attrs ``closure``, ``label``, ``kind``; the SMARL closure's
        (``kind == "smarl"``) carries ``rl_timesteps``, ``rl_reward``, ``rl_mean_cs``
        over ``iteration``.
    online : sequence of xarray.Dataset
        One per closure plus the DNS noise floor (attrs ``closure == "truth"``), with
        shell spectra, vorticity PDFs and final fields over ``case``.
    table : pandas.DataFrame
        The online table (columns ``closure``, ``case``, ``blowups``, ...); used to
        count blown-up runs in legends.
    outputs : mapping of str to str
        ``<figure>_png`` / ``<figure>_pdf`` paths for ``spectra``, ``vorticity_pdfs``,
        ``rl_training`` and ``vorticity_fields``.
    title : str
        The study's title, prefixed to every figure title.
    training_setup : str
        The case the closures were trained on, marked in panel titles.
    setups : mapping of str to float
        Case name to its beta (the beta-plane parameter); panels are ordered by it.
    """
    apply_theme()
    curves = CaseCurves(online, table, title, training_setup, setups)
    labels = [ds.attrs["label"] for ds in curves.models]
    labels += [ds.attrs["label"] for ds in offline if ds.attrs["label"] not in labels]
    colours = _palette(labels)  # online labels first, so colours match the other figures
    plot_spectra(curves, outputs)
    plot_vorticity_pdfs(curves, outputs)
    plot_rl_training(offline, colours, outputs, title)
    plot_vorticity_fields(curves, outputs)
    log.info("wrote the turbulence figures: %s", ", ".join(sorted(outputs)))
