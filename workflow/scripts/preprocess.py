"""Adapter: subsample to one resolution and compute train statistics (rule preprocess)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_preprocess

setup_logging(snakemake.log[0])
run_preprocess(
    raw={split: snakemake.input[split] for split in snakemake.params.splits},
    processed={split: snakemake.output[split] for split in snakemake.params.splits},
    resolution=int(snakemake.wildcards.res),
    out_stats=snakemake.output.stats,
    threads=snakemake.threads,
)
