"""Adapter: error of each predicted frame against time (rule plot_error_vs_time)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_error_vs_time

setup_logging(snakemake.log[0])
run_plot_error_vs_time(
    predictions=list(snakemake.input),
    regimes=snakemake.params.figure["regimes"],
    figures=list(snakemake.output),
    title=snakemake.params.figure["title"],
)
