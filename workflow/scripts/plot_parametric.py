"""Adapter: the parametric study's figures (rule plot_parametric)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_parametric

setup_logging(snakemake.log[0])
run_plot_parametric(
    parameters=snakemake.input.parameters,
    per_step=list(snakemake.input.per_step),
    predictions=list(snakemake.input.predictions),
    outputs=dict(snakemake.output.items()),
    title=snakemake.params.title["title"],
)
