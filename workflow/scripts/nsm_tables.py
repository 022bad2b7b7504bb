"""Adapter: the errors and speed tables of a neural-spectral study (rule nsm_tables)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_nsm_tables

setup_logging(snakemake.log[0])
run_nsm_tables(
    metrics=list(snakemake.input.metrics),
    data=list(snakemake.input.data),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.table,
)
