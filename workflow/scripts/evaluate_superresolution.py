"""Adapter: zero-shot super-resolution test (rule evaluate_superresolution)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_evaluate_superresolution

setup_logging(snakemake.log[0])
run_evaluate_superresolution(
    checkpoint=snakemake.input.checkpoint,
    test_path=snakemake.input.test,
    metrics=snakemake.output.metrics,
    markdown=snakemake.output.markdown,
    predictions=snakemake.output.predictions,
    **snakemake.params.superres,
)
