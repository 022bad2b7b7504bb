"""Adapter: one physics-informed training run (rule train_pinn)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_train_pinn

setup_logging(snakemake.log[0])
run_train_pinn(
    reference=snakemake.input.reference,
    outputs=dict(snakemake.output.items()),
    problem_key=snakemake.wildcards.problem,
    method_key=snakemake.wildcards.method,
    seed=int(snakemake.wildcards.seed),
    settings=snakemake.params.settings,
)
