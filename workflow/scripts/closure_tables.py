"""Adapter: the offline and online tables of a closure study (rule closure_tables)."""

from pderepro.runtime import setup_logging
from pderepro.stages import closure_stage

setup_logging(snakemake.log[0])
run_closure_tables = closure_stage("closure_tables", snakemake.params.solver)
run_closure_tables(
    offline=list(snakemake.input.offline),
    online=list(snakemake.input.online),
    outputs=dict(snakemake.output.items()),
    online_settings=snakemake.params.scoring["online"],
)
