"""Adapter: one closure coupled into the coarse model at every setup (rule evaluate_online)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_online = closure_stage("evaluate_online", snakemake.params.solver)
run_online(
    checkpoint=snakemake.input.checkpoint,
    climates=snakemake.params.climates,
    closure=snakemake.wildcards.closure,
    metrics=snakemake.output.metrics,
    curves=snakemake.output.curves,
    threads=snakemake.threads,
    **snakemake.params.run,
)
