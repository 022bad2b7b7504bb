"""Adapter: the figures of a closure study (rules plot_closures_<system>)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_plot_closures = closure_stage("plot_closures", snakemake.params.solver)
run_plot_closures(
    offline=list(snakemake.input.offline),
    online=list(snakemake.input.online),
    table=snakemake.input.table,
    outputs=dict(snakemake.output.items()),
    **snakemake.params.figure,
)
