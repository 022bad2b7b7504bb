"""Adapter: a study's cost table (rule cost_table)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_cost_table

setup_logging(snakemake.log[0])
run_cost_table(
    units=snakemake.params.table["units"],
    model_order=snakemake.params.table["model_order"],
    csv=snakemake.output.csv,
    markdown=snakemake.output.markdown,
    caption=snakemake.params.table["caption"],
)
