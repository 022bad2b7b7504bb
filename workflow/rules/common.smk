# Config validation, the plan, the input-function adapter and wildcard constraints; no
# rules here. What each study kind needs lives in pderepro.studies (one module per kind).
import os
import sys

from pderepro.config import ConfigError
from pderepro.data.scheduler import DASK_SCHEDULER_ENV
from pderepro.runtime import forget_remade, removed_corrupt_files
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
    training_segments,
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


def from_plan(function):
    """An input function (params, resources) calling ``function(PLAN, **wildcards)``."""

    def input_function(wildcards):
        return function(PLAN, **dict(wildcards.items()))

    input_function.__name__ = function.__name__
    return input_function


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
