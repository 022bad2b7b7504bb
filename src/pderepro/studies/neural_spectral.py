"""Study kind ``neural_spectral``: a neural operator trained by the PDE residual in
spectral coefficients, against the same operator trained with a grid PINN loss and on
solver data (Neural Spectral Methods, docs/references.md).

A study is problems x methods x seeds. A *problem* names a registered operator problem
(:mod:`pderepro.training.spectral.problems`: the input law, the PDE, its residuals and
reference solver) with its parameters, the test grid, the reference solver's sizes and the
iteration budget (and, optionally, the methods it runs and its changes to the network).
A *method* says how the one network of the study (an FNO2d; an FNO3d in space-time for a
problem that asks for one) is trained: ``spectral`` (the residual's coefficients,
Parseval), ``grid`` (the residual on an ``n``-point grid) or ``supervised`` (``n_train``
solver pairs at ``n`` points). Each
problem's test inputs, reference and training pairs are data
(``data/reference/<study>/<problem>.nc``); each ``(problem, method, seed)`` is one training
job; two tables (errors, speed) and one figure per study.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pderepro.config import ConfigError
from pderepro.studies.base import (
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
    tables_and_figures_section,
)
from pderepro.studies.claims_tables import check_published_keys
from pderepro.studies.problem_method import (  # noqa: F401  (DATA: the rules' path)
    DATA,
    ProblemMethodRuns,
    active_problems,
    run_outputs,
)
from pderepro.studies.registry_source import check_parameters, registered_classes

TABLES = ("errors", "speed")
FIGURES = ("error_vs_time",)
#: One training job's outputs, by name.
RUN_FILES = run_outputs(checkpoint="checkpoint.pt", history="history.csv", metrics="metrics.csv")
#: The registry's source: read, not imported, so that building the DAG imports no torch.
PROBLEMS_SOURCE = Path(__file__).parents[1] / "training" / "spectral"


def registered_problems() -> frozenset[str] | None:
    """Names of the operator problems registered in ``pderepro.training.spectral``, read
    from its modules' source (:func:`~pderepro.studies.registry_source.registered_classes`);
    None where none is (the check is then left to the job).

    The registry itself (``OPERATOR_PROBLEMS``) imports torch; a unit test checks that this
    reading agrees with it.
    """
    return frozenset(registered_classes(PROBLEMS_SOURCE, "register_operator_problem")) or None


def active_methods(study: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The methods the preset runs (``run``, default true), in the study's order."""
    return {key: spec for key, spec in study["methods"].items() if spec.get("run", True)}


def problem_methods(study: Mapping[str, Any], problem: str) -> list[str]:
    """The method keys ``problem`` runs (its ``methods``, default all; only those the preset
    runs), in the study's order."""
    chosen = study["problems"][problem].get("methods")
    return [m for m in active_methods(study) if chosen is None or m in chosen]


def problem_network(study: Mapping[str, Any], problem: str) -> dict[str, Any]:
    """The study's network with the problem's changes (its ``network``)."""
    return {**study["network"], **study["problems"][problem].get("network", {})}


def runs(study: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """Every training job ``(problem, method, seed)``, in table order."""
    return [
        (problem, method, seed)
        for problem in active_problems(study)
        for method in problem_methods(study, problem)
        for seed in range(study["seeds"])
    ]


#: The runs' paths and the input functions over them.
RUNS = ProblemMethodRuns(RUN_FILES, runs, "train_nsm")
run_file = RUNS.run_file


def supervised_methods(study: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The methods trained on solver pairs (their pairs are in the problem's data file)."""
    return {k: m for k, m in active_methods(study).items() if m["kind"] == "supervised"}


def decay_factor(study: Mapping[str, Any], problem: str) -> float:
    """The per-iteration factor of the rate: ``final_factor ** (1 / decay_iterations)``,
    so that ``lr * factor**i = lr * final_factor**(i / decay_iterations)`` (the authors')."""
    decay = study["problems"][problem]["training"]["decay_iterations"]
    return float(study["training"].get("final_factor", 1e-3) ** (1.0 / decay))


def method_label(key: str, method: Mapping[str, Any]) -> str:
    return method.get("label", key)


def problem_label(key: str, problem: Mapping[str, Any]) -> str:
    return problem.get("label", key)


def captions(study: Mapping[str, Any], preset: str) -> dict[str, str]:
    """The captions of the errors and speed tables (results page)."""
    budgets = "; ".join(
        f"{key}: {spec['training']['iterations']} iterations of a rate decaying over "
        f"{spec['training']['decay_iterations']}, test grid "
        + " x ".join(f"{k} {v}" for k, v in spec["test_grid"].items())
        + "".join(f", network {k} {v}" for k, v in spec.get("network", {}).items())
        + (f", methods {', '.join(spec['methods'])} only" if "methods" in spec else "")
        for key, spec in active_problems(study).items()
    )
    net, training = study["network"], study["training"]
    setting = (
        f"Ours: preset {preset}, FNO2d (FNO3d for space-time problems) width {net['width']}, "
        f"modes {net['modes']}, "
        f"{net['layers']} layers, batch {training['batch_size']}, Adam "
        f"{training['learning_rate']:g}, {study['seeds']} seed(s), {study['n_test']} test "
        f"instances; {budgets}."
    )
    published = study.get("published", {})
    errors = (
        "Relative L2 error in % (100 ||u - u_ref|| / ||u_ref|| per test instance over the "
        "whole test grid, mean over instances) of the final network, per problem and method: "
        "mean and population std over seeds (as the paper), min, max and each seed; "
        "s_per_iteration (training, logging excluded), train_s, inference_s_per_instance "
        "(the test batch on the test grid), peak_memory_mb; over_limit_seeds: seeds stopped "
        "after a few timed iterations because the run would exceed the preset's time limit "
        "(projected_s; their error is empty). The no-learning row predicts zero (Poisson) or "
        "holds the initial condition (reaction-diffusion). Published: "
        f"{published.get('source', 'none')}; published_iterations: "
        f"{published.get('iterations_source', 'the paper')}; empty: not retrieved. " + setting
    )
    speed = (
        "Inference against our solver at equal accuracy (the paper's 10x claim): per trained "
        "method, the model's inference s per instance and error, and the cheapest resolution "
        "of our solver's ladder (rows 'solver') whose error on the same test instances is at "
        "most the model's (solver_match 'matched'; 'finest_less_accurate': no rung reached "
        "it, the speed-up is a lower bound; 'coarsest_more_accurate': the coarsest rung is "
        "already more accurate, the speed-up an upper bound); speedup = solver s / model s "
        "per instance at that rung, and the interval a claim reads (speedup_low, "
        "speedup_high: the value where matched; [0, speedup] for an upper bound; "
        "[speedup, inf] for a lower bound). The solver runs on one CPU thread, its own time steps "
        "interpolated to the test times (cubic spline) and in x (Fourier) inside its timing; "
        "the model's inference is timed on the device it trained on (a GPU at paper: the "
        "devices then differ). " + setting
    )
    return {"errors": errors, "speed": speed}


class NeuralSpectralKind(StudyKind):
    name = "neural_spectral"
    schema_def = "neural_spectral_study"
    preset_keys = {
        # per problem: the budget, the grids and solver sizes, whether it runs (never the
        # parameters, nor the rate's decay: the paper's schedule, of which a short preset
        # runs the start)
        "problems": {
            "training": {"iterations"},
            "test_grid": None,
            "reference": None,
            "solver_ladder": None,
            "run": None,
        },
        "methods": {"n_train", "run"},
        "network": {"width", "modes"},
        "training": {"batch_size"},
        "seeds": None,
        "n_test": None,
        "log_every": None,
        "time_limit_s": None,
        "gpu": None,
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        problems, methods = set(study["problems"]), set(study["methods"])
        kinds = {"spectral", "grid", "supervised", "no_learning"}
        return {
            "errors": {
                "problem": problems,
                "method": {*methods, "no_learning"},
                "method_kind": kinds,
            },
            "speed": {"problem": problems, "method": {*methods, "solver"}},
        }

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        problems = registered_classes(PROBLEMS_SOURCE, "register_operator_problem")
        for key, spec in study["problems"].items():
            if spec["problem"] not in problems:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.problem': {spec['problem']!r} is "
                    f"not a registered operator problem ({sorted(problems)})"
                )
            check_parameters(
                f"{where}.problems.{key}.parameters",
                spec["parameters"],
                problems[spec["problem"]],
                f"operator problem {spec['problem']!r}",
            )
            unknown = sorted(set(spec.get("methods", [])) - set(study["methods"]))
            if unknown:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.methods': {unknown} are not methods "
                    f"of the study ({sorted(study['methods'])})"
                )
            training = spec["training"]
            if training["iterations"] < study["log_every"]:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.training.iterations': "
                    f"{training['iterations']} is below log_every = {study['log_every']}"
                )
            if training["iterations"] > training["decay_iterations"]:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.training.iterations': "
                    f"{training['iterations']} iterations run past decay_iterations = "
                    f"{training['decay_iterations']} (the schedule's end)"
                )
        for key, method in study["methods"].items():
            if (
                method["kind"] == "supervised"
                and method["n_train"] < study["training"]["batch_size"]
            ):
                raise ConfigError(
                    f"config key '{where}.methods.{key}.n_train': {method['n_train']} pairs, "
                    f"fewer than a batch ({study['training']['batch_size']})"
                )
        published = study.get("published", {})
        check_published_keys(where, study)
        for problem, methods in published.get("unverified", {}).items():
            for method in methods:
                if method not in published.get("values", {}).get(problem, {}):
                    raise ConfigError(
                        f"config key '{where}.published.unverified.{problem}': {method!r} "
                        "has no published value"
                    )

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, TABLES) + figure_files(name, FIGURES)

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        return tables_and_figures_section(
            name, study["title"], captions(study, preset), TABLES, FIGURES
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return RUNS.benchmarks(name, study)

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return Counter(
            nsm_data=len(active_problems(study)),
            train_nsm=len(runs(study)),
            nsm_tables=1,
            plot_nsm=len(FIGURES),
        )


KIND = NeuralSpectralKind()
