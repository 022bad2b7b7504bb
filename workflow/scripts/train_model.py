"""Adapter: train one model at one resolution and seed (rule train_model)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_train

setup_logging(snakemake.log[0])
run_train(
    train_path=snakemake.input.train,
    validation_path=snakemake.input.validation,
    stats_path=snakemake.input.stats,
    checkpoint=snakemake.output.checkpoint,
    history=snakemake.output.history,
    study=snakemake.wildcards.study,
    model=snakemake.wildcards.model,
    spec=snakemake.params.run["spec"],
    training=snakemake.params.run["training"],
    seed=int(snakemake.wildcards.seed),
    resolution=int(snakemake.wildcards.res),
    threads=snakemake.threads,
)
