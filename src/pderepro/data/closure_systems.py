"""Closure systems: the truth systems that closure studies coarse-grain, one spec each.

A closure study (:mod:`pderepro.studies.closures`) runs a truth system in several
*setups* (values of its control parameter, e.g. the Lorenz-96 forcing F), saves truth
runs in two *roles* (``pairs``: the full state, for coarse-graining into closure training
pairs; ``climate``: two ensembles of the resolved state, the reference climate and the
truth-vs-truth noise floor), fits closures of the coarse model and scores them. What
differs between systems (the state sizes, the closure families the coarse model can
take, the coarse-graining's parameters and the costs) is a :class:`ClosureSystemSpec`,
registered once in :data:`CLOSURE_SYSTEMS` and selected by ``system.solver``.

Kept free of heavy imports: Snakemake imports it to build the DAG and size the jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).parent / "schemas"

#: Truth-run roles: "pairs" keep the full state for coarse-graining, "climate" two
#: ensembles of the resolved state only.
ROLES = ("pairs", "climate")


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
        ``system -> dict``: the system parameters its coarse-graining needs.
    truth_s_per_step : float
        Truth run time per trajectory and time step on one core (s), measured.
    fit_s_per_state_epoch : float
        Network closure fitting time per training state and epoch on one core (s).
    online_s_per_step : float
        Coarse-model time per step of a batch of up to 100 runs with the costliest
        closure (s).
    """

    solver: str
    closure_families: tuple[str, ...]
    state_values: Callable[[Mapping[str, Any], str], int]
    coarse_values: Callable[[Mapping[str, Any]], int]
    coarse_grain_params: Callable[[Mapping[str, Any]], dict[str, Any]]
    truth_s_per_step: float
    fit_s_per_state_epoch: float
    online_s_per_step: float

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
        # the subgrid tendency -(h c / b) sum_j Y
        coarse_grain_params=lambda system: {"coupling": system["h"] * system["c"] / system["b"]},
        truth_s_per_step=5e-6,  # numba RK4, one trajectory
        fit_s_per_state_epoch=6e-5,  # FNO closure, one training ring
        online_s_per_step=2e-3,  # FNO closure, a batch of 100 runs
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
