"""Adapter: the regimes table of a regimes study (rule regimes_table)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_regimes_table

setup_logging(snakemake.log[0])
run_regimes_table(
    metrics=list(snakemake.input),
    csv=snakemake.output.csv,
    markdown=snakemake.output.markdown,
    regimes=snakemake.params.table["regimes"],
    published=snakemake.params.table["published"],
    caption=snakemake.params.table["caption"],
    model_order=snakemake.params.table["model_order"],
)
