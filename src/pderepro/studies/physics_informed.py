"""Study kind ``physics_informed``: functions fitted to one PDE by its residual.

A study is problems x methods x seeds (docs/references.md). A *problem* names a registered
problem (:mod:`pderepro.training.pinn.problems`: residual, domain, initial and boundary
conditions, reference solution) with its parameters, the reference grid, the network
and the loss and optimiser settings that the paper gives per problem. A *method* names a
registered sampler and weighting (:mod:`pderepro.training.pinn.samplers`) with their
options. Each problem's reference is data (``data/reference/<study>/<problem>.nc``); each
``(problem, method, seed)`` is one training job; one table and three figures per study.
The kind never names a PDE: a new problem or method is a registered module plus a
study-file entry.
"""

from __future__ import annotations

import copy
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
)
from pderepro.studies.claims_tables import check_published_keys
from pderepro.studies.problem_method import DATA, ProblemMethodRuns, active_problems, run_outputs
from pderepro.studies.registry_source import check_parameters, registered_classes

TABLES = ("errors",)
#: The table of a study with a ``scaling`` block (rule pinn_scaling).
SCALING_TABLE = "scaling"
#: Every figure a study may ask for (rule plot_pinn makes one per job); the trained
#: scalar's is ``<quantity>_vs_iteration``.
FIGURE_NAMES = ["error_vs_iteration", "propagation_failure", "predictions", "scaling",
                "[a-z_]+_vs_iteration"]  # fmt: skip


def figures(study: Mapping[str, Any]) -> list[str]:
    """The study's figures: the error always; the predictions unless left out; the
    propagation failure, the trained scalar against iteration (``<quantity>_vs_iteration``)
    and the cost against the scaling parameter where asked for."""
    names = ["error_vs_iteration"]
    if study["figures"].get("predictions", True):
        names.append("predictions")
    if "failure_problem" in study["figures"]:
        names.insert(1, "propagation_failure")
    if "quantity" in study["figures"]:
        names.append(f"{study['figures']['quantity']}_vs_iteration")
    if "scaling" in study:
        names.append("scaling")
    return names


def tables(study: Mapping[str, Any]) -> tuple[str, ...]:
    """The study's tables: the errors, and the scaling table where asked for."""
    return TABLES + ((SCALING_TABLE,) if "scaling" in study else ())


#: Where a problem's reference solution lands.
REFERENCE = DATA
#: One training job's outputs, by name.
RUN_FILES = run_outputs(
    checkpoint="checkpoint.pt", history="history.csv", metrics="metrics.csv", fields="fields.nc"
)


#: The registries' source: read, not imported, so that building the DAG imports no torch.
PINN_SOURCE = Path(__file__).parents[1] / "training" / "pinn"


def registered(subpackage: str, decorator: str) -> frozenset[str]:
    """The ``name`` of every class decorated with ``decorator`` in the modules of
    ``pderepro.training.pinn.<subpackage>``, read from their source.

    The registries themselves (``PROBLEMS``, ``SAMPLERS``, ``WEIGHTINGS``) import torch;
    a unit test checks that this reading agrees with them.
    """
    return frozenset(registered_classes(PINN_SOURCE / subpackage, decorator))


def runs(study: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """Every training job ``(problem, method, seed)``, in table order."""
    return [
        (problem, method, seed)
        for problem in active_problems(study)
        for method in study["methods"]
        for seed in range(study["seeds"])
    ]


#: The runs' paths and the input functions over them.
RUNS = ProblemMethodRuns(RUN_FILES, runs, "train_pinn")
run_file = RUNS.run_file


#: The MLP's settings where a study file leaves them out (raw inputs, as the papers).
MLP_DEFAULTS = {"embedding": "none", "features": 0, "sigma": 1.0, "scale_inputs": False}


def mlp_hparams(network: Mapping[str, Any]) -> dict[str, Any]:
    """A study file's MLP network as :class:`~pderepro.models.pinn_mlp.CoordinateMLP`'s
    arguments (its defaults filled, the architecture key dropped)."""
    return {**MLP_DEFAULTS, **{k: v for k, v in network.items() if k != "architecture"}}


def run_settings(study: Mapping[str, Any], problem: str, method: str) -> dict[str, Any]:
    """What one training job needs: the problem's spec and the method's, merged with the
    method's per-problem overrides (``methods.<m>.problems.<p>``: sampler options that
    depend on the problem's point count, say). A method's own network replaces the
    problem's (another model family: PIG); its optimiser settings are merged into the
    problem's (never the iteration counts). A method's ``problem_options`` (SDGD's sampled
    dimensions) join the problem's parameters: they change its residual, not its
    reference."""
    spec = copy.deepcopy(dict(study["problems"][problem]))
    method_spec = dict(study["methods"][method])
    overrides = method_spec.pop("problems", {}).get(problem, {})
    for key in ("sampler_options", "weighting_options"):
        method_spec[key] = {**method_spec.get(key, {}), **overrides.get(key, {})}
    spec["parameters"] = {**spec["parameters"], **method_spec.pop("problem_options", {})}
    network = method_spec.pop("network", None) or spec["network"]
    network = {**network, **overrides.get("network", {})}
    if network.get("architecture", "mlp") == "mlp":
        network = {"architecture": "mlp", **MLP_DEFAULTS, **network}
    spec["network"] = network
    spec["training"] = {**spec["training"], **method_spec.pop("training", {}),
                        **overrides.get("training", {})}  # fmt: skip
    weighting = method_spec["weighting_options"]
    share = weighting.pop("budget_share_per_tolerance", None)
    if share is not None:  # the authors' causal PINN: each tolerance at most nIter / 5
        weighting["steps_per_tolerance"] = max(1, round(share * spec["training"]["iterations"]))
    return {
        "problem": spec,
        "method": method_spec,
        "snapshots": study["snapshots"],
        "log_every": study["log_every"],
        "time_limit_s": study.get("time_limit_s"),
        "gpu": study["gpu"],
    }


class PhysicsInformedKind(StudyKind):
    name = "physics_informed"
    schema_def = "physics_informed_study"
    preset_keys = {
        # per problem: iteration budgets, point counts, the reference grid's size (never
        # the rate, the loss weights or the network)
        "problems": {
            "training": {"iterations", "lbfgs_iterations", "decay_every"},
            "losses": {"n_collocation", "n_initial", "n_boundary"},
            "reference_grid": None,
            "reference_points": None,
            "run": None,
        },
        # per method: its pools' sizes and how often they are scored; its network's
        # Gaussians (PIG), per problem
        "methods": {
            "sampler_options": {"pool", "every"},
            "problems": {"*": {"network": {"gaussians"}}},
        },
        "seeds": None,
        "log_every": None,
        "snapshots": None,
        "time_limit_s": None,
        "gpu": None,
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        methods = set(study["methods"])
        published = study.get("published", {})
        rows = {
            *methods,
            "no_learning",
            *(f"{m}_best_seed" for m in methods),  # the paper's best-seed rows
            *(f"published_{name}" for by in published.get("baselines", {}).values() for name in by),
        }
        keys = {"errors": {"problem": set(study["problems"]), "method": rows}}
        families = {spec["family"] for spec in study["problems"].values() if "family" in spec}
        keys[SCALING_TABLE] = {"method": methods, "family": families}
        return keys

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        problems = registered_classes(PINN_SOURCE / "problems", "register_problem")
        check_published_keys(where, study)
        samplers = registered("samplers", "register_sampler")
        weightings = registered("samplers", "register_weighting")
        for key, spec in study["problems"].items():
            if spec["problem"] not in problems:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.problem': {spec['problem']!r} is "
                    f"not a registered problem ({sorted(problems)})"
                )
            what = f"problem {spec['problem']!r}"
            check_parameters(
                f"{where}.problems.{key}.parameters",
                spec["parameters"],
                problems[spec["problem"]],
                what,
            )
            if ("reference_grid" in spec) == ("reference_points" in spec):
                raise ConfigError(
                    f"config key '{where}.problems.{key}': give reference_grid or "
                    "reference_points (a ball's scattered test points), exactly one"
                )
            training = spec["training"]
            if 0 < training["iterations"] < study["log_every"]:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.training.iterations': "
                    f"{training['iterations']} is below log_every = {study['log_every']}"
                )
            if not training["iterations"] and not training["lbfgs_iterations"]:
                raise ConfigError(
                    f"config key '{where}.problems.{key}.training': no Adam and no L-BFGS "
                    "iteration: nothing to train"
                )
        for key, method in study["methods"].items():
            if method["sampler"] not in samplers:
                raise ConfigError(
                    f"config key '{where}.methods.{key}.sampler': {method['sampler']!r} is "
                    f"not a registered sampler ({sorted(samplers)})"
                )
            if method["weighting"] not in weightings:
                raise ConfigError(
                    f"config key '{where}.methods.{key}.weighting': {method['weighting']!r} "
                    f"is not a registered weighting ({sorted(weightings)})"
                )
            for problem in method.get("problems", {}):
                if problem not in study["problems"]:
                    raise ConfigError(
                        f"config key '{where}.methods.{key}.problems.{problem}': no such "
                        f"problem ({sorted(study['problems'])})"
                    )
            for option in method.get("problem_options", {}):
                for problem_key, spec in study["problems"].items():
                    if option not in problems[spec["problem"]].parameters:
                        raise ConfigError(
                            f"config key '{where}.methods.{key}.problem_options.{option}': "
                            f"not a parameter of problem {spec['problem']!r} "
                            f"({problem_key}), which takes "
                            f"{sorted(problems[spec['problem']].parameters)}"
                        )
        figure = study["figures"]
        scattered = [k for k, spec in study["problems"].items() if "reference_points" in spec]
        if scattered and figure.get("predictions", True):
            raise ConfigError(
                f"config key '{where}.figures.predictions': problems {scattered} have scattered "
                "reference points, which the predictions figure cannot draw: set it false"
            )
        if "scaling" in study:
            parameter = study["scaling"]["parameter"]
            for key, spec in study["problems"].items():
                if "family" not in spec or parameter not in spec["parameters"]:
                    raise ConfigError(
                        f"config key '{where}.problems.{key}': a scaling study's problems "
                        f"each need a family and the parameter {parameter!r}"
                    )
        for method in figure.get("failure_methods", []):
            if method not in study["methods"]:
                raise ConfigError(
                    f"config key '{where}.figures.failure_methods': {method!r} is not a "
                    f"method ({sorted(study['methods'])})"
                )
        if "failure_problem" in figure and figure["failure_problem"] not in study["problems"]:
            raise ConfigError(
                f"config key '{where}.figures.failure_problem': "
                f"{figure['failure_problem']!r} is not a problem ({sorted(study['problems'])})"
            )
        published = study["published"]
        for problem in {**published.get("baselines", {}), **published.get("best", {})}:
            if problem not in study["problems"]:
                raise ConfigError(
                    f"config key '{where}.published': no problem {problem!r} "
                    f"({sorted(study['problems'])})"
                )
        for problem, values in {**published.get("values", {})}.items():
            for method in values:
                if problem not in study["problems"] or method not in study["methods"]:
                    raise ConfigError(
                        f"config key '{where}.published.values.{problem}.{method}': no such "
                        "problem and method"
                    )

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, tables(study)) + figure_files(name, figures(study))

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        published = study["published"]
        budgets = "; ".join(
            f"{key}: {spec['training']['iterations']} Adam iterations"
            + (f" + {spec['training']['lbfgs_iterations']} L-BFGS"
               if spec["training"]["lbfgs_iterations"] else "")
            + f", {spec['losses']['n_collocation']} collocation points"
            for key, spec in active_problems(study).items()
        )  # fmt: skip
        caption = (
            "Relative L2 error ||u - u_ref|| / ||u_ref|| (a fraction, not %; up to sign where "
            "the problem's solution is defined up to sign, an eigenfunction) of the final "
            "network over the whole reference grid, per problem and method: mean and std "
            f"over {study['seeds']} seed(s) and each seed; iterations and wall time per run "
            "(s_per_iteration: the Adam phase, logging excluded); a trained scalar (quantity: "
            "an energy) beside its reference. The no-learning reference row holds the initial "
            "condition constant in time (evolution problems) or predicts zero (steady ones; "
            "the untrained trial function where the problem defines one). Ours: preset "
            f"{preset}, {budgets}. Published: {published.get('source', 'none')} (metric: "
            f"{published.get('metric', 'relative L2 as the paper states it')}; "
            f"published_iterations: {published.get('iterations_source', 'the paper')}); cells "
            "the paper's text did not give are empty."
        )
        report_tables = [{"path": f"results/{name}/tables/errors.csv", "caption": caption}]
        if "scaling" in study:
            report_tables.append({
                "path": f"results/{name}/tables/{SCALING_TABLE}.csv",
                "caption": f"Cost against the {study['scaling']['parameter']} (the table's "
                           "own caption says how each column is measured).",
            })  # fmt: skip
        return SummarySection(
            title=study["title"],
            tables=[f"results/{name}/tables/{t}.md" for t in tables(study)],
            report_tables=report_tables,
            figures=[f"results/{name}/figures/{f}.png" for f in figures(study)],
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return RUNS.benchmarks(name, study)

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return Counter(
            pinn_reference=len(active_problems(study)),
            train_pinn=len(runs(study)),
            pinn_tables=1,
            pinn_scaling=int("scaling" in study),
            plot_pinn=len(figures(study)),
        )


KIND = PhysicsInformedKind()
