"""Adapter: train one run of a parametric study (rule train_parametric)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_train_parametric

setup_logging(snakemake.log[0])
run = snakemake.params.run
run_train_parametric(
    train_paths=list(snakemake.input.train),
    validation_paths=list(snakemake.input.validation),
    checkpoint=snakemake.output.checkpoint,
    history=snakemake.output.history,
    pde=snakemake.wildcards.pde,
    model=snakemake.wildcards.run,
    spec=run["spec"],
    training=run["training"],
    protocol=run["protocol"],
    parameter=run["parameter"],
    fractions=run["fractions"],
    seed=int(snakemake.wildcards.seed),
    threads=snakemake.threads,
)
