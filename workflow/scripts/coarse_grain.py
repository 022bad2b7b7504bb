"""Adapter: coarse-grain a truth run into closure pairs by time block (rule coarse_grain)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_coarse_grain = closure_stage("coarse_grain", snakemake.params.solver)
run_coarse_grain(
    raw=snakemake.input[0],
    outputs=dict(snakemake.output.items()),
    threads=snakemake.threads,
    **snakemake.params.run,
)
