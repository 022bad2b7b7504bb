"""Adapter: the figures of a closure study (rule plot_closures)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_plot_closures

setup_logging(snakemake.log[0])
run_plot_closures(
    offline=list(snakemake.input.offline),
    online=list(snakemake.input.online),
    table=snakemake.input.table,
    outputs=dict(snakemake.output.items()),
    **snakemake.params.figure,
)
