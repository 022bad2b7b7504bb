"""Closure systems: the truth systems that closure studies coarse-grain, one spec each.

A closure study (:mod:`pderepro.studies.closures`) runs a truth system in several
*setups* (values of its control parameter: the Lorenz-96 forcing F, the beta of forced
2-D turbulence), saves truth
runs in two *roles* (``pairs``: the full state, for coarse-graining into closure training
pairs; ``climate``: two ensembles of the resolved state, the reference climate and the
truth-vs-truth noise floor), fits closures of the coarse model and scores them. What
differs between systems (the state sizes, the closure families the coarse model can
take, the coarse-graining's parameters, the figures, the config checks and the costs) is a
:class:`ClosureSystemSpec`, registered once in :data:`CLOSURE_SYSTEMS` and selected by
``system.solver``. Systems:

- ``lorenz96``: the two-scale Lorenz-96 model; the coarse model is the X-only RK4 model.
- ``turbulence2d``: forced 2-D turbulence (:mod:`pderepro.data.turbulence`); the truth is
  the DNS, the coarse model the LES on ``system.les_resolution`` points per side
  (:mod:`pderepro.solvers.les`), the closure target the exact subgrid term ``Pi``.
- ``shallow_water1d``: forced 1-D shallow water (:mod:`pderepro.data.shallow_water_truth`);
  the truth is the fine finite-volume run, the coarse model the same scheme on
  ``system.coarse_resolution`` cells, the closure target the exact sub-grid face flux
  (:mod:`pderepro.solvers.shallow_water_coarse`); the setup's value is the forcing
  amplitude.

Kept free of heavy imports: Snakemake imports it to build the DAG and size the jobs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_DIR = Path(__file__).parent / "schemas"

#: Truth-run roles: "pairs" keep the full state for coarse-graining, "climate" two
#: ensembles of the resolved state only.
ROLES = ("pairs", "climate")
#: Splits of the coarse-grained pairs (contiguous time blocks, in this order).
SPLITS = ("train", "validation", "test")


def truth_run_size(truth: Mapping[str, Any], role: str) -> tuple[int, float, float]:
    """Trajectories, recorded length and save interval (time units) of a truth run.

    Parameters
    ----------
    truth : mapping
        The study's ``truth`` settings.
    role : str
        ``pairs`` (one run of ``pair_trajectories``) or ``climate`` (two ensembles of
        ``climate_members``: the reference and the noise floor).
    """
    if role == "pairs":
        return truth["pair_trajectories"], truth["pair_time"], truth["save_interval"]
    if role == "climate":
        members = 2 * truth["climate_members"]
        return members, truth["climate_time"], truth["climate_save_interval"]
    raise ValueError(f"unknown truth role {role!r}; expected one of {ROLES}")


def truth_seed(base_seed: int, role: str, setup_value: float) -> int:
    """Seed of one truth run, distinct per role and setup (the setup's parameter value)."""
    entropy = [base_seed, ROLES.index(role), round(1000 * setup_value)]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class ClosureSystemSpec:
    """What the workflow knows about one truth system of closure studies.

    Attributes
    ----------
    solver : str
        ``system.solver`` in a study config.
    closure_families : tuple of str
        Closure ``kind`` values its coarse model takes (the no-closure model included).
    state_values : callable
        ``(system, role) -> int``: float32 values of one saved truth state of a role
        (pairs: the full state; climate: the resolved state).
    coarse_values : callable
        ``system -> int``: values of one coarse (resolved) state.
    coarse_grain_params : callable
        ``study -> dict``: the settings its coarse-graining needs (besides the split).
    truth_s_per_step : callable
        ``system -> float``: truth run time per trajectory and time step on one core (s),
        measured.
    fit_s_per_state_epoch : float
        Network closure fitting time per training state and epoch on one core (s).
    online_s_per_step : float
        Coarse-model time per step of a batch of up to 100 runs with the costliest
        closure (s).
    setup_parameter : str
        What a setup's value is (the keyword under which the truth stage receives it).
    figures : tuple of str
        Figures (``results/<study>/figures/<name>.png``) of the system's plot rule.
    checks : callable
        ``(where, study) -> None``: the system's own consistency checks of a study
        (time steps that must divide one another, required sections); raises
        :class:`ValueError` with the offending key.
    uses_forecasts : bool
        Whether the online stage runs the ``forecast`` experiment (then required).
    seeded_families : tuple of str
        Closure families that may be fitted from several seeds (a closure's ``seeds``):
        the online scores are then the seeds' mean and spread.
    fit_params, online_params, floor_params : callable
        ``(study, closure) -> dict``, ``study -> dict``, ``study -> dict``: the settings the
        system's ``fit_closure``, ``evaluate_online`` and ``truth_floor`` stages take.
    online_caption : callable
        ``study -> str``: what the online table measures, for the summary and the report.
    """

    solver: str
    closure_families: tuple[str, ...]
    state_values: Callable[[Mapping[str, Any], str], int]
    coarse_values: Callable[[Mapping[str, Any]], int]
    coarse_grain_params: Callable[[Mapping[str, Any]], dict[str, Any]]  # study -> settings
    truth_s_per_step: Callable[[Mapping[str, Any]], float]
    fit_s_per_state_epoch: float
    online_s_per_step: float
    setup_parameter: str
    figures: tuple[str, ...]
    fit_params: Callable[[Mapping[str, Any], str], dict[str, Any]]
    online_params: Callable[[Mapping[str, Any]], dict[str, Any]]
    floor_params: Callable[[Mapping[str, Any]], dict[str, Any]]
    online_caption: Callable[[Mapping[str, Any]], str]
    checks: Callable[[str, Mapping[str, Any]], None] = field(default=lambda where, study: None)
    uses_forecasts: bool = False
    seeded_families: tuple[str, ...] = ()

    @property
    def schema_path(self) -> Path:
        """The JSON-schema fragment (YAML) of this system's config."""
        return SCHEMA_DIR / f"{self.solver}.yaml"


def _multiple(value: float, step: float) -> bool:
    n = round(value / step)
    return n >= 1 and math.isclose(n * step, value, rel_tol=1e-9)


def _check_multiples(where: str, checks: list[tuple[str, float, float]]) -> None:
    for key, value, step in checks:
        if not _multiple(value, step):
            raise ValueError(f"config key '{where}.{key}': {value} is not a multiple of {step}")


def _lorenz96_checks(where: str, study: Mapping[str, Any]) -> None:
    """Lorenz-96: every interval a whole number of the step below it; lags within runs."""
    truth, coarse = study["truth"], study["coarse"]
    _check_multiples(where, [
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


def _turbulence_checks(where: str, study: Mapping[str, Any]) -> None:
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
    if coarse["target"] != "subgrid":
        raise ValueError(f"config key '{where}.coarse.target': must be subgrid (the exact Pi)")
    if "smarl" in (c["kind"] for c in study["closures"].values()) and "smarl" not in study:
        raise ValueError(f"config key '{where}.smarl': required by a closure of kind smarl")
    if "smarl" in study:
        smarl = study["smarl"]
        if n_les % smarl["agents_per_side"]:
            raise ValueError(
                f"config key '{where}.smarl.agents_per_side': {smarl['agents_per_side']} does "
                f"not divide the LES grid's {n_les} points per side"
            )
        _check_multiples(where, [
            ("smarl.action_interval", smarl["action_interval"], coarse["time_step"]),
            ("smarl.episode_time", smarl["episode_time"], smarl["action_interval"]),
        ])  # fmt: skip
    _check_multiples(where, [
        (f"truth.{key}", truth[key], system["time_step"])
        for key in ("spinup_time", "save_interval", "climate_save_interval")
    ] + [
        ("truth.pair_time", truth["pair_time"], truth["save_interval"]),
        ("truth.climate_time", truth["climate_time"], truth["climate_save_interval"]),
        ("truth.spinup_time", truth["spinup_time"], truth["climate_save_interval"]),
        ("coarse.time_step", truth["climate_save_interval"], coarse["time_step"]),
    ])  # fmt: skip


def _turbulence_step_seconds(system: Mapping[str, Any]) -> float:
    # AB2/CN float64 at 256^2: 0.89 ms per member and step in a batch of 4 on one free core
    # (the quick climate runs of 2026-12-04; 2.4 ms on a loaded one); FFT work grows as
    # n^2 log n
    n = system["resolution"]
    return 1.0e-3 * (n / 256) ** 2 * math.log(n) / math.log(256)


def _online_settings(study: Mapping[str, Any]) -> dict[str, Any]:
    return {**study["online"], "time_step": study["coarse"]["time_step"]}


def _lorenz96_fit(study: Mapping[str, Any], closure: str) -> dict[str, Any]:
    return {"spec": study["closures"][closure], "target": study["coarse"]["target"],
            "training": study["training"]}  # fmt: skip


def _lorenz96_online(study: Mapping[str, Any]) -> dict[str, Any]:
    return {"setups": study["setups"], "online": _online_settings(study),
            "forecast": study["forecast"], "spinup_time": study["truth"]["spinup_time"],
            "seed": study["seed"]}  # fmt: skip


def _lorenz96_caption(study: Mapping[str, Any]) -> str:
    truth = study["truth"]
    return (
        "Online skill of the coarse model with each closure in every setup: climate "
        "distance to the truth (Hellinger, KL, Wasserstein-1), autocorrelation error, "
        "forecast RMSE and blow-ups; the row 'truth' is a second truth ensemble, the "
        f"noise floor. {truth['climate_members']} members x {truth['climate_time']:g} "
        "time units per setup."
    )


def _turbulence_fit(study: Mapping[str, Any], closure: str) -> dict[str, Any]:
    # the target is always the exact Pi; SMARL's episodes end where the online runs blow up
    return {"spec": study["closures"][closure], "training": study["training"],
            "system": study["system"], "les_time_step": study["coarse"]["time_step"],
            "smarl": study.get("smarl"), "seed": study["seed"],
            "blowup_threshold": study["online"]["blowup_threshold"]}  # fmt: skip


def _turbulence_online(study: Mapping[str, Any]) -> dict[str, Any]:
    truth = study["truth"]
    return {"system": study["system"], "setups": study["setups"],
            "online": _online_settings(study), "spinup_time": truth["spinup_time"],
            "run_time": truth["climate_time"],
            "record_interval": truth["climate_save_interval"]}  # fmt: skip


def _turbulence_caption(study: Mapping[str, Any]) -> str:
    truth = study["truth"]
    return (
        "A posteriori skill of the LES with each closure in every case: log errors of the "
        "enstrophy and energy spectra over the advected shells and the Hellinger distance of "
        "the vorticity PDF against the filtered DNS (its modes the LES advects), tail mass "
        f"beyond {study['online']['tail_sigma']:g} sigma relative to the DNS's, blow-ups, and "
        "cost per simulated time unit relative to the DNS; the row 'truth' is a second DNS "
        f"ensemble, the noise floor. {truth['climate_members']} LES runs x "
        f"{truth['climate_time']:g} time units per case. Every score but blow-ups is over "
        "the runs that did not blow up: conditional on survival."
    )


def _shallow_water_checks(where: str, study: Mapping[str, Any]) -> None:
    """Shallow water: whole coarse cells of fine ones, every interval whole coarse steps, the
    coarse model steps as the truth kicks, the target is the exact sub-grid flux."""
    system, truth, coarse = study["system"], study["truth"], study["coarse"]
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
    if coarse["target"] != "subgrid":
        raise ValueError(f"config key '{where}.coarse.target': must be subgrid (the exact flux)")
    _check_multiples(where, [
        (f"truth.{key}", truth[key], system["time_step"])
        for key in ("save_interval", "climate_save_interval", "spinup_time")
    ] + [
        ("truth.pair_time", truth["pair_time"], truth["save_interval"]),
        ("truth.climate_time", truth["climate_time"], truth["climate_save_interval"]),
    ])  # fmt: skip


def _shallow_water_step_seconds(system: Mapping[str, Any]) -> float:
    # one coarse step of one member: about 4-5 CFL sub-steps of the fine run; 3.5e-4 s at 512
    # cells in a batch of 4 on one core (2026-12-06); sub-steps and their cost grow with n
    return 3.5e-4 * (system["resolution"] / 512) ** 2


def _shallow_water_caption(study: Mapping[str, Any]) -> str:
    truth = study["truth"]
    return (
        "Online skill of the coarse scheme with each sub-grid flux closure in every setup: "
        "errors of depth and discharge against the filtered fine run, record by record, "
        "available-energy bias, shock positions, mass drift and blow-ups; the row 'truth' is "
        "a second fine ensemble started with the sub-grid detail dropped, the noise floor. "
        f"{truth['climate_members']} runs x {truth['climate_time']:g} time units per setup."
    )


#: Every closure system's spec, by ``system.solver``.
CLOSURE_SYSTEMS: dict[str, ClosureSystemSpec] = {
    "lorenz96": ClosureSystemSpec(
        solver="lorenz96",
        closure_families=("none", "polynomial", "mlp", "fno"),
        # pairs keep X and Y (K (J + 1) values), climate runs X only
        state_values=lambda system, role: system["K"] * (system["J"] + 1 if role == "pairs" else 1),
        coarse_values=lambda system: system["K"],
        # the coarse step, and the subgrid tendency's coupling -(h c / b) sum_j Y
        coarse_grain_params=lambda study: {
            "coarse_step": study["coarse"]["time_step"],
            "coupling": study["system"]["h"] * study["system"]["c"] / study["system"]["b"],
        },  # fmt: skip
        truth_s_per_step=lambda system: 5e-6,  # numba RK4, one trajectory
        fit_s_per_state_epoch=6e-5,  # FNO closure, one training ring
        online_s_per_step=2e-3,  # FNO closure, a batch of 100 runs
        setup_parameter="forcing",
        figures=(
            "climate_pdfs",
            "autocorrelation",
            "forecast_skill",
            "offline_fit",
            "extrapolation",
        ),  # fmt: skip
        checks=_lorenz96_checks,
        uses_forecasts=True,
        fit_params=_lorenz96_fit,
        online_params=_lorenz96_online,
        floor_params=lambda study: {"online": study["online"]},
        online_caption=_lorenz96_caption,
    ),
    "turbulence2d": ClosureSystemSpec(
        solver="turbulence2d",
        closure_families=("none", "smagorinsky", "leith", "dynamic_smagorinsky", "cnn", "smarl"),
        # both roles keep the DNS vorticity; the coarse state is the LES vorticity
        state_values=lambda system, role: system["resolution"] ** 2,
        coarse_values=lambda system: system["les_resolution"] ** 2,
        # the pairs are snapshots: the LES grid and filter, no step
        coarse_grain_params=lambda study: {
            "les_resolution": study["system"]["les_resolution"],
            "filter": study["system"]["filter"],
        },  # fmt: skip
        truth_s_per_step=_turbulence_step_seconds,
        fit_s_per_state_epoch=5e-3,  # CNN closure, one 32^2 sample
        online_s_per_step=2e-2,  # CNN closure, a batch of 100 LES at 32^2
        setup_parameter="beta",
        figures=("spectra", "vorticity_pdfs", "rl_training", "vorticity_fields"),
        checks=_turbulence_checks,
        fit_params=_turbulence_fit,
        online_params=_turbulence_online,
        floor_params=lambda study: {"online": study["online"], "system": study["system"]},
        online_caption=_turbulence_caption,
    ),
    "shallow_water1d": ClosureSystemSpec(
        solver="shallow_water1d",
        closure_families=("none", "diffusion", "stencil_mlp"),
        # float64 coarse states (and, for pairs, the coarse-face fluxes: the exact correction
        # is their difference), counted in float32 values
        state_values=lambda system, role: (
            system["coarse_resolution"] * (8 if role == "pairs" else 4)
        ),
        coarse_values=lambda system: 2 * system["coarse_resolution"],
        coarse_grain_params=lambda study: {"system": study["system"]},
        truth_s_per_step=_shallow_water_step_seconds,
        fit_s_per_state_epoch=2e-4,  # the stencil network, one coarse state of 64 faces
        online_s_per_step=2e-3,  # the stencil network, a batch of 100 coarse runs
        setup_parameter="forcing_amplitude",
        figures=("sw_solutions", "sw_error_energy", "sw_out_of_regime", "sw_offline_fit"),
        checks=_shallow_water_checks,
        fit_params=lambda study, closure: {
            "spec": study["closures"][closure],
            "training": study["training"],
            "system": study["system"],
            "seed": study["seed"],
        },  # fmt: skip
        online_params=lambda study: {"system": study["system"], "online": _online_settings(study)},
        floor_params=lambda study: {"online": study["online"], "system": study["system"]},
        online_caption=_shallow_water_caption,
        seeded_families=("stencil_mlp",),
    ),
}


def closure_system(solver: str) -> ClosureSystemSpec:
    """The spec of ``solver``; a ValueError names the known ones."""
    try:
        return CLOSURE_SYSTEMS[solver]
    except KeyError:
        raise ValueError(
            f"unknown closure system {solver!r}; registered: {sorted(CLOSURE_SYSTEMS)}"
        ) from None
