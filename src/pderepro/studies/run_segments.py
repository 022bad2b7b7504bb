"""Runs of the step-by-step kinds (physics-informed, neural spectral) longer than the
cluster's longest job (``cluster.max_job_minutes``), trained as resumable segments: rule
input functions, each taking the plan and a job's wildcards by name.

A run of ``n`` segments is ``n - 1`` segment jobs (``train_pinn_segment``,
``train_nsm_segment``: segment ``k`` trains up to run step ``stop_step(k)`` and saves the
run's state to ``segment_file(k)``, :class:`pderepro.training.pinn.run_state.Segment`),
then the run's own job (``train_pinn``, ``train_nsm``), which resumes from the last one,
trains the rest and writes the run's outputs: the weights of one uninterrupted job
(``tests/unit/test_pinn_segments.py``, ``tests/unit/test_nsm_segments.py``). Run steps are
Adam iterations, then L-BFGS blocks of ``log_every`` iterations; the cut points split the
run's estimated time (an L-BFGS iteration three Adam ones, as the kinds' cost models
count them) about equally, L-BFGS at whole blocks. A run that fits is one job, as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pderepro.resources import MIN_RUNTIME
from pderepro.studies import neural_spectral_inputs, physics_informed_inputs
from pderepro.studies.physics_informed import run_settings

#: One segment's resumable state (both kinds keep a run's files in this folder).
SEGMENT = "results/{study}/{problem}/runs/{method}/seed{seed}/segment{segment}.pt"


def _cost(step: int, adam: int, lbfgs: int, block: int) -> int:
    """The run's cost up to run step ``step``, in Adam iterations (an L-BFGS one: three)."""
    return step if step <= adam else adam + min(3 * block * (step - adam), 3 * lbfgs)


@dataclass(frozen=True)
class RunSegments:
    """The segments of one kind's runs, from its cost model: ``runtime(plan, study,
    problem, method)``, a run's minutes in one job (with the margin), and ``budget(plan,
    study, problem, method)``, its ``(Adam iterations, L-BFGS iterations, log_every)``."""

    runtime: Callable[..., int]
    budget: Callable[..., tuple[int, int, int]]

    def stops(self, plan, study: str, problem: str, method: str, **_: Any) -> list[int]:
        """The run steps the segments before the last stop at (empty: one job)."""
        cluster = plan.config["cluster"]
        minutes = self.runtime(plan, study, problem, method)
        room = max(cluster["max_job_minutes"] - MIN_RUNTIME, 1)
        n = max(math.ceil((minutes - MIN_RUNTIME) / room), cluster["min_segments"], 1)
        adam, lbfgs, block = self.budget(plan, study, problem, method)
        total, steps = adam + 3 * lbfgs, adam + math.ceil(lbfgs / block)
        stops = set()
        for k in range(n - 1):
            cut = total * (k + 1) / n
            blocks = max(1, round((cut - adam) / (3 * block)))
            stops.add(math.ceil(cut) if cut <= adam else adam + blocks)
        return sorted(s for s in stops if 0 < s < steps)

    def n_segments(self, plan, study: str, problem: str, method: str, **_: Any) -> int:
        """Jobs one run trains in (1: no segment)."""
        return len(self.stops(plan, study, problem, method)) + 1

    def segment_runtime(self, plan, study: str, problem: str, method: str, **_: Any) -> int:
        """Minutes of the run's longest job: the fixed start and its share of the run."""
        minutes = self.runtime(plan, study, problem, method)
        stops = self.stops(plan, study, problem, method)
        if not stops:
            return minutes
        adam, lbfgs, block = self.budget(plan, study, problem, method)
        costs = [0, *(_cost(s, adam, lbfgs, block) for s in stops), adam + 3 * lbfgs]
        share = max(b - a for a, b in zip(costs[:-1], costs[1:], strict=True)) / costs[-1]
        return MIN_RUNTIME + math.ceil((minutes - MIN_RUNTIME) * share)

    def stop_step(self, plan, study: str, problem: str, method: str, segment: str,
                  **_: Any) -> int:  # fmt: skip
        """The run step segment ``segment`` (0-based) stops at."""
        return self.stops(plan, study, problem, method)[int(segment)]

    def previous_segment(self, plan, study: str, problem: str, method: str, seed: str,
                         segment: str | None = None, **_: Any) -> list[str]:  # fmt: skip
        """The state a job resumes from: segment ``k - 1`` for segment ``k``, the last
        segment for the run's own job (the final one); none for the first."""
        k = self.n_segments(plan, study, problem, method) - 1 if segment is None else int(segment)
        if k <= 0:
            return []
        return [SEGMENT.format(study=study, problem=problem, method=method, seed=seed,
                               segment=k - 1)]  # fmt: skip

    def segment_jobs(self, plan, study: str, runs: list[tuple[str, str, int]]) -> int:
        """Segment jobs of a study's runs ``(problem, method, seed)``."""
        return sum(self.n_segments(plan, study, p, m) - 1 for p, m, _ in runs)


def _pinn_budget(plan, study: str, problem: str, method: str) -> tuple[int, int, int]:
    settings = run_settings(plan.studies[study], problem, method)
    training = settings["problem"]["training"]
    return int(training["iterations"]), int(training["lbfgs_iterations"]), settings["log_every"]


def _nsm_budget(plan, study: str, problem: str, method: str) -> tuple[int, int, int]:
    settings = neural_spectral_inputs.train_params(plan, study, problem, method)
    return int(settings["iterations"]), 0, int(settings["log_every"])


#: Physics-informed runs (rules train_pinn_segment, train_pinn).
PINN = RunSegments(physics_informed_inputs.train_runtime, _pinn_budget)
#: Neural spectral runs (rules train_nsm_segment, train_nsm).
NSM = RunSegments(neural_spectral_inputs.train_runtime, _nsm_budget)
