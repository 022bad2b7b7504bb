"""Adapter: one split's file, generated whole or merged from its shards (rule assemble_split)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_assemble_split

setup_logging(snakemake.log[0])
run_assemble_split(
    dataset=snakemake.params.dataset,
    split=snakemake.wildcards.split,
    n_samples=snakemake.params.n_samples,
    shards=list(snakemake.input),
    output=snakemake.output[0],
    threads=snakemake.threads,
)
