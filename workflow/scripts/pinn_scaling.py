"""Adapter: the scaling table of a physics-informed study (rule pinn_scaling)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_pinn_scaling

setup_logging(snakemake.log[0])
run_pinn_scaling(
    metrics=list(snakemake.input.metrics),
    outputs=dict(snakemake.output.items()),
    **snakemake.params.table,
)
