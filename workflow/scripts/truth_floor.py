"""Adapter: the truth-vs-truth noise floor of the online metrics (rule truth_floor)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_truth_floor = closure_stage("truth_floor", snakemake.params.solver)
run_truth_floor(
    climates=snakemake.params.climates,
    metrics=snakemake.output.metrics,
    curves=snakemake.output.curves,
    **snakemake.params.run,
)
