"""Adapter: test-set metrics of a no-learning reference (rule evaluate_baseline)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_baseline

setup_logging(snakemake.log[0])
run_baseline(
    test_path=snakemake.input.test,
    train_path=snakemake.input.train,
    metrics=snakemake.output.metrics,
    predictions=snakemake.output.predictions,
    study=snakemake.wildcards.study,
    baseline=snakemake.wildcards.model,
    label=snakemake.params.baseline["label"],
    resolution=int(snakemake.wildcards.res),
    dataset=snakemake.params.baseline["dataset"],
    n_keep=snakemake.params.n_keep,
)
