"""Adapter: a physics-informed problem's reference solution (rule pinn_reference)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_pinn_reference

setup_logging(snakemake.log[0])
run_pinn_reference(output=snakemake.output[0], **snakemake.params.reference)
