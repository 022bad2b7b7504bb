"""Adapter: the study's resolution table (rule make_table)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_table

setup_logging(snakemake.log[0])
run_table(
    metrics=list(snakemake.input),
    csv=snakemake.output.csv,
    markdown=snakemake.output.markdown,
    published=snakemake.params.table["published"],
    caption=snakemake.params.table["caption"],
    n_train=snakemake.params.table["n_train"],
    model_order=snakemake.params.table["model_order"],
)
