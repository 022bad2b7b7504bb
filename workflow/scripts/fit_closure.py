"""Adapter: fit one closure on the training setup's train block (rule fit_closure)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_fit_closure = closure_stage("fit_closure", snakemake.params.solver)
run_fit_closure(
    train_path=snakemake.input.train,
    validation_path=snakemake.input.validation,
    checkpoint=snakemake.output[0],
    closure=snakemake.wildcards.closure,
    threads=snakemake.threads,
    **{"seed": 0, **snakemake.params.run},  # a system may take the study's seed
)
