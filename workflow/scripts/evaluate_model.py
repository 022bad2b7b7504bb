"""Adapter: test-set metrics of one trained model (rule evaluate_model)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_evaluate

setup_logging(snakemake.log[0])
run_evaluate(
    checkpoint=snakemake.input.checkpoint,
    test_path=snakemake.input.test,
    metrics=snakemake.output.metrics,
    predictions=snakemake.output.predictions,
    study=snakemake.wildcards.study,
    model=snakemake.wildcards.model,
    resolution=int(snakemake.wildcards.res),
    seed=int(snakemake.wildcards.seed),
    n_keep=snakemake.params.n_keep,
    threads=snakemake.threads,
)
