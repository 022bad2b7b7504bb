"""Adapter: fit one closure on the training setup's train block (rule fit_closure)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_fit_closure

setup_logging(snakemake.log[0])
run_fit_closure(
    train_path=snakemake.input.train,
    validation_path=snakemake.input.validation,
    checkpoint=snakemake.output[0],
    closure=snakemake.wildcards.closure,
    seed=0,
    threads=snakemake.threads,
    **snakemake.params.run,
)
