"""Study kind ``design``: structural optimisation, every method on the same physics, the
design each reaches compared across a suite of tasks (docs/references.md, Hoyer et al.
2019).

A study is a task suite (families x grids x volume fractions, one filter radius) and its
methods (:data:`pderepro.stages.design.OPTIMISERS`), each with the same budget of
objective evaluations; one job per task runs every method (a seeded method once per seed)
and writes the final compliances and designs; two tables (per task; wins per method) and
one figure per study. There is no data set and no surrogate: the result is a design.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
    tables_and_figures_section,
)

TABLES = ("tasks", "wins")
#: The study's figures: the final designs (rule plot_designs) and the compliance against
#: objective evaluations of a few tasks (rule plot_design_curves).
FIGURES = ("designs", "compliance_vs_evaluation")
#: One task job's outputs.
METRICS = "results/{study}/tasks/{task}/metrics.csv"
DESIGNS = "results/{study}/tasks/{task}/designs.nc"
HISTORIES = "results/{study}/tasks/{task}/histories.csv"
#: Tasks whose compliance curves the figure shows: the first of each family, up to this.
CURVE_TASKS = 4
#: Families the task builder knows (:mod:`pderepro.solvers.elasticity.tasks`), listed here
#: so that a typo fails at config time without importing the solver.
FAMILIES = ("mbb_beam", "cantilever", "cantilever_corner", "bridge", "point_bridge",
            "multistory_building", "thin_support_bridge")  # fmt: skip
#: Seconds per element and objective evaluation, with room, on one core (2026-12-07, 96 x
#: 32, the two cores shared): a pixel method's sparse direct solve and adjoint about 50 ms
#: an evaluation (16 microseconds an element), the CNN's float64 forward and backward
#: pass on top about 0.55 s (180 microseconds an element).
S_PER_ELEMENT_EVALUATION = {"pixels": 2e-5, "cnn_lbfgs": 2e-4}


def task_key(family: str, nelx: int, nely: int, volume: float) -> str:
    """A task's name: ``mbb_beam_60x20_v50`` (volume in percent)."""
    return f"{family}_{nelx}x{nely}_v{round(100 * volume)}"


def tasks(study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every task of the suite, by key, in table order (family, then grid, then volume)."""
    suite = study["suite"]
    return {
        task_key(family, nelx, nely, volume): {
            "family": family,
            "nelx": nelx,
            "nely": nely,
            "volume": volume,
            "filter_radius": suite["filter_radius"],
        }  # fmt: skip
        for family in suite["families"]
        for nelx, nely in suite["grids"]
        for volume in suite["volumes"]
    }


def reference_method(study: Mapping[str, Any]) -> str:
    """The method key of the uniform design (no optimisation)."""
    return next(k for k, m in study["methods"].items() if m["optimiser"] == "uniform")


def labels(study: Mapping[str, Any]) -> dict[str, str]:
    return {k: m.get("label", k) for k, m in study["methods"].items()}


def captions(study: Mapping[str, Any], preset: str) -> dict[str, str]:
    """The captions of the tasks and wins tables (Markdown tables, results page)."""
    suite, network = study["suite"], study["network"]
    setting = (
        f"Ours: preset {preset}, {len(tasks(study))} tasks ({', '.join(suite['families'])}; "
        f"grids {', '.join(f'{x} x {y}' for x, y in suite['grids'])}; volume fractions "
        f"{', '.join(f'{v:g}' for v in suite['volumes'])}), plane-stress Q4 elements, SIMP "
        f"penalty 3, E0 = 1, Emin = 1e-9, Poisson ratio 0.3, cone filter of radius "
        f"{suite['filter_radius']:g} elements; {study['iterations']} objective evaluations "
        f"per method (L-BFGS: iterations, its line search may add a quarter); the CNN "
        f"(latent {network['latent']}, channels {network['channels']}) over "
        f"{study['seeds']} seed(s). Metric: Hoyer et al. 2019's per-task score, percent "
        "worse than the best design any method found on the task (their Figure 1)."
    )
    task_text = (
        "Final compliance (dimensionless: unit Young's modulus and load) per task and "
        "method: mean, min and max over seeds, the task's best design over every run, "
        "percent worse than it (mean, min, max over seeds), objective evaluations, wall "
        "seconds, the largest volume error |mean density - target| and the perimeter of the "
        "design's 0.5 level set in element widths (mean, min, max over seeds: thin members "
        "make it long). The uniform design "
        "(every density at the volume fraction) is the no-optimisation reference. " + setting
    )
    wins_text = (
        "Per method: the tasks on which its design is the best of the task within "
        f"{100 * study['tolerance']:g}% (wins; a seeded method makes one trial per seed "
        "against the deterministic methods' one run: the mean over trials, wins_low and "
        "wins_high their range), its share, and its percent worse than the task's best "
        "(mean, median and largest over tasks). Published: "
        f"{study['published']['source']}. " + setting
    )
    return {"tasks": task_text, "wins": wins_text}


class DesignKind(StudyKind):
    name = "design"
    schema_def = "design_study"
    preset_keys = {
        "suite": {"families", "grids", "volumes"},
        "iterations": None,
        "seeds": None,
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        methods = set(study["methods"])
        return {"tasks": {"task": set(tasks(study)), "method": methods},
                "wins": {"method": methods}}  # fmt: skip

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        suite = study["suite"]
        for family in suite["families"]:
            if family not in FAMILIES:
                raise ConfigError(
                    f"config key '{where}.suite.families': no task family {family!r} "
                    f"({', '.join(FAMILIES)})"
                )
        for grid in suite["grids"]:
            if len(grid) != 2 or min(grid) < 2:
                raise ConfigError(
                    f"config key '{where}.suite.grids': {grid} is not [nelx, nely], each >= 2"
                )
        uniform = [k for k, m in study["methods"].items() if m["optimiser"] == "uniform"]
        if len(uniform) != 1:
            raise ConfigError(
                f"config key '{where}.methods': need exactly one method with optimiser "
                f"uniform (the no-optimisation reference), got {uniform or 'none'}"
            )
        if len(set(tasks(study))) != len(suite["families"]) * len(suite["grids"]) * len(
            suite["volumes"]
        ):
            raise ConfigError(f"config key '{where}.suite': two tasks share a name")

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, TABLES) + figure_files(name, FIGURES)

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        return tables_and_figures_section(name, study["title"], captions(study, preset), TABLES,
                                          FIGURES, page_order=("wins", "tasks"))  # fmt: skip

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return [BENCHMARKS["design_task"].format(study=name, task=k) for k in tasks(study)]

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return Counter(design_task=len(tasks(study)), design_tables=1, plot_designs=1,
                       plot_design_curves=1)  # fmt: skip


KIND = DesignKind()


# The rules' input functions and parameters: each takes the plan and a job's wildcards.


def task_keys(plan) -> list[str]:
    """Every task key of the enabled design studies (a wildcard's values)."""
    return sorted({k for s in plan.of_kind(KIND.name) for k in tasks(plan.studies[s])})


def task_args(plan, study: str, task: str, **_: Any) -> dict[str, Any]:
    """What one task job needs besides its outputs: the task, methods, seeds, network."""
    cfg = plan.studies[study]
    methods = {
        key: {
            "optimiser": m["optimiser"],
            "iterations": cfg["iterations"],
            "seeded": m["optimiser"] == "cnn_lbfgs",
        }  # fmt: skip
        for key, m in cfg["methods"].items()
    }
    return {"task_key": task, "task": tasks(cfg)[task], "methods": methods,
            "seeds": cfg["seeds"], "network": dict(cfg["network"])}  # fmt: skip


def _task_seconds(cfg: Mapping[str, Any], task: Mapping[str, Any]) -> float:
    """Seconds of one task job: every run's evaluations (L-BFGS's line search may add a
    quarter) at :data:`S_PER_ELEMENT_EVALUATION`."""
    per_run = 1.25 * cfg["iterations"] * task["nelx"] * task["nely"]
    return sum(
        per_run * cfg["seeds"] * S_PER_ELEMENT_EVALUATION["cnn_lbfgs"]
        if m["optimiser"] == "cnn_lbfgs"
        else per_run * S_PER_ELEMENT_EVALUATION["pixels"]
        for m in cfg["methods"].values()
    )


def task_runtime(plan, study: str, task: str, **_: Any) -> int:
    """Minutes: three times the estimate (:data:`S_PER_ELEMENT_EVALUATION`), 5 to start."""
    cfg = plan.studies[study]
    return int(5 + 3 * _task_seconds(cfg, tasks(cfg)[task]) / 60)


def task_mem_mb(plan, study: str, task: str, **_: Any) -> int:
    """MB: 1000 for the process and torch, and the sparse factorisation (about 2 kB per
    element at these sizes, with room)."""
    spec = tasks(plan.studies[study])[task]
    return int(1000 + 0.01 * spec["nelx"] * spec["nely"])


def metric_files(plan, study: str, **_: Any) -> list[str]:
    return [METRICS.format(study=study, task=k) for k in tasks(plan.studies[study])]


def design_files(plan, study: str, **_: Any) -> list[str]:
    return [DESIGNS.format(study=study, task=k) for k in tasks(plan.studies[study])]


def curve_tasks(study: Mapping[str, Any]) -> list[str]:
    """The tasks of the curves figure: the first task (in table order) of each family, at
    most :data:`CURVE_TASKS`."""
    first: dict[str, str] = {}
    for key, task in tasks(study).items():
        first.setdefault(task["family"], key)
    return list(first.values())[:CURVE_TASKS]


def history_files(plan, study: str, **_: Any) -> list[str]:
    """The histories of the curves figure's tasks."""
    return [HISTORIES.format(study=study, task=k) for k in curve_tasks(plan.studies[study])]


def tables_args(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        "labels": labels(cfg),
        "reference": reference_method(cfg),
        "tolerance": cfg["tolerance"],
        "captions": captions(cfg, plan.config["preset"]),
    }


def figure_args(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {"title": cfg["title"], "labels": labels(cfg)}
