"""Adapter: one neural-spectral training run (rule train_nsm)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_train_nsm

setup_logging(snakemake.log[0])
run_train_nsm(
    data=snakemake.input.data,
    outputs=dict(snakemake.output.items()),
    problem_key=snakemake.wildcards.problem,
    method_key=snakemake.wildcards.method,
    seed=int(snakemake.wildcards.seed),
    settings=snakemake.params.settings,
)
