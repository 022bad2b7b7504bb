"""Adapter: solver verification table and figure (rule validate_solvers)."""

from pderepro.runtime import setup_logging
from pderepro.stages import run_validate_solvers

setup_logging(snakemake.log[0])
run_validate_solvers(csv=snakemake.output.csv, figures=[snakemake.output.figure])
