"""Adapter: the basic-forms table (rule basic_forms_table)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_basic_forms_table

setup_logging(snakemake.log[0])
run_basic_forms_table(
    metrics=list(snakemake.input),
    csv=snakemake.output.csv,
    markdown=snakemake.output.md,
    **snakemake.params.table,
)
