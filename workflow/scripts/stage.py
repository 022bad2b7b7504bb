"""The one adapter between Snakemake and pderepro.stages.

Every rule names the stage it runs and the keyword arguments it takes, as
``params: stage=<a pderepro.stages function name>, args=<a function of the job returning
its keyword arguments>`` (workflow/rules/common.smk: ``stage_params``); this script only
opens the job's log and makes that call, so a new rule needs no script of its own.
"""

from pderepro.runtime import setup_logging
from pderepro.stages import run_stage

setup_logging(snakemake.log[0])
run_stage(snakemake.params.stage, snakemake.params.args)
