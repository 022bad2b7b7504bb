"""Each closure system's own settings: its config checks, the settings its stages take, the
caption of its online table and its measured step costs (used by the specs in
:mod:`pderepro.data.closure_systems`).

Kept free of heavy imports: Snakemake imports it to build the DAG and size the jobs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def multiple(value: float, step: float) -> bool:
    n = round(value / step)
    return n >= 1 and math.isclose(n * step, value, rel_tol=1e-9)


def check_multiples(where: str, checks: list[tuple[str, float, float]]) -> None:
    for key, value, step in checks:
        if not multiple(value, step):
            raise ValueError(f"config key '{where}.{key}': {value} is not a multiple of {step}")


def _subgrid_truth_checks(
    where: str, study: Mapping[str, Any], exact: str, more: list[tuple[str, float, float]]
) -> None:
    """A system whose coarse model learns the exact sub-grid term (``exact`` names it): the
    target is ``subgrid``; the truth's spin-up and save intervals are whole steps of the
    system, its pair and climate times whole (climate) save intervals, and ``more`` holds."""
    system, truth = study["system"], study["truth"]
    if study["coarse"]["target"] != "subgrid":
        raise ValueError(f"config key '{where}.coarse.target': must be subgrid (the exact {exact})")
    check_multiples(where, [
        (f"truth.{key}", truth[key], system["time_step"])
        for key in ("spinup_time", "save_interval", "climate_save_interval")
    ] + [
        ("truth.pair_time", truth["pair_time"], truth["save_interval"]),
        ("truth.climate_time", truth["climate_time"], truth["climate_save_interval"]),
        *more,
    ])  # fmt: skip


def lorenz96_checks(where: str, study: Mapping[str, Any]) -> None:
    """Lorenz-96: every interval a whole number of the step below it; lags within runs."""
    truth, coarse = study["truth"], study["coarse"]
    check_multiples(where, [
        ("truth.save_interval", truth["save_interval"], study["system"]["time_step"]),
        ("coarse.time_step", coarse["time_step"], truth["save_interval"]),
        ("truth.climate_save_interval", truth["climate_save_interval"], coarse["time_step"]),
        ("truth.spinup_time", truth["spinup_time"], truth["climate_save_interval"]),
        ("truth.climate_time", truth["climate_time"], truth["climate_save_interval"]),
        ("truth.pair_time", truth["pair_time"], truth["save_interval"]),
        ("forecast.lead_time", study["forecast"]["lead_time"], truth["climate_save_interval"]),
        ("online.acf_max_lag", study["online"]["acf_max_lag"], truth["climate_save_interval"]),
    ])  # fmt: skip
    if study["online"]["acf_max_lag"] >= truth["climate_time"]:
        raise ValueError(
            f"config key '{where}.online.acf_max_lag': must be shorter than truth.climate_time"
        )


def turbulence_checks(where: str, study: Mapping[str, Any]) -> None:
    """2-D turbulence: DNS and LES steps divide the snapshot intervals; the LES grid is
    even, coarser than the DNS and advects the forcing; the target is the exact ``Pi``."""
    system, truth, coarse = study["system"], study["truth"], study["coarse"]
    n, n_les, k_f = system["resolution"], system["les_resolution"], system["forcing_wavenumber"]
    if n_les % 2 or n_les >= n:
        raise ValueError(
            f"config key '{where}.system.les_resolution': {n_les} must be even and below the "
            f"DNS resolution {n}"
        )
    if 3 * k_f >= n_les:
        raise ValueError(
            f"config key '{where}.system.forcing_wavenumber': k_f = {k_f} is not among the "
            f"modes an LES of {n_les}^2 advects (k_f < n_les / 3)"
        )
    if "smarl" in (c["kind"] for c in study["closures"].values()) and "smarl" not in study:
        raise ValueError(f"config key '{where}.smarl': required by a closure of kind smarl")
    if "smarl" in study:
        smarl = study["smarl"]
        if n_les % smarl["agents_per_side"]:
            raise ValueError(
                f"config key '{where}.smarl.agents_per_side': {smarl['agents_per_side']} does "
                f"not divide the LES grid's {n_les} points per side"
            )
        check_multiples(where, [
            ("smarl.action_interval", smarl["action_interval"], coarse["time_step"]),
            ("smarl.episode_time", smarl["episode_time"], smarl["action_interval"]),
        ])  # fmt: skip
    _subgrid_truth_checks(where, study, "Pi", [
        ("truth.spinup_time", truth["spinup_time"], truth["climate_save_interval"]),
        ("coarse.time_step", truth["climate_save_interval"], coarse["time_step"]),
    ])  # fmt: skip


def turbulence_step_seconds(system: Mapping[str, Any]) -> float:
    # AB2/CN float64 at 256^2: 0.89 ms per member and step in a batch of 4 on one free core
    # (the quick climate runs of 2026-12-04; 2.4 ms on a loaded one); FFT work grows as
    # n^2 log n
    n = system["resolution"]
    return 1.0e-3 * (n / 256) ** 2 * math.log(n) / math.log(256)


def online_settings(study: Mapping[str, Any]) -> dict[str, Any]:
    return {**study["online"], "time_step": study["coarse"]["time_step"]}


def lorenz96_fit(study: Mapping[str, Any], closure: str) -> dict[str, Any]:
    return {"spec": study["closures"][closure], "target": study["coarse"]["target"],
            "training": study["training"]}  # fmt: skip


def lorenz96_online(study: Mapping[str, Any]) -> dict[str, Any]:
    return {"setups": study["setups"], "online": online_settings(study),
            "forecast": study["forecast"], "spinup_time": study["truth"]["spinup_time"],
            "seed": study["seed"]}  # fmt: skip


def _caption(
    study: Mapping[str, Any], scores: str, floor: str, runs: str, per: str = "setup"
) -> str:
    """An online table's caption: what it ``scores``, the second ensemble that is its
    noise ``floor``, and how many ``runs`` of how long ``per`` setup (or case)."""
    truth = study["truth"]
    return (
        f"{scores}; the row 'truth' is a second {floor}, the noise floor. "
        f"{truth['climate_members']} {runs} x {truth['climate_time']:g} time units per {per}."
    )


def lorenz96_caption(study: Mapping[str, Any]) -> str:
    return _caption(
        study,
        "Online skill of the coarse model with each closure in every setup: climate "
        "distance to the truth (Hellinger, KL, Wasserstein-1), autocorrelation error, "
        "forecast RMSE and blow-ups",
        "truth ensemble",
        "members",
    )


def turbulence_fit(study: Mapping[str, Any], closure: str) -> dict[str, Any]:
    # the target is always the exact Pi; SMARL's episodes end where the online runs blow up
    return {"spec": study["closures"][closure], "training": study["training"],
            "system": study["system"], "les_time_step": study["coarse"]["time_step"],
            "smarl": study.get("smarl"), "seed": study["seed"],
            "blowup_threshold": study["online"]["blowup_threshold"]}  # fmt: skip


def turbulence_online(study: Mapping[str, Any]) -> dict[str, Any]:
    truth = study["truth"]
    return {"system": study["system"], "setups": study["setups"],
            "online": online_settings(study), "spinup_time": truth["spinup_time"],
            "run_time": truth["climate_time"],
            "record_interval": truth["climate_save_interval"]}  # fmt: skip


def turbulence_caption(study: Mapping[str, Any]) -> str:
    scores = (
        "A posteriori skill of the LES with each closure in every case: log errors of the "
        "enstrophy and energy spectra over the advected shells and the Hellinger distance of "
        "the vorticity PDF against the filtered DNS (its modes the LES advects), tail mass "
        f"beyond {study['online']['tail_sigma']:g} sigma relative to the DNS's, blow-ups, and "
        "cost per simulated time unit relative to the DNS"
    )
    return _caption(study, scores, "DNS ensemble", "LES runs", "case") + (
        " Every score but blow-ups is over the runs that did not blow up: conditional on survival."
    )


def shallow_water_checks(where: str, study: Mapping[str, Any]) -> None:
    """Shallow water: whole coarse cells of fine ones, every interval whole coarse steps, the
    coarse model steps as the truth kicks, the target is the exact sub-grid flux."""
    system, coarse = study["system"], study["coarse"]
    if system["resolution"] % system["coarse_resolution"] or (
        system["coarse_resolution"] >= system["resolution"]
    ):
        raise ValueError(
            f"config key '{where}.system.coarse_resolution': {system['coarse_resolution']} "
            f"must divide the fine resolution {system['resolution']} and be below it"
        )
    if not math.isclose(coarse["time_step"], system["time_step"], rel_tol=1e-12):
        raise ValueError(
            f"config key '{where}.coarse.time_step': {coarse['time_step']} must equal "
            f"system.time_step {system['time_step']} (the interval of the truth's flux averages)"
        )
    _subgrid_truth_checks(where, study, "flux", [])


def shallow_water_step_seconds(system: Mapping[str, Any]) -> float:
    # one coarse step of one member: about 4-5 CFL sub-steps of the fine run; 3.5e-4 s at 512
    # cells in a batch of 4 on one core (2026-12-06); sub-steps and their cost grow with n
    return 3.5e-4 * (system["resolution"] / 512) ** 2


def shallow_water_caption(study: Mapping[str, Any]) -> str:
    return _caption(
        study,
        "Online skill of the coarse scheme with each sub-grid flux closure in every setup: "
        "errors of depth and discharge against the filtered fine run, record by record, "
        "available-energy bias, shock positions, mass drift and blow-ups",
        "fine ensemble started with the sub-grid detail dropped",
        "runs",
    )
