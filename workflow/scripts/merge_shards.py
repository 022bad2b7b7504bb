"""Adapter: merge the shards of one split (rule merge_shards)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_merge

setup_logging(snakemake.log[0])
run_merge(inputs=list(snakemake.input), output=snakemake.output[0])
