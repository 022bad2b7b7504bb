"""Study kind ``closures``: learned closures of a coarse model of a truth system.

A closure study runs a truth system (a :class:`~pderepro.data.closure_systems.
ClosureSystemSpec`, selected by ``system.solver``) in several setups, coarse-grains the
training setup's truth into closure training pairs, fits each closure family, and scores
every closure offline (against held-out pairs) and online (coupled to the coarse model:
climate statistics, forecasts where the system has them, blow-ups) beside the
truth-vs-truth noise floor. The kind's rules are in ``workflow/rules/closures.smk``; the
functions below are their input functions and cost model. Nothing here depends on the
shape of the system's state: the system's spec gives its sizes, figures and checks, and
the stage functions that differ per system are chosen by ``system.solver``
(:func:`pderepro.stages.closure_stage`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.data.closure_systems import CLOSURE_SYSTEMS, ROLES, closure_system, truth_run_size
from pderepro.data.closure_systems import SPLITS as SPLITS  # the pairs' splits, for the rules
from pderepro.resources import BASE_MB, BYTES_PER_MB, runtime_minutes
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
)

#: Figures of each closure system's plot rule (``plot_closures_<solver>``).
SYSTEM_FIGURES = {solver: spec.figures for solver, spec in CLOSURE_SYSTEMS.items()}
#: The name under which the truth-vs-truth noise floor is scored like a closure.
FLOOR = "truth"
#: Coarse-model runs per batch beyond which a step's cost grows with the batch.
ONLINE_BATCH = 100


class ClosuresKind(StudyKind):
    name = "closures"
    schema_def = "closure_study"
    preset_keys = {
        "truth": {
            "spinup_time",
            "pair_trajectories",
            "pair_time",
            "climate_members",
            "climate_time",
        },
        "forecast": {"starts", "members", "lead_time"},
        "training": {"epochs", "checkpoint_every"},
        # grids and the viscosity they allow (2-D turbulence: the quick DNS is coarser)
        # (shallow water: the coarse grid and the step the finer paper grids need)
        "system": {"resolution", "viscosity", "time_step", "les_resolution", "coarse_resolution"},
        "coarse": {"time_step"},
        "smarl": {"timesteps", "batch"},
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        # "truth": the second truth ensemble, the noise floor of the online scores
        rows = {"closure": {*study["closures"], "truth"}, "setup": set(study["setups"]),
                "case": set(study["setups"])}  # fmt: skip
        return {"offline": rows, "online": rows}

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        if study["training_setup"] not in study["setups"]:
            raise ConfigError(
                f"config key '{where}.training_setup': {study['training_setup']!r} is not "
                f"one of the setups {sorted(study['setups'])}"
            )
        spec = closure_system(study["system"]["solver"])
        if spec.uses_forecasts and "forecast" not in study:
            raise ConfigError(f"config key '{where}.forecast': required by system {spec.solver!r}")
        try:
            spec.checks(where, study)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        pdf = study["online"]["pdf"]
        if pdf["low"] >= pdf["high"]:
            raise ConfigError(f"config key '{where}.online.pdf.low': must be below pdf.high")
        families = spec.closure_families
        for key, closure in study["closures"].items():
            if closure["kind"] not in families:
                raise ConfigError(
                    f"config key '{where}.closures.{key}.kind': {closure['kind']!r} is not a "
                    f"closure family of system {study['system']['solver']!r} ({list(families)})"
                )
            if closure.get("seeds", 1) > 1 and closure["kind"] not in spec.seeded_families:
                raise ConfigError(
                    f"config key '{where}.closures.{key}.seeds': system "
                    f"{study['system']['solver']!r} fits {closure['kind']!r} closures from one "
                    f"seed (several only for {list(spec.seeded_families) or 'none'})"
                )
            if closure.get("limited") and closure["kind"] == "none":
                raise ConfigError(
                    f"config key '{where}.closures.{key}.limited': a closure of kind none has "
                    "no flux to limit"
                )
            if (closure["kind"] == "polynomial") != ("degree" in closure):
                raise ConfigError(
                    f"config key '{where}.closures.{key}.degree': required for polynomial "
                    "closures and only for them"
                )

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, ["offline", "online"]) + figure_files(name, _figures(study))

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        truth, solver = study["truth"], study["system"]["solver"]
        sizes = (
            f"Ours: preset {preset}; closures fitted at {study['training_setup']} on "
            f"{truth['pair_trajectories']} x {truth['pair_time']:g} time units of truth, "
            f"{study['training']['epochs']} epochs (network closures)."
        )
        offline = f"Offline skill on held-out truth pairs in every setup. {sizes}"
        online = f"{closure_system(solver).online_caption(study)} {sizes}"
        return SummarySection(  # fitted and run on the CPU: no device line
            title=study["title"],
            tables=[f"results/{name}/tables/{t}.md" for t in ("offline", "online")],
            report_tables=[
                {"path": f"results/{name}/tables/offline.csv", "caption": offline},
                {"path": f"results/{name}/tables/online.csv", "caption": online},
            ],
            figures=[f"results/{name}/figures/{f}.png" for f in _figures(study)],
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        files = []
        for setup in study["setups"]:
            files += [
                BENCHMARKS["generate_truth"].format(study=name, setup=setup, role=role)
                for role in ROLES
            ]
            files.append(BENCHMARKS["coarse_grain"].format(study=name, setup=setup))
        return files + [
            BENCHMARKS[stage].format(study=name, closure=closure)
            for stage in ("fit_closure", "evaluate_online")
            for closure in study["closures"]
        ]

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        setups, closure_count = len(study["setups"]), len(study["closures"])
        return Counter(
            generate_truth=len(ROLES) * setups,
            coarse_grain=setups,
            fit_closure=closure_count,
            evaluate_offline=closure_count,
            evaluate_online=closure_count,
            truth_floor=1,
            closure_tables=1,
            **{f"plot_closures_{study['system']['solver']}": 1},
        )


KIND = ClosuresKind()


def _figures(study: Mapping[str, Any]) -> tuple[str, ...]:
    return closure_system(study["system"]["solver"]).figures


def studies_of_system(plan, solver: str) -> list[str]:
    """The closure studies of ``plan`` whose truth system is ``solver``."""
    return [n for n in plan.of_kind("closures") if plan.studies[n]["system"]["solver"] == solver]


def system_solver(plan, study: str, **_: Any) -> str:
    """``system.solver`` of a study: selects the stage functions of its system."""
    return plan.studies[study]["system"]["solver"]


def setup_order(study: Mapping[str, Any]) -> list[str]:
    """The training setup first, then the others in config order."""
    first = study["training_setup"]
    return [first] + [s for s in study["setups"] if s != first]


# ---- input functions of the kind's rules (plan, wildcards by name) ----------------------


def truth_params(plan, study: str, setup: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    parameter = closure_system(cfg["system"]["solver"]).setup_parameter
    return {
        "system": cfg["system"],
        parameter: cfg["setups"][setup],
        "truth": cfg["truth"],
        "seed": cfg["seed"],
        "title": cfg["title"],
    }


def coarse_grain_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        **closure_system(cfg["system"]["solver"]).coarse_grain_params(cfg),
        "split": cfg["split"],
    }


def _processed(plan, study: str, split: str) -> str:
    setup = plan.studies[study]["training_setup"]
    return f"data/processed/{study}/{setup}/{split}.nc"


def closure_train(plan, study: str, **_: Any) -> str:
    return _processed(plan, study, "train")


def closure_validation(plan, study: str, **_: Any) -> str:
    return _processed(plan, study, "validation")


def fit_params(plan, study: str, closure: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return closure_system(cfg["system"]["solver"]).fit_params(cfg, closure)


def closure_tests(plan, study: str, **_: Any) -> dict[str, str]:
    cfg = plan.studies[study]
    return {s: f"data/processed/{study}/{s}/test.nc" for s in setup_order(cfg)}


def closure_climates(plan, study: str, **_: Any) -> dict[str, str]:
    cfg = plan.studies[study]
    return {s: f"data/raw/{study}/{s}/climate.nc" for s in setup_order(cfg)}


def scatter_points(plan, study: str, **_: Any) -> int:
    return plan.studies[study]["figures"]["scatter_points"]


def online_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return closure_system(cfg["system"]["solver"]).online_params(cfg)


def scoring_params(plan, study: str, **_: Any) -> dict[str, Any]:
    """The online scoring settings (PDF bins, lags) of the floor and the tables."""
    return {"online": plan.studies[study]["online"]}


def floor_params(plan, study: str, **_: Any) -> dict[str, Any]:
    """The noise floor's settings: the scoring ones, and what else the system needs."""
    cfg = plan.studies[study]
    return closure_system(cfg["system"]["solver"]).floor_params(cfg)


def _closure_metric_files(plan, study: str, kind: str) -> list[str]:
    names = list(plan.studies[study]["closures"]) + ([FLOOR] if kind == "online" else [])
    return [f"results/{study}/metrics/{kind}/{c}.csv" for c in names]


def offline_metric_files(plan, study: str, **_: Any) -> list[str]:
    return _closure_metric_files(plan, study, "offline")


def online_metric_files(plan, study: str, **_: Any) -> list[str]:
    """Per-closure online metrics, with the noise floor's."""
    return _closure_metric_files(plan, study, "online")


def closure_curve_files(plan, study: str, **_: Any) -> dict[str, list[str]]:
    names = list(plan.studies[study]["closures"])
    return {
        "offline": [f"results/{study}/curves/offline/{c}.nc" for c in names],
        "online": [f"results/{study}/curves/online/{c}.nc" for c in names + [FLOOR]],
    }


def closure_figure_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        "title": cfg["title"],
        "training_setup": cfg["training_setup"],
        "setups": cfg["setups"],
    }


# ---- cost model -------------------------------------------------------------------------


def truth_mem_mb(plan, study: str, role: str, **_: Any) -> int:
    cfg = plan.studies[study]
    members, time, interval = truth_run_size(cfg["truth"], role)
    per_state = closure_system(cfg["system"]["solver"]).state_values(cfg["system"], role)
    # float32 run plus the NetCDF writer's copy
    return BASE_MB + int(2 * 4 * members * time / interval * per_state / BYTES_PER_MB)


def truth_runtime(plan, study: str, role: str, **_: Any) -> int:
    cfg = plan.studies[study]
    members, time, _ = truth_run_size(cfg["truth"], role)
    n_steps = (time + cfg["truth"]["spinup_time"]) / cfg["system"]["time_step"]
    rate = closure_system(cfg["system"]["solver"]).truth_s_per_step(cfg["system"])
    return runtime_minutes(members * n_steps * rate)


def _train_states(cfg: Mapping[str, Any]) -> float:
    """Coarse states in the pairs runs (training pairs before the split): one per coarse
    step (Lorenz-96) or per saved truth state (2-D turbulence), whichever is sparser."""
    truth = cfg["truth"]
    spacing = max(cfg["coarse"]["time_step"], truth["save_interval"])
    return truth["pair_trajectories"] * truth["pair_time"] / spacing


def _coarse_values(cfg: Mapping[str, Any]) -> int:
    return closure_system(cfg["system"]["solver"]).coarse_values(cfg["system"])


def coarse_grain_mem_mb(plan, study: str, **_: Any) -> int:
    # dask streams chunks of saved times; each split is written from them
    cfg = plan.studies[study]
    return BASE_MB + int(3 * 4 * _train_states(cfg) * _coarse_values(cfg) / BYTES_PER_MB)


def closure_mem_mb(plan, study: str, **_: Any) -> int:
    cfg = plan.studies[study]
    truth = cfg["truth"]
    records = truth["climate_time"] / truth["climate_save_interval"]  # per member
    members = 2 * truth["climate_members"] * len(cfg["setups"])
    # a climate run's saved state (Lorenz-96: X; turbulence: the DNS field) is read one
    # member at a time and reduced to the coarse state, which every member keeps (the
    # read, its float64 copy and the filter's work: three of a member's records)
    per_climate = closure_system(cfg["system"]["solver"]).state_values(cfg["system"], "climate")
    climate = members * records * _coarse_values(cfg) + 3 * records * per_climate
    values = 3 * _train_states(cfg) * _coarse_values(cfg) + climate
    return BASE_MB + int(4 * 4 * values / BYTES_PER_MB)


def _seeds(cfg: Mapping[str, Any], closure: str | None) -> int:
    """Networks a closure fits and runs (its ``seeds``; 1 when not named)."""
    return cfg["closures"][closure].get("seeds", 1) if closure else 1


def closure_fit_runtime(plan, study: str, closure: str | None = None, **_: Any) -> int:
    cfg = plan.studies[study]
    rate = closure_system(cfg["system"]["solver"]).fit_s_per_state_epoch
    seconds = cfg["training"]["epochs"] * _train_states(cfg) * rate * _seeds(cfg, closure)
    return runtime_minutes(seconds)


def online_runtime(plan, study: str, closure: str | None = None, **_: Any) -> int:
    cfg = plan.studies[study]
    truth, forecast = cfg["truth"], cfg.get("forecast")
    dt, setups = cfg["coarse"]["time_step"], len(cfg["setups"])
    rate = closure_system(cfg["system"]["solver"]).online_s_per_step

    def seconds(steps, batch):  # the cost per step grows with the batch beyond 100 runs
        return steps * rate * max(1.0, batch / ONLINE_BATCH)

    climate_steps = (truth["climate_time"] + truth["spinup_time"]) / dt
    climate = seconds(climate_steps, setups * truth["climate_members"])
    forecasts = 0.0
    if forecast is not None:
        batch = setups * forecast["starts"] * forecast["members"]
        forecasts = seconds(forecast["lead_time"] / dt, batch)
    return runtime_minutes((climate + forecasts) * _seeds(cfg, closure))
