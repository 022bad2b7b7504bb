"""Adapter: the basic-forms figure (rule plot_basic_forms)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_basic_forms

setup_logging(snakemake.log[0])
run_plot_basic_forms(
    table=snakemake.input[0],
    png=snakemake.output.png,
    pdf=snakemake.output.pdf,
    title=snakemake.params.title["title"],
)
