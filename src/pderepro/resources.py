"""Cluster resources of workflow jobs: the shared constants of the cost models.

Each dataset spec (:mod:`pderepro.data.specs`) and each study kind
(:mod:`pderepro.studies`) owns the cost model of its own jobs; this module holds what
they share: the job process's fixed memory, the safety margin, the conversion of a
CPU-time estimate into a time limit, the device model that turns it into a GPU job's
time (the ``cluster`` config: a GPU's throughput against the reference CPU's), and the
segments a job longer than the cluster's longest job is split into. Costs were measured
on a 2-core CPU with the project's benchmarks and are multiplied by :data:`MARGIN`; a
profile can still override any of them with ``set-resources``. Pure functions of the
config: nothing here imports torch, xarray or dask, because every Snakemake process
(each cluster job too) evaluates them when it builds the DAG.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: Bytes per MB (Snakemake's ``mem_mb`` is in 10^6 bytes).
BYTES_PER_MB = 1e6
#: Python + torch + xarray in a job process (resident size measured about 400 MB).
BASE_MB = 1000
#: Safety factor on every time estimate.
MARGIN = 3
#: Shortest time limit of any job (minutes).
MIN_RUNTIME = 10


def runtime_minutes(seconds: float) -> int:
    """Time limit (whole minutes) for a job estimated to take ``seconds`` on one core."""
    return max(MIN_RUNTIME, int(MARGIN * seconds / 60) + 1)


def mem_mb(nbytes: float) -> int:
    """Memory request (MB) of a job that holds ``nbytes`` on top of the process itself."""
    return BASE_MB + int(nbytes / BYTES_PER_MB)


def gpu_speedup(cluster: Mapping[str, Any]) -> float:
    """How many times faster the cluster's GPU trains than the reference CPU: measured
    where ``measured_speedup`` is given, else peak x efficiency over the CPU's rate."""
    spec = cluster["gpus"][cluster["gpu"]]
    if "measured_speedup" in spec:
        return float(spec["measured_speedup"])
    return spec["tflops_fp32"] * 1e3 * spec["efficiency"] / cluster["cpu_reference_gflops"]


def device_seconds(cpu_seconds: float, cluster: Mapping[str, Any], *, gpus: int) -> float:
    """Seconds of a job estimated at ``cpu_seconds`` on the reference CPU, on the device it
    runs on: the cluster's GPU when it declares ``gpus > 0`` and training runs on GPUs."""
    if gpus > 0 and cluster["training_device"] == "gpu":
        return cpu_seconds / gpu_speedup(cluster)
    return cpu_seconds


def segments(seconds: float, cluster: Mapping[str, Any]) -> int:
    """Segments a job of ``seconds`` (on its device) runs in, so that each one's time limit
    (:func:`runtime_minutes`, margin included) is within ``max_job_minutes``."""
    limit = cluster["max_job_minutes"]
    return max(1, math.ceil(MARGIN * seconds / 60 / max(limit - 1, 1)))
