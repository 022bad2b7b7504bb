"""Adapter: the errors and slopes tables of a random-feature study (rule
random_features_tables)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_random_features_tables

setup_logging(snakemake.log[0])
run_random_features_tables(
    metrics=list(snakemake.input.metrics),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.table,
)
