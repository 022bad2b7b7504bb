"""L3: one function per workflow stage, called by the thin scripts in workflow/scripts.

Each function takes plain paths and config slices, so it runs (and is tested) without
Snakemake. Inputs are checked against the provenance attributes they were made with,
and outputs are written atomically.
"""

from pderepro.stages.closures import (
    run_coarse_grain,
    run_fit_closure,
    run_generate_truth,
    run_offline,
)
from pderepro.stages.data import run_generate, run_merge, run_preprocess
from pderepro.stages.learning import run_baseline, run_evaluate, run_train
from pderepro.stages.online import run_online, run_truth_floor
from pderepro.stages.regimes import (
    run_evaluate_superresolution,
    run_plot_error_vs_time,
    run_plot_superresolution,
    run_regimes_table,
)
from pderepro.stages.reporting import (
    run_closure_tables,
    run_plot_closures,
    run_plot_resolution,
    run_plot_samples,
    run_summary,
    run_table,
    run_validate_solvers,
)

__all__ = [
    "run_baseline",
    "run_closure_tables",
    "run_coarse_grain",
    "run_fit_closure",
    "run_generate_truth",
    "run_offline",
    "run_online",
    "run_plot_closures",
    "run_truth_floor",
    "run_evaluate",
    "run_evaluate_superresolution",
    "run_plot_error_vs_time",
    "run_plot_superresolution",
    "run_regimes_table",
    "run_generate",
    "run_merge",
    "run_plot_resolution",
    "run_plot_samples",
    "run_preprocess",
    "run_summary",
    "run_table",
    "run_train",
    "run_validate_solvers",
]
