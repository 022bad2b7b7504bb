"""Adapter: one Lorenz-96 truth run of a setup (rule generate_truth)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_generate_truth

setup_logging(snakemake.log[0])
run = snakemake.params.run
run_generate_truth(
    system=run["system"],
    forcing=run["setup"],  # a Lorenz-96 setup is its forcing F
    role=snakemake.wildcards.role,
    truth=run["truth"],
    seed=run["seed"],
    title=run["title"],
    output=snakemake.output[0],
    threads=snakemake.threads,
)
