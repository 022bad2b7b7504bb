"""Adapter: the random-feature fits of one dimension and seed (rule fit_random_features)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_fit_random_features

setup_logging(snakemake.log[0])
run_fit_random_features(
    output=snakemake.output[0],
    dimension_key=snakemake.wildcards.dimension,
    seed=int(snakemake.wildcards.seed),
    settings=snakemake.params.settings,
)
