"""Adapter: the solver timed at a surrogate's resolution (rule time_solver)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_time_solver

setup_logging(snakemake.log[0])
run_time_solver(
    dataset=snakemake.params.dataset,
    resolution=int(snakemake.wildcards.res),
    output=snakemake.output[0],
    threads=snakemake.threads,
)
