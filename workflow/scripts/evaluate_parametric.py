"""Adapter: roll out one trained run on its test values (rule evaluate_parametric)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_evaluate_parametric

setup_logging(snakemake.log[0])
run_evaluate_parametric(
    checkpoint=snakemake.input.checkpoint,
    test_paths=list(snakemake.input.test),
    seen_values=snakemake.params.evaluation["seen"],
    metrics=snakemake.output.metrics,
    per_step=snakemake.output.per_step,
    predictions=snakemake.output.predictions,
    n_keep=snakemake.params.evaluation["n_keep"],
    threads=snakemake.threads,
)
