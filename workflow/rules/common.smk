# Config validation, the plan, the input-function adapter, the stages' params and wildcard
# constraints; no rules here. What each study kind needs lives in pderepro.studies (one
# module per kind).
import inspect
import os
import sys

from pderepro.config import ConfigError
from pderepro.data.scheduler import DASK_SCHEDULER_ENV
from pderepro.runtime import forget_remade, removed_corrupt_files
from pderepro.stages import CLOSURE_STAGES
from pderepro.studies import (
    RESULTS_PAGE,
    closures,
    cost,
    make_plan,
    parametric,
    parametric_inputs,
    physics_informed,
    physics_informed_inputs,
    regimes,
    resolution,
    resolve_config,
    run_segments,
    training_segments,
    truth_segments,
)
from pderepro.studies.base import BENCHMARKS

# glibc maps and unmaps multi-MB torch tensors every step unless told otherwise, which
# made CPU training up to 1.6x slower; jobs inherit this from the Snakemake process.
os.environ.setdefault(
    "GLIBC_TUNABLES",
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296",
)

try:
    CONFIG = resolve_config(
        config,
        config_dir="config",
        schema_path=f"{workflow.basedir}/workflow/schemas/config.schema.yaml",
    )
except ConfigError as err:
    raise WorkflowError(str(err)) from None

# A runtime setting, passed to jobs through the environment so that it reruns nothing.
if CONFIG["dask"]["scheduler_address"]:
    os.environ[DASK_SCHEDULER_ENV] = CONFIG["dask"]["scheduler_address"]

PLAN = make_plan(CONFIG)

# Files that jobs of an earlier run found corrupt and removed: targets of this run, so
# that they are made again and every job that reads them reruns (Snakemake alone ignores
# a deleted intermediate file whose downstream outputs exist).
REMADE = removed_corrupt_files()
if REMADE:
    print(
        f"pderepro: remaking {len(REMADE)} file(s) an earlier run removed as corrupt, and "
        f"rerunning every job that reads them: {', '.join(REMADE)}",
        file=sys.stderr,
    )


onsuccess:
    forget_remade()


ENV = "../../envs/pderepro.yaml"

# The script of every rule: it calls the pderepro.stages function that the rule's params
# name (``stage``) with the keyword arguments they give (``args``); see stage_params.
STAGE_SCRIPT = "../scripts/stage.py"


def stage_params(stage, job=None, settings=None):
    """The params that STAGE_SCRIPT reads: ``stage``, the name of a pderepro.stages function
    (or a function of the wildcards returning it), and ``args``, its keyword arguments:
    those of ``job`` (a function of the job's ``wildcards``, ``input``, ``output`` and
    ``threads``, naming the ones it reads: the files, the wildcards' values, the threads)
    and those of ``settings`` (a function of the wildcards: what the plan gives the stage).

    ``settings`` is a param of its own as well: Snakemake leaves a params function that
    reads the job's files or threads (``args``) out of its params rerun trigger, and a
    job must rerun when the plan changes its settings.
    """
    names = () if job is None else tuple(inspect.signature(job).parameters)

    def args(wildcards, input, output, threads):
        given = {
            "wildcards": wildcards,
            "input": input,
            "output": output,
            "threads": threads,
        }
        own = {} if job is None else job(**{name: given[name] for name in names})
        planned = {} if settings is None else settings(wildcards)
        if both := sorted(own.keys() & planned.keys()):
            raise WorkflowError(
                f"{stage}: {both} given by both the job and its settings"
            )
        return {**own, **planned}

    params = {"stage": stage, "args": args}
    if settings is not None:
        params["settings"] = settings
    return params


def from_plan(function):
    """An input function (params, resources) calling ``function(PLAN, **wildcards)``."""

    def input_function(wildcards):
        return function(PLAN, **dict(wildcards.items()))

    input_function.__name__ = function.__name__
    return input_function


def plan_items(function, **names):
    """A ``settings`` function (stage_params): for each ``argument=key`` of ``names``, the
    argument is item ``key`` of ``function(PLAN, **wildcards)``."""

    def settings(wildcards):
        values = from_plan(function)(wildcards)
        return {argument: values[key] for argument, key in names.items()}

    return settings


def system_stage(rule):
    """A ``stage`` function (stage_params) of a closure-kind rule: the stage of ``rule`` for
    the truth system of the job's study (the rules are shared, the stage functions differ).
    """

    def stage(wildcards):
        return CLOSURE_STAGES[from_plan(closures.system_solver)(wildcards)][rule]

    return stage


def training_job(wildcards, input, threads):
    """The arguments of run_train that train_model and train_segment take alike."""
    return {
        "train_path": input.train,
        "validation_path": input.validation,
        "stats_path": input.stats,
        "study": wildcards.study,
        "model": wildcards.model,
        "seed": int(wildcards.seed),
        "resolution": int(wildcards.res),
        "threads": threads,
        "resume_from": input.resume[0] if input.resume else None,
    }


def pinn_run_job(wildcards, input):
    """The arguments of run_train_pinn that train_pinn and train_pinn_segment take alike."""
    return {
        "reference": input.reference,
        "problem_key": wildcards.problem,
        "method_key": wildcards.method,
        "seed": int(wildcards.seed),
        "resume": list(input.resume),
    }


def nsm_run_job(wildcards, input):
    """The arguments of run_train_nsm that train_nsm and train_nsm_segment take alike."""
    return {
        "data": input.data,
        "problem_key": wildcards.problem,
        "method_key": wildcards.method,
        "seed": int(wildcards.seed),
        "resume": list(input.resume),
    }


def matching(names):
    """A wildcard pattern matching exactly ``names`` (never matching when empty)."""
    return "|".join(names) or "(?!)"


wildcard_constraints:
    study=matching([*PLAN.studies, *PLAN.units]),
    dataset=matching(PLAN.datasets),
    split="|".join(resolution.SPLITS),
    shard=r"\d+",
    res=r"\d+",
    seed=r"\d+",
    model=r"[a-z0-9_]+",
    segment=r"\d+",
