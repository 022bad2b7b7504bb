"""Adapter: results/report/index.html, every table and figure (rule results_page)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_results_page

setup_logging(snakemake.log[0])
run_results_page(
    output=snakemake.output[0],
    preset=snakemake.params.preset,
    sections=snakemake.params.sections,
    validation=(snakemake.params.validation or [None])[0],
)
