"""A posteriori stages of 2-D turbulence closures: LES runs, the DNS noise floor, tables, figures.

Every LES run starts from a filtered reference-DNS state, discards ``truth.spinup_time`` and
then records as long and as often as the DNS climate runs; its statistics are scored against
the filtered reference DNS (:func:`pderepro.evaluation.les_scores.a_posteriori_scores`). The
``truth`` row scores the second DNS ensemble, filtered alike: the noise floor.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import open_netcdf, write_scores
from pderepro.data.turbulence_problems import les_problem
from pderepro.evaluation.climate import histogram_edges
from pderepro.evaluation.les_scores import (
    a_posteriori_scores,
    advected_shells,
    field_statistics,
    load_les_closure,
)
from pderepro.evaluation.tables import closure_table, write_table
from pderepro.evaluation.turbulence import energy_spectrum, enstrophy_spectrum
from pderepro.evaluation.turbulence_truth import truth_statistics
from pderepro.runtime import set_threads
from pderepro.solvers.lorenz96.lorenz96 import whole_steps
from pderepro.solvers.turbulence.les import run_les
from pderepro.solvers.turbulence.les_filters import advected_part, coarse_grain

log = logging.getLogger(__name__)

#: Columns of the online table (issue 17).
ONLINE_COLUMNS = [
    "closure", "case", "enstrophy_spectrum_log_error", "energy_spectrum_log_error",
    "pdf_hellinger", "tail_ratio", "blowups", "cost_ratio",
]  # fmt: skip
#: Columns of the offline table.
OFFLINE_COLUMNS = ["closure", "case", "pi_correlation", "pi_rmse"]


def _filtered_ensembles(path: str, n_les: int, kind: str):
    """Reference and noise-floor DNS ensembles filtered to the LES grid and kept on the modes
    the LES advects (:func:`~pderepro.solvers.turbulence.les_filters.advected_part`: all an LES
    state holds after its spin-up), each ``(member, time, n_les, n_les)`` float64; the climate
    dataset itself. Filtered one member at a time (a paper member is 400 x 1024^2 values)."""
    ds = open_netcdf(path, required=("w",), expect_attrs={"role": "climate"})
    members = []
    with torch.no_grad():
        for member in range(ds.sizes["member"]):
            w = ds["w"].isel(member=member).transpose("time", "x", "y").to_numpy()
            w = torch.as_tensor(w, dtype=torch.float64)
            members.append(advected_part(coarse_grain(w, n_les, kind)).numpy())
    w_bar, ensemble = np.stack(members), ds["ensemble"].to_numpy()
    return w_bar[ensemble == 0], w_bar[ensemble == 1], ds


def _series(w: np.ndarray, box: float) -> tuple[np.ndarray, np.ndarray]:
    """Domain-mean enstrophy and energy of ``w`` (member, record, n, n) (NaN stays NaN)."""
    return enstrophy_spectrum(w).sum(-1), energy_spectrum(w, box).sum(-1)


def _case_curves(stats, reference, w, box) -> dict[str, Any]:
    enstrophy, energy = _series(w, box)
    last = w[0, -1] if np.isfinite(w[0, -1]).all() else np.full(w.shape[-2:], np.nan)
    nan_shells = np.full(reference.sizes["shell"], np.nan)
    nan_bins = np.full(reference.sizes["bin"], np.nan)
    return {
        "enstrophy_spectrum": nan_shells if stats is None else stats["enstrophy_spectrum"].values,
        "energy_spectrum": nan_shells if stats is None else stats["energy_spectrum"].values,
        "pdf": nan_bins if stats is None else stats["pdf"].values,
        "enstrophy_spectrum_truth": reference["enstrophy_spectrum"].values,
        "energy_spectrum_truth": reference["energy_spectrum"].values,
        "pdf_truth": reference["pdf"].values,
        "enstrophy_series": enstrophy,
        "energy_series": energy,
        "w_final": last,
    }


def _curves_dataset(cases: list[str], curves: list[dict], *, edges, times, grid) -> xr.Dataset:
    dims = {
        "enstrophy_spectrum": ("shell",), "energy_spectrum": ("shell",), "pdf": ("bin",),
        "enstrophy_spectrum_truth": ("shell",), "energy_spectrum_truth": ("shell",),
        "pdf_truth": ("bin",), "enstrophy_series": ("member", "record"),
        "energy_series": ("member", "record"), "w_final": ("x", "y"),
    }  # fmt: skip
    data = {name: (("case", *d), np.stack([c[name] for c in curves])) for name, d in dims.items()}
    # the reference's vorticity standard deviation per case (the PDF figure's unit)
    data["sigma_truth"] = (("case",), np.array([c["sigma_truth"] for c in curves]))
    return xr.Dataset(
        data,
        coords={"case": cases, "w_value": ("bin", 0.5 * (edges[1:] + edges[:-1])),
                "time": ("record", times), "x": grid, "y": grid},
    )  # fmt: skip


def run_online_turbulence(
    *, checkpoint: str, climates: Mapping[str, str], system: Mapping[str, Any],
    setups: Mapping[str, float], closure: str, online: Mapping[str, Any], spinup_time: float,
    run_time: float, record_interval: float, metrics: str, curves: str, threads: int = 1,
) -> None:  # fmt: skip
    """The LES with one closure in every case, scored against the filtered reference DNS.

    ``online.time_step`` is the LES step; a run blows up when ``max |w|`` exceeds
    ``online.blowup_threshold`` or turns non-finite (counted, scored on the other runs). The
    cost ratio is the LES's wall time per member and simulated time unit over the DNS's (both
    measured in their own jobs on this machine).
    """
    set_threads(threads)
    n_les, box = system["les_resolution"], system["box_size"]
    k_max, edges = advected_shells(n_les), histogram_edges(online["pdf"])
    rows, curve_list = [], []
    for case, path in climates.items():
        reference_w, _, ds = _filtered_ensembles(path, n_les, system["filter"])
        reference = field_statistics(reference_w, box, edges, n_sigma=online["tail_sigma"])
        problem = les_problem(system, setups[case], online["time_step"],
                              spinup_time + run_time, record_interval)  # fmt: skip
        fitted, meta = load_les_closure(checkpoint, expect={"closure": closure})
        starts = reference_w[:, 0]  # (members, n, n)
        log.info("%s %s: %d LES of %g time units", closure, case, len(starts), problem.t_final)
        run = run_les(starts, problem, fitted, blowup_threshold=online["blowup_threshold"],
                      device="cpu")  # fmt: skip
        spin = whole_steps(spinup_time, record_interval, what="truth.spinup_time")
        records = run.vorticity[:, spin + 1 :].numpy()  # (members, records, n, n)
        kept = records[~run.blown_up]  # a blown-up run's states before detection count neither
        stats = field_statistics(kept, box, edges, n_sigma=online["tail_sigma"])
        scores = a_posteriori_scores(stats, reference, kept, k_max=k_max,
                                     n_sigma=online["tail_sigma"])  # fmt: skip
        # the run stops once every member has blown up: time actually simulated
        simulated = problem.t_final if not run.blown_up.all() else np.nanmax(run.blowup_time)
        per_member_time = run.wall_time / (len(starts) * simulated)
        cost_ratio = per_member_time / float(ds.attrs["wall_s_per_member_time"])
        rows.append({"closure": closure, "label": meta["label"], "case": case, **scores,
                     "blowups": run.n_blowups, "cost_ratio": cost_ratio, "members": len(starts),
                     "reference_tail_mass": float(reference["tail_mass"])})  # fmt: skip
        log.info("%s %s: %s, %d/%d blew up, cost ratio %.3g", closure, case, scores,
                 run.n_blowups, len(starts), cost_ratio)  # fmt: skip
        times = spinup_time + record_interval * np.arange(1, records.shape[1] + 1)
        curve_list.append(_case_curves(stats, reference, records, box))
        curve_list[-1]["blowup_time"] = run.blowup_time
        curve_list[-1]["sigma_truth"] = float(reference["sigma"])
    cases = list(climates)
    grid = np.arange(n_les) / n_les * box
    out = _curves_dataset(cases, curve_list, edges=edges, times=times, grid=grid)
    out["blowup_time"] = (("case", "member"), np.stack([c["blowup_time"] for c in curve_list]))
    out.attrs.update(label=meta["label"], closure=closure, kind=meta["kind"], k_max=k_max,
                     tail_sigma=float(online["tail_sigma"]))  # fmt: skip
    write_scores(rows, out, metrics=metrics, curves=curves, title=f"LES runs with {closure}",
                 rule="online", params={"online": dict(online)},
                 input_files=[checkpoint, *climates.values()])  # fmt: skip


def run_truth_floor_turbulence(
    *, climates: Mapping[str, str], system: Mapping[str, Any], online: Mapping[str, Any],
    metrics: str, curves: str,
) -> None:  # fmt: skip
    """The noise floor: the second DNS ensemble, filtered, scored against the reference one.

    The curves also keep the truth statistics of the unfiltered reference DNS (``dns_*``:
    spectra on the DNS's shells, PDF, standard deviation and tail mass) and one DNS snapshot
    with its filtered field, for the figures.
    """
    n_les, box = system["les_resolution"], system["box_size"]
    k_max, edges = advected_shells(n_les), histogram_edges(online["pdf"])
    rows, curve_list, dns, filtered, dns_stats = [], [], [], [], []
    for case, path in climates.items():
        reference_w, second, ds = _filtered_ensembles(path, n_les, system["filter"])
        reference = field_statistics(reference_w, box, edges, n_sigma=online["tail_sigma"])
        stats = field_statistics(second, box, edges, n_sigma=online["tail_sigma"])
        scores = a_posteriori_scores(stats, reference, second, k_max=k_max,
                                     n_sigma=online["tail_sigma"])  # fmt: skip
        rows.append({"closure": "truth", "label": "DNS (second ensemble)", "case": case, **scores,
                     "blowups": 0, "cost_ratio": 1.0, "members": len(second),
                     "reference_tail_mass": float(reference["tail_mass"])})  # fmt: skip
        times = ds["time"].to_numpy()
        curve_list.append(_case_curves(stats, reference, second, box))
        curve_list[-1]["blowup_time"] = np.full(len(second), np.nan)
        curve_list[-1]["sigma_truth"] = float(reference["sigma"])
        dns.append(ds["w"].isel(member=0, time=-1).transpose("x", "y").to_numpy())
        filtered.append(reference_w[0, -1])
        members = ds.isel(member=ds["ensemble"].to_numpy() == 0)
        dns_stats.append(truth_statistics(members, edges=edges, n_sigma=online["tail_sigma"]))
    grid = np.arange(n_les) / n_les * box
    out = _curves_dataset(list(climates), curve_list, edges=edges, times=times, grid=grid)
    out["blowup_time"] = (("case", "member"), np.stack([c["blowup_time"] for c in curve_list]))
    out["w_dns"] = (("case", "x_dns", "y_dns"), np.stack(dns))
    out["w_filtered"] = (("case", "x", "y"), np.stack(filtered))
    out = out.assign_coords(x_dns=ds["x"].to_numpy(), y_dns=ds["y"].to_numpy())
    for name in ("enstrophy_spectrum", "energy_spectrum", "pdf", "sigma", "tail_mass"):
        dims = {"pdf": ("bin",), "sigma": (), "tail_mass": ()}.get(name, ("shell_dns",))
        out[f"dns_{name}"] = (("case", *dims), np.stack([st[name].to_numpy() for st in dns_stats]))
    out.attrs.update(label="DNS (second ensemble)", closure="truth", kind="truth", k_max=k_max,
                     tail_sigma=float(online["tail_sigma"]))  # fmt: skip
    write_scores(rows, out, metrics=metrics, curves=curves, title="DNS noise floor",
                 rule="online", params={"online": dict(online)},
                 input_files=list(climates.values()))  # fmt: skip


def run_closure_tables_turbulence(
    *, offline: Sequence[str], online: Sequence[str], outputs: Mapping[str, str],
    online_settings: Mapping[str, Any],
) -> None:  # fmt: skip
    """The offline (``Pi`` correlation) and online (a posteriori) tables of 2-D turbulence."""
    off = [pd.read_csv(p) for p in offline]
    on = [pd.read_csv(p) for p in online]
    write_table(
        closure_table(off, OFFLINE_COLUMNS, setup="case"), outputs["offline_csv"],
        outputs["offline_md"],
        caption="Offline skill on each case's test block of filtered DNS: Pearson correlation "
        "of the closure's subgrid term with the exact Pi over all grid points, both kept on "
        "the modes the LES advects (the only part of Pi the LES uses), and its RMSE "
        "(1/time^2). Closures were fitted (CNN, SMARL) at the training case only; the "
        "unclosed LES predicts Pi = 0 (no correlation).",
    )  # fmt: skip
    members = int(max(f["members"].max() for f in on))
    reference_tails = pd.concat(on).drop_duplicates("case").set_index("case")
    tails = ", ".join(f"{case} {mass:.2g}" for case, mass in
                      reference_tails["reference_tail_mass"].items())  # fmt: skip
    pdf = online_settings["pdf"]
    caption = (
        f"A posteriori: {members} LES per case on the LES grid, each from a filtered "
        "reference-DNS state, scored against the filtered reference DNS; `truth` scores a "
        "second, independent DNS ensemble filtered alike (the noise floor). Spectrum log "
        "errors: mean over the advected shells 1..k_max of |ln(E / E_DNS)|; pdf_hellinger on "
        f"{pdf['bins']} bins over [{pdf['low']:g}, {pdf['high']:g}] (1/time); tail_ratio: mass "
        f"beyond {online_settings['tail_sigma']:g} sigma of the reference over the reference's "
        f"(1 = matching tails; the reference's tail mass: {tails}, so a small one makes the "
        "ratio coarse); blowups: runs that left |w| <= "
        f"{online_settings['blowup_threshold']:g}. Every other score is over the runs that "
        "did not blow up (conditional on survival: a closure that blows up often is scored "
        "on its survivors only); cost_ratio: wall time per member and simulated time unit "
        "against the DNS's, both measured here."
    )
    write_table(closure_table(on, ONLINE_COLUMNS, setup="case"), outputs["online_csv"],
                outputs["online_md"], caption=caption)  # fmt: skip


def run_plot_closures_turbulence2d(
    *, offline: Sequence[str], online: Sequence[str], table: str, outputs: Mapping[str, str],
    title: str, training_setup: str, setups: Mapping[str, float],
) -> None:  # fmt: skip
    """Every figure of a 2-D turbulence closure study from the evaluated curves and table."""
    from pderepro.plotting.turbulence import plot_turbulence_figures

    plot_turbulence_figures(
        [open_netcdf(p) for p in offline], [open_netcdf(p) for p in online], pd.read_csv(table),
        outputs, title=title, training_setup=training_setup, setups=setups,
    )  # fmt: skip
