"""Adapter: sample predictions figure (rule plot_samples)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_samples

setup_logging(snakemake.log[0])
run_plot_samples(
    predictions=list(snakemake.input),
    figures=list(snakemake.output),
    n_samples=snakemake.params.n_samples,
)
