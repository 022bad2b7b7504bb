"""Adapter: one truth run of a closure study's setup (rule generate_truth)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_generate_truth = closure_stage("generate_truth", snakemake.params.solver)
run_generate_truth(
    role=snakemake.wildcards.role,
    output=snakemake.output[0],
    threads=snakemake.threads,
    **snakemake.params.run,  # the system, the setup's parameter, truth sizes, seed, title
)
