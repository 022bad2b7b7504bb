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
  (:mod:`pderepro.solvers.turbulence.les`), the closure target the exact subgrid term ``Pi``.
- ``shallow_water1d``: forced 1-D shallow water (:mod:`pderepro.data.shallow_water_truth`);
  the truth is the fine finite-volume run, the coarse model the same scheme on
  ``system.coarse_resolution`` cells, the closure target the exact sub-grid face flux
  (:mod:`pderepro.solvers.shallow_water.coarse`); the setup's value is the forcing
  amplitude.

Each system's own functions (config checks, stage settings, captions, step costs) are in
:mod:`pderepro.data.closure_system_settings`.

Kept free of heavy imports: Snakemake imports it to build the DAG and size the jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pderepro.data.closure_system_settings import (
    lorenz96_caption,
    lorenz96_checks,
    lorenz96_fit,
    lorenz96_online,
    online_settings,
    shallow_water_caption,
    shallow_water_checks,
    shallow_water_step_seconds,
    turbulence_caption,
    turbulence_checks,
    turbulence_fit,
    turbulence_online,
    turbulence_step_seconds,
)

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
    resumable_truth : bool
        Whether the truth stage runs in resumable segments (``resume``, ``stop_step`` and
        ``state``), so that a run longer than a cluster job is cut
        (:mod:`pderepro.studies.truth_segments`).
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
    resumable_truth: bool = False

    @property
    def schema_path(self) -> Path:
        """The JSON-schema fragment (YAML) of this system's config."""
        return SCHEMA_DIR / f"{self.solver}.yaml"


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
        checks=lorenz96_checks,
        uses_forecasts=True,
        fit_params=lorenz96_fit,
        online_params=lorenz96_online,
        floor_params=lambda study: {"online": study["online"]},
        online_caption=lorenz96_caption,
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
        truth_s_per_step=turbulence_step_seconds,
        fit_s_per_state_epoch=5e-3,  # CNN closure, one 32^2 sample
        online_s_per_step=2e-2,  # CNN closure, a batch of 100 LES at 32^2
        setup_parameter="beta",
        figures=("spectra", "vorticity_pdfs", "rl_training", "vorticity_fields"),
        checks=turbulence_checks,
        fit_params=turbulence_fit,
        online_params=turbulence_online,
        floor_params=lambda study: {"online": study["online"], "system": study["system"]},
        online_caption=turbulence_caption,
        resumable_truth=True,  # the DNS: pderepro.data.dns_segments
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
        truth_s_per_step=shallow_water_step_seconds,
        fit_s_per_state_epoch=2e-4,  # the stencil network, one coarse state of 64 faces
        online_s_per_step=2e-3,  # the stencil network, a batch of 100 coarse runs
        setup_parameter="forcing_amplitude",
        figures=("sw_solutions", "sw_error_energy", "sw_out_of_regime", "sw_offline_fit"),
        checks=shallow_water_checks,
        fit_params=lambda study, closure: {
            "spec": study["closures"][closure],
            "training": study["training"],
            "system": study["system"],
            "seed": study["seed"],
        },  # fmt: skip
        online_params=lambda study: {"system": study["system"], "online": online_settings(study)},
        floor_params=lambda study: {"online": study["online"], "system": study["system"]},
        online_caption=shallow_water_caption,
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
