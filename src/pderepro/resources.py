"""Cluster resources of workflow jobs: the shared constants of the cost models.

Each dataset spec (:mod:`pderepro.data.specs`) and each study kind
(:mod:`pderepro.studies`) owns the cost model of its own jobs; this module holds what
they share: the job process's fixed memory, the safety margin and the conversion of a
CPU-time estimate into a time limit. Costs were measured on a 2-core CPU with the
project's benchmarks and are multiplied by :data:`MARGIN`; a profile can still override
any of them with ``set-resources``. Pure functions of the config: nothing here imports
torch, xarray or dask, because every Snakemake process (each cluster job too) evaluates
them when it builds the DAG.
"""

from __future__ import annotations

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
