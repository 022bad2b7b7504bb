"""Adapter: train one model at one resolution and seed (rule train_model), or one
segment of a training longer than a cluster job (rule train_segment)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_train

setup_logging(snakemake.log[0])
segment = snakemake.rule == "train_segment"
run_train(
    train_path=snakemake.input.train,
    validation_path=snakemake.input.validation,
    stats_path=snakemake.input.stats,
    checkpoint=snakemake.output.state if segment else snakemake.output.checkpoint,
    history=None if segment else snakemake.output.history,
    study=snakemake.wildcards.study,
    model=snakemake.wildcards.model,
    spec=snakemake.params.run["spec"],
    training=snakemake.params.run["training"],
    seed=int(snakemake.wildcards.seed),
    resolution=int(snakemake.wildcards.res),
    threads=snakemake.threads,
    resume_from=snakemake.input.resume[0] if snakemake.input.resume else None,
    stop_epoch=snakemake.params.stop_epoch if segment else None,
)
