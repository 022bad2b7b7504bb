"""Adapter: the figure of a neural-spectral study (rule plot_nsm)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_nsm

setup_logging(snakemake.log[0])
run_plot_nsm(
    histories=list(snakemake.input.histories),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.figure,
)
