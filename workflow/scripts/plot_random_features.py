"""Adapter: the figure of a random-feature study (rule plot_random_features)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_random_features

setup_logging(snakemake.log[0])
run_plot_random_features(
    metrics=list(snakemake.input.metrics),
    slopes=snakemake.input.slopes,
    outputs=dict(snakemake.output.items()),
    **snakemake.params.figure,
)
