"""Adapter: results/report/index.html, claims first, then tables, figures (rule results_page)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_results_page

setup_logging(snakemake.log[0])
run_results_page(
    output=snakemake.output[0],
    preset=snakemake.params.preset,
    sections=snakemake.params.sections,
    claims=snakemake.input.claims,
    validation=(snakemake.params.validation or [None])[0],
)
