"""Adapter: zero-shot super-resolution figure (rule plot_superresolution)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_superresolution

setup_logging(snakemake.log[0])
run_plot_superresolution(predictions=snakemake.input[0], figures=list(snakemake.output))
