"""One function per workflow stage, called by the thin scripts in workflow/scripts.

Each function takes plain paths and config slices, so it runs (and is tested) without
Snakemake. Inputs are checked against the provenance attributes they were made with,
and outputs are written atomically.

Stages are the package's top layer: they may use every other subpackage, and none uses
them; one stage module does not import another (shared code lives in the layer it belongs
to). The layers are listed, and checked by ``lint-imports``, in ``pyproject.toml``
(``[tool.importlinter]``).
"""

# Imported on first use (PEP 562): a job runs one stage, and importing them all (scipy.stats,
# matplotlib, the closures) took 3.7 s against 3.0-3.5 s for one, about a minute of CPU over
# the quick run's 124 jobs.

from __future__ import annotations

import importlib
from typing import Any

_STAGE_MODULES = {
    "run_baseline": "learning",
    "run_claims": "claims",
    "run_basic_forms_table": "parametric_reports",
    "run_closure_tables": "reporting",
    "run_closure_tables_turbulence": "turbulence_online",
    "run_closure_tables_shallow_water": "shallow_water_online",
    "run_cost_table": "cost",
    "run_coarse_grain": "closures",
    "run_coarse_grain_turbulence": "turbulence",
    "run_coarse_grain_shallow_water": "shallow_water",
    "run_evaluate": "learning",
    "run_evaluate_parametric": "parametric",
    "run_evaluate_superresolution": "regimes",
    "run_fit_random_features": "random_features",
    "run_fit_closure": "closures",
    "run_fit_closure_turbulence": "turbulence",
    "run_fit_closure_shallow_water": "shallow_water",
    "run_generate": "data",
    "run_generate_truth": "closures",
    "run_generate_truth_turbulence": "turbulence",
    "run_generate_truth_shallow_water": "shallow_water",
    "run_merge": "data",
    "run_nsm_data": "neural_spectral",
    "run_nsm_tables": "neural_spectral",
    "run_offline": "closures",
    "run_offline_turbulence": "turbulence",
    "run_offline_shallow_water": "shallow_water",
    "run_online": "online",
    "run_online_turbulence": "turbulence_online",
    "run_online_shallow_water": "shallow_water_online",
    "run_parametric_tables": "parametric_reports",
    "run_pinn_reference": "physics_informed",
    "run_pinn_scaling": "physics_informed_reports",
    "run_pinn_tables": "physics_informed",
    "run_plot_pinn": "physics_informed_reports",
    "run_plot_closures": "reporting",
    "run_plot_nsm": "neural_spectral",
    "run_plot_closures_turbulence2d": "turbulence_online",
    "run_plot_closures_shallow_water1d": "shallow_water_online",
    "run_plot_error_vs_time": "regimes",
    "run_plot_basic_forms": "parametric_reports",
    "run_plot_parametric": "parametric_reports",
    "run_plot_random_features": "random_features",
    "run_plot_resolution": "reporting",
    "run_plot_samples": "reporting",
    "run_plot_superresolution": "regimes",
    "run_preprocess": "data",
    "run_random_features_tables": "random_features",
    "run_regimes_table": "regimes",
    "run_results_page": "reporting",
    "run_summary": "reporting",
    "run_time_solver": "cost",
    "run_table": "reporting",
    "run_train": "learning",
    "run_train_nsm": "neural_spectral",
    "run_train_parametric": "parametric",
    "run_train_pinn": "physics_informed",
    "run_truth_floor": "online",
    "run_truth_floor_turbulence": "turbulence_online",
    "run_truth_floor_shallow_water": "shallow_water_online",
    "run_validate_solvers": "reporting",
}

#: The closure kind's stages of each truth system (``system.solver``), by rule: the rules are
#: the same for every system, the stage functions differ.
CLOSURE_STAGES = {
    "lorenz96": {
        "generate_truth": "run_generate_truth", "coarse_grain": "run_coarse_grain",
        "fit_closure": "run_fit_closure", "evaluate_offline": "run_offline",
        "evaluate_online": "run_online", "truth_floor": "run_truth_floor",
        "closure_tables": "run_closure_tables", "plot_closures": "run_plot_closures",
    },
    "turbulence2d": {
        "generate_truth": "run_generate_truth_turbulence",
        "coarse_grain": "run_coarse_grain_turbulence",
        "fit_closure": "run_fit_closure_turbulence", "evaluate_offline": "run_offline_turbulence",
        "evaluate_online": "run_online_turbulence", "truth_floor": "run_truth_floor_turbulence",
        "closure_tables": "run_closure_tables_turbulence",
        "plot_closures": "run_plot_closures_turbulence2d",
    },
    "shallow_water1d": {
        "generate_truth": "run_generate_truth_shallow_water",
        "coarse_grain": "run_coarse_grain_shallow_water",
        "fit_closure": "run_fit_closure_shallow_water",
        "evaluate_offline": "run_offline_shallow_water",
        "evaluate_online": "run_online_shallow_water",
        "truth_floor": "run_truth_floor_shallow_water",
        "closure_tables": "run_closure_tables_shallow_water",
        "plot_closures": "run_plot_closures_shallow_water1d",
    },
}  # fmt: skip

__all__ = sorted([*_STAGE_MODULES, "CLOSURE_STAGES", "closure_stage"])


def closure_stage(rule: str, solver: str):
    """The stage function of closure-kind ``rule`` for the truth system ``solver``."""
    try:
        name = CLOSURE_STAGES[solver][rule]
    except KeyError:
        raise ValueError(f"no {rule!r} stage for closure system {solver!r}") from None
    return __getattr__(name)


def __getattr__(name: str) -> Any:
    module = _STAGE_MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
