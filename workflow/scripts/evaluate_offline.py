"""Adapter: offline skill of one closure on every setup's test block (rule evaluate_offline)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_offline = closure_stage("evaluate_offline", snakemake.params.solver)
run_offline(
    checkpoint=snakemake.input.checkpoint,
    tests=snakemake.params.setups,
    metrics=snakemake.output.metrics,
    curves=snakemake.output.curves,
    closure=snakemake.wildcards.closure,
    n_scatter=snakemake.params.n_scatter,
)
