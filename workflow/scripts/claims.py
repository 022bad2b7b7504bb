"""Adapter: results/claims.{csv,md}, every study's claims with verdicts (rule claims)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_claims

setup_logging(snakemake.log[0])
run_claims(
    studies=snakemake.params.studies,
    preset=snakemake.params.preset,
    csv=snakemake.output.csv,
    markdown=snakemake.output.markdown,
)
