"""Physics-informed runs longer than the cluster's longest job (``cluster.max_job_minutes``),
trained as resumable segments: rule input functions, each taking the plan and a job's
wildcards by name.

A run of ``n`` segments is ``n - 1`` jobs of rule ``train_pinn_segment`` (segment ``k``
trains up to run step ``stop_step(k)``, an Adam iteration or an L-BFGS block of
``log_every`` iterations, and saves the run's state to ``segment_file(k)``,
:class:`pderepro.training.pinn.loop.Segment`), then the ``train_pinn`` job itself, which
resumes from the last one, trains the rest and writes the run's outputs: the weights of
one uninterrupted job (``tests/unit/test_pinn_segments.py``). The cut points split the
run's estimated time (an L-BFGS iteration three Adam ones,
:func:`~pderepro.studies.physics_informed_inputs.train_runtime`) about equally, L-BFGS at
whole blocks. A run that fits is one ``train_pinn`` job, as before.
"""

from __future__ import annotations

import math
from typing import Any

from pderepro.resources import MIN_RUNTIME
from pderepro.studies.physics_informed import run_settings
from pderepro.studies.physics_informed_inputs import train_runtime

#: One segment's resumable state.
SEGMENT = "results/{study}/{problem}/runs/{method}/seed{seed}/segment{segment}.pt"


def _budget(plan, study: str, problem: str, method: str) -> tuple[int, int, int]:
    """``(Adam iterations, L-BFGS iterations, L-BFGS block)`` of a run."""
    settings = run_settings(plan.studies[study], problem, method)
    training = settings["problem"]["training"]
    return int(training["iterations"]), int(training["lbfgs_iterations"]), settings["log_every"]


def _cost(step: int, adam: int, lbfgs: int, block: int) -> int:
    """The run's cost up to run step ``step``, in Adam iterations (an L-BFGS one: three)."""
    return step if step <= adam else adam + min(3 * block * (step - adam), 3 * lbfgs)


def run_stops(plan, study: str, problem: str, method: str, **_: Any) -> list[int]:
    """The run steps (:class:`~pderepro.training.pinn.loop.Segment`: Adam iterations, then
    L-BFGS blocks) the segments before the last stop at (empty: one job)."""
    cluster = plan.config["cluster"]
    minutes = train_runtime(plan, study, problem, method)
    room = max(cluster["max_job_minutes"] - MIN_RUNTIME, 1)
    n = max(math.ceil((minutes - MIN_RUNTIME) / room), cluster["min_segments"], 1)
    adam, lbfgs, block = _budget(plan, study, problem, method)
    total, steps = adam + 3 * lbfgs, adam + math.ceil(lbfgs / block)
    stops = set()
    for k in range(n - 1):
        cut = total * (k + 1) / n
        stops.add(
            math.ceil(cut) if cut <= adam else adam + max(1, round((cut - adam) / (3 * block)))
        )
    return sorted(s for s in stops if 0 < s < steps)


def n_segments(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """Jobs one run trains in (1: no segment)."""
    return len(run_stops(plan, study, problem, method)) + 1


def segment_runtime(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """Minutes of the run's longest job: the fixed start and its share of the run."""
    minutes = train_runtime(plan, study, problem, method)
    stops = run_stops(plan, study, problem, method)
    if not stops:
        return minutes
    adam, lbfgs, block = _budget(plan, study, problem, method)
    costs = [0, *(_cost(s, adam, lbfgs, block) for s in stops), adam + 3 * lbfgs]
    share = max(b - a for a, b in zip(costs[:-1], costs[1:], strict=True)) / costs[-1]
    return MIN_RUNTIME + math.ceil((minutes - MIN_RUNTIME) * share)


def stop_step(plan, study: str, problem: str, method: str, segment: str, **_: Any) -> int:
    """The run step segment ``segment`` (0-based) stops at."""
    return run_stops(plan, study, problem, method)[int(segment)]


def segment_file(study: str, problem: str, method: str, seed: str, segment: int) -> str:
    return SEGMENT.format(study=study, problem=problem, method=method, seed=seed, segment=segment)


def previous_segment(
    plan, study: str, problem: str, method: str, seed: str, segment: str | None = None,
    **_: Any,
) -> list[str]:  # fmt: skip
    """The state a job resumes from: segment ``k - 1`` for segment ``k``, the last segment
    for ``train_pinn`` (its job is the final one); none for the first."""
    k = n_segments(plan, study, problem, method) - 1 if segment is None else int(segment)
    return [segment_file(study, problem, method, seed, k - 1)] if k > 0 else []


def segment_jobs(plan, study: str, runs: list[tuple[str, str, int]]) -> int:
    """``train_pinn_segment`` jobs of a study's runs ``(problem, method, seed)``."""
    return sum(n_segments(plan, study, p, m) - 1 for p, m, _ in runs)
