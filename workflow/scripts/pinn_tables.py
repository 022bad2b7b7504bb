"""Adapter: the errors table of a physics-informed study (rule pinn_tables)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_pinn_tables

setup_logging(snakemake.log[0])
run_pinn_tables(
    metrics=list(snakemake.input.metrics),
    references=list(snakemake.input.references),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.table,
)
