"""Adapter: subsample to one resolution and compute train statistics (rule preprocess)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_preprocess

setup_logging(snakemake.log[0])
run_preprocess(
    raw_train=snakemake.input.train,
    raw_test=snakemake.input.test,
    resolution=int(snakemake.wildcards.res),
    out_train=snakemake.output.train,
    out_test=snakemake.output.test,
    out_stats=snakemake.output.stats,
    threads=snakemake.threads,
)
