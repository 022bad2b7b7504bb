"""L3: one function per workflow stage, called by the thin scripts in workflow/scripts.

Each function takes plain paths and config slices, so it runs (and is tested) without
Snakemake. Inputs are checked against the provenance attributes they were made with,
and outputs are written atomically.
"""

from pderepro.stages.data import run_generate, run_merge, run_preprocess
from pderepro.stages.learning import run_baseline, run_evaluate, run_train
from pderepro.stages.reporting import (
    run_plot_resolution,
    run_plot_samples,
    run_summary,
    run_table,
    run_validate_solvers,
)

__all__ = [
    "run_baseline",
    "run_evaluate",
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
