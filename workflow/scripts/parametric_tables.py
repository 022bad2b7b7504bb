"""Adapter: the parameters and pdebench tables (rule parametric_tables)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_parametric_tables

setup_logging(snakemake.log[0])
run_parametric_tables(
    metrics=list(snakemake.input),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.table,
)
