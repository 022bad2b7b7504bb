"""Training jobs of the resolution units (rule ``train_model``) on a cluster: their time on
the device they run on, and the resumable segments that a training longer than the
cluster's longest job (``cluster.max_job_minutes``) runs in.

A training of ``n`` segments is ``n - 1`` jobs of rule ``train_segment`` (segment ``k``
trains up to epoch ``stop_epoch(k)`` and writes its full state to ``segment_file(k)``),
then the ``train_model`` job itself, which resumes from the last segment and writes the
checkpoint and history: the same bytes of weights as one uninterrupted job
(``tests/unit/test_training.py``). A training that fits is one ``train_model`` job, as
before, so a laptop preset's DAG is unchanged. Rule input functions: each takes the plan
and the wildcards' values by name.
"""

from __future__ import annotations

import math
from typing import Any

from pderepro.data.specs import dataset_spec
from pderepro.resources import device_seconds, runtime_minutes, segments
from pderepro.studies.resolution import (
    TRAIN_1D_S_PER_VALUE_EPOCH,
    TRAIN_2D_S_PER_VALUE_EPOCH,
    model_training,
    sample_values,
)

#: One segment's resumable state.
SEGMENT = "results/{study}/models/{model}/res{res}/seed{seed}/segment{segment}.pt"


def train_seconds(plan, study: str, model: str, res: str, **_: Any) -> float:
    """Seconds of one training on its device: the reference CPU's measured rate per
    sample, grid value and epoch, over the GPU's speed-up when it declares GPUs."""
    unit = plan.units[study]
    training = model_training(unit, model)
    ndim = dataset_spec(unit["dataset"]["solver"]).ndim
    rate = TRAIN_1D_S_PER_VALUE_EPOCH if ndim == 1 else TRAIN_2D_S_PER_VALUE_EPOCH
    cpu = training["epochs"] * unit["dataset"]["n_train"] * sample_values(unit, int(res)) * rate
    return device_seconds(cpu, plan.config["cluster"], gpus=training["devices"])


def n_segments(plan, study: str, model: str, res: str, **_: Any) -> int:
    """Jobs one training runs as (1: no segment), each within the longest job."""
    cluster = plan.config["cluster"]
    n = max(segments(train_seconds(plan, study, model, res), cluster), cluster["min_segments"])
    return min(n, model_training(plan.units[study], model)["epochs"])  # an epoch at least


def train_runtime(plan, study: str, model: str, res: str, **_: Any) -> int:
    """Minutes of each segment (of the whole training when it fits), with the margin."""
    seconds = train_seconds(plan, study, model, res) / n_segments(plan, study, model, res)
    return min(plan.config["cluster"]["max_job_minutes"], runtime_minutes(seconds))


def stop_epoch(plan, study: str, model: str, res: str, segment: str, **_: Any) -> int:
    """The epoch segment ``segment`` (0-based) trains up to."""
    epochs = model_training(plan.units[study], model)["epochs"]
    return math.ceil(epochs * (int(segment) + 1) / n_segments(plan, study, model, res))


def segment_file(study: str, model: str, res: str, seed: str, segment: int) -> str:
    return SEGMENT.format(study=study, model=model, res=res, seed=seed, segment=segment)


def previous_segment(
    plan, study: str, model: str, res: str, seed: str, segment: str | None = None, **_: Any
) -> list[str]:
    """The state a job resumes from: segment ``k - 1`` for segment ``k``, the last segment
    for ``train_model`` (its job is the final segment); none for the first."""
    k = n_segments(plan, study, model, res) - 1 if segment is None else int(segment)
    return [segment_file(study, model, res, seed, k - 1)] if k > 0 else []


def segment_jobs(plan, study: str, unit: dict[str, Any]) -> int:
    """``train_segment`` jobs of a unit."""
    return sum(
        (n_segments(plan, study, model, str(res)) - 1) * model_training(unit, model)["seeds"]
        for model in unit["models"]
        for res in unit["resolutions"]
    )
