"""Adapter: a neural-spectral problem's test inputs, reference and pairs (rule nsm_data)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_nsm_data

setup_logging(snakemake.log[0])
run_nsm_data(output=snakemake.output[0], **snakemake.params.data)
