"""Adapter: the figures of a physics-informed study (rule plot_pinn)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_pinn

setup_logging(snakemake.log[0])
run_plot_pinn(
    metrics=list(snakemake.input.metrics),
    histories=list(snakemake.input.histories),
    fields=list(snakemake.input.fields),
    references=list(snakemake.input.references),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.figure,
)
