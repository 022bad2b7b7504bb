"""Adapter: error against resolution figure (rule plot_resolution)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_resolution

setup_logging(snakemake.log[0])
run_plot_resolution(
    table=snakemake.input.table,
    figures=list(snakemake.output),
    title=snakemake.params.figure["title"],
)
