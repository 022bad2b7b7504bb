"""Truth runs of the closure kind longer than the cluster's longest job
(``cluster.max_job_minutes``), run as resumable segments: rule input functions, each
taking the plan and a job's wildcards by name.

Only a system whose truth stage resumes (:attr:`ClosureSystemSpec.resumable_truth`: the
2-D turbulence DNS, :mod:`pderepro.data.dns_segments`) is cut. A run of ``n`` segments is
``n - 1`` ``generate_truth_segment`` jobs (segment ``k`` steps from segment ``k - 1``'s
state up to DNS step ``stop_step(k)`` and saves its state and its own snapshots to
``segment_file(k)``), then the run's own ``generate_truth`` job, which resumes from the
last state, gathers every segment's snapshots and writes the run's NetCDF file: the values
of one uninterrupted job (``tests/unit/test_dns_segments.py``). DNS steps cost alike, so
the cut points split the steps equally. A run that fits is one job, as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pderepro.data.closure_systems import ROLES, closure_system, truth_run_size
from pderepro.resources import BASE_MB, BYTES_PER_MB, MIN_RUNTIME
from pderepro.studies.closures import truth_mem_mb, truth_runtime

#: One segment's state: where the DNS stands and the snapshots of its own steps.
SEGMENT = "data/interim/{study}/{setup}/{role}/segment{segment}.pt"


def truth_steps(cfg: Mapping[str, Any], role: str) -> int:
    """DNS steps of one truth run: the spin-up, then up to the last saved snapshot."""
    _, run_time, interval = truth_run_size(cfg["truth"], role)
    step = cfg["system"]["time_step"]
    snapshots = round(run_time / interval)
    return round(cfg["truth"]["spinup_time"] / step) + (snapshots - 1) * round(interval / step)


def stops(plan, study: str, role: str, **_: Any) -> list[int]:
    """The DNS steps the segments before the last stop at (empty: one job)."""
    cfg = plan.studies[study]
    if not closure_system(cfg["system"]["solver"]).resumable_truth:
        return []
    cluster = plan.config["cluster"]
    minutes = truth_runtime(plan, study, role)
    room = max(cluster["max_job_minutes"] - MIN_RUNTIME, 1)
    n = max(math.ceil((minutes - MIN_RUNTIME) / room), cluster["min_segments"], 1)
    total = truth_steps(cfg, role)
    return sorted({round(total * (k + 1) / n) for k in range(n - 1)} - {total})


def n_segments(plan, study: str, role: str, **_: Any) -> int:
    """Jobs one truth run steps in (1: no segment)."""
    return len(stops(plan, study, role)) + 1


def segment_runtime(plan, study: str, role: str, **_: Any) -> int:
    """Minutes of the run's longest job: the fixed start and its share of the steps."""
    minutes = truth_runtime(plan, study, role)
    share = _largest_share(plan, study, role)
    return minutes if share == 1 else MIN_RUNTIME + math.ceil((minutes - MIN_RUNTIME) * share)


def _largest_share(plan, study: str, role: str) -> float:
    """The largest fraction of the run's steps that one of its jobs takes (1: one job)."""
    bounds = [-1, *stops(plan, study, role), truth_steps(plan.studies[study], role)]
    return max(b - a for a, b in zip(bounds[:-1], bounds[1:], strict=True)) / (bounds[-1] + 1)


def segment_mem_mb(plan, study: str, role: str, **_: Any) -> int:
    """Memory of a segment job: its share of the run's snapshots, and two states (the
    spectral vorticity and the stepper's history, complex128)."""
    cfg = plan.studies[study]
    whole = truth_mem_mb(plan, study, role)
    members, n = truth_run_size(cfg["truth"], role)[0], cfg["system"]["resolution"]
    share = _largest_share(plan, study, role)
    states = 2 * 2 * 16 * members * n * (n // 2 + 1) / BYTES_PER_MB
    return BASE_MB + math.ceil((whole - BASE_MB) * share + states)


def stop_step(plan, study: str, role: str, segment: str, **_: Any) -> int:
    """The DNS step segment ``segment`` (0-based) stops at, after its records."""
    return stops(plan, study, role)[int(segment)]


def previous_segments(plan, study: str, setup: str, role: str, segment: str | None = None,
                      **_: Any) -> list[str]:  # fmt: skip
    """What a job resumes from: segment ``k - 1``'s state for segment ``k`` (none for the
    first); every segment's file for the run's own job, which takes all their snapshots."""
    if segment is None:
        earlier = range(n_segments(plan, study, role) - 1)
    else:
        earlier = range(max(int(segment) - 1, 0), int(segment))
    return [SEGMENT.format(study=study, setup=setup, role=role, segment=k) for k in earlier]


def segment_jobs(plan, study: str) -> int:
    """Segment jobs of a study's truth runs (every setup and role)."""
    cfg = plan.studies[study]
    return len(cfg["setups"]) * sum(n_segments(plan, study, role) - 1 for role in ROLES)
