"""Adapter: generate one shard of samples (rule generate_shard)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_generate

setup_logging(snakemake.log[0])
run_generate(
    dataset=snakemake.params.dataset,
    split=snakemake.wildcards.split,
    start=snakemake.params.shard["start"],
    count=snakemake.params.shard["count"],
    output=snakemake.output[0],
    threads=snakemake.threads,
)
