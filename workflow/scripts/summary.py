"""Adapter: results/summary.md (rule summary)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_summary

setup_logging(snakemake.log[0])
run_summary(
    output=snakemake.output[0],
    preset=snakemake.params.preset,
    studies=snakemake.params.studies,
    claims=snakemake.input.claims,
    validation=(snakemake.params.validation or [None])[0],
    benchmarks=list(snakemake.input.benchmarks),
)
