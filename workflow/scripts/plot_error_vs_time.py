"""Adapter: error of each predicted frame against time (rule plot_error_vs_time)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_error_vs_time

setup_logging(snakemake.log[0])
keys = list(snakemake.input.keys())  # "<regime>__<model>"
run_plot_error_vs_time(
    predictions=[snakemake.input[k] for k in keys],
    regimes=[k.split("__")[0] for k in keys],
    figures=list(snakemake.output),
    title=snakemake.params.figure["title"],
)
