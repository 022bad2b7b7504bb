"""Training of one physics-informed run: Adam on a rate schedule, then optionally L-BFGS.

The trained function is a :class:`PinnField`: the network behind the problem's trial
function, with the problem's trainable scalars (an eigenvalue). Each Adam iteration
minimises the run's loss (:mod:`.objective`: residual, initial and boundary terms); after
the step the sampler moves its points. The L-BFGS phase (strong Wolfe line search,
float64, the last collocation points) keeps its best iterate, since it can return NaN; a
budget may be L-BFGS alone (no Adam iteration). A run may carry a time limit, checked
after a few timed iterations (a method that does not fit its budget stops there, its
cost measured), and runs on the CPU or a GPU.

Every ``log_every`` iterations the history records the losses, the sampler's and the
weighting's state, the *validation residual* (mean squared residual at fixed fresh points
never trained on: it reads no reference, so budgets are chosen on it) and the relative L2
error on the reference (reported, never used for any choice).

A run longer than a cluster job runs its Adam phase in segments (:class:`Segment`): each
stops at an iteration and saves the run's whole state (weights, optimiser and schedule,
the sampler's points and generator, the weighting's, the problem's scalars, the history
and the global random stream), and the next restores it and goes on, so that the last
segment ends with the weights of the uninterrupted run.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.training.pinn.objective import LossSetup, PinnObjective
from pderepro.training.pinn.problems.base import Problem
from pderepro.training.pinn.reference import Reference, reference_error
from pderepro.training.pinn.run_state import PinnRun, Segment, SegmentParts, Snapshot
from pderepro.training.pinn.samplers.base import Sampler, Weighting
from pderepro.training.run_limits import (
    TimeLimitProbe,
    out_of_memory,
    peak_memory_mb,
    synchronize,
)

logger = logging.getLogger(__name__)

#: Adam rate schedules: ``step`` (times ``decay_factor`` every ``decay_every``), ``linear``
#: (down to 0 at the last iteration: the SDGD authors').
SCHEDULES = ("step", "linear")


@dataclass(frozen=True)
class Budget:
    """The optimiser schedule: Adam ``iterations`` from ``learning_rate`` on the
    ``schedule`` (:data:`SCHEDULES`), then ``lbfgs_iterations``."""

    iterations: int
    learning_rate: float
    decay_every: int
    decay_factor: float
    lbfgs_iterations: int = 0
    log_every: int = 100
    schedule: str = "step"

    def scheduler(self, optimizer: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LRScheduler:
        if self.schedule == "step":
            return torch.optim.lr_scheduler.StepLR(optimizer, self.decay_every, self.decay_factor)
        if self.schedule == "linear":
            total = max(self.iterations, 1)
            return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: 1 - i / total)
        raise ValueError(f"unknown schedule {self.schedule!r}; choose from {SCHEDULES}")


class PinnField(nn.Module):
    """``u(points)``: the network behind the problem's trial function, and the problem's
    trainable scalars as parameters of this module (so optimisers, ``double()`` and
    checkpoints see them)."""

    def __init__(self, problem: Problem, network: nn.Module) -> None:
        super().__init__()
        self.problem, self.network = problem, network
        self.scalars = nn.ParameterDict(problem.trainable())

    def forward(self, points: Tensor) -> Tensor:
        """Parameters: points, Tensor (n, dim). Returns: Tensor (n,)."""
        u = self.problem.trial(self.network(points), points)
        norm = self.problem.norm(lambda p: self.problem.trial(self.network(p), p), points.dtype)
        return u if norm is None else u / norm


def _snapshot(objective: PinnObjective, model: nn.Module, sampler: Sampler, iteration: int,
              grid: tuple[int, int]) -> Snapshot:  # fmt: skip
    first, second = objective.problem.domain.bounds  # a two-coordinate domain: (x, t), (x, y)
    x = torch.linspace(*first, grid[0], dtype=sampler.dtype)
    t = torch.linspace(*second, grid[1], dtype=sampler.dtype)
    tt, xx = torch.meshgrid(t, x, indexing="ij")  # (nt, nx)
    points = torch.stack([xx.ravel(), tt.ravel()], 1)
    field_ = objective.residual(model, points).detach().abs().reshape(grid[1], grid[0])
    return Snapshot(iteration, field_.double().cpu().numpy(), sampler.points.double().numpy())


def train_pinn(
    problem: Problem,
    model: nn.Module,
    sampler: Sampler,
    weighting: Weighting,
    *,
    budget: Budget,
    setup: LossSetup,
    seed: int,
    reference: Reference | None = None,
    snapshot_iterations: Sequence[int] = (),
    snapshot_grid: tuple[int, int] = (128, 64),
    time_limit_s: float | None = None,
    device: torch.device | str = "cpu",
    segment: Segment | None = None,
) -> PinnRun:
    """Train ``model`` on ``problem``; see the module docstring.

    Parameters
    ----------
    problem, model, sampler, weighting
        The run's pieces (model and points in the sampler's dtype); ``model`` is the
        :class:`PinnField` of ``problem`` (or any network ``u(points)``), moved here to
        ``device``.
    budget, setup : Budget, LossSetup
        Schedule; loss points and weights.
    seed : int
        Seeds the fixed initial, boundary and validation points.
    reference : Reference, optional
        Scored at every log (relative L2) and predicted on at the end.
    snapshot_iterations : sequence of int
        Adam iterations after which to keep a :class:`Snapshot` (0: before training).
    snapshot_grid : (nx, nt)
        Grid of the snapshots' residual fields (two-coordinate domains only).
    time_limit_s : float, optional
        The run's budget (s): after one warm-up and a few timed Adam
        iterations, a run whose Adam phase would take longer stops there, with its
        projected time in ``projected_s``, its time per iteration and memory measured,
        and no error (NaN): the method does not fit the budget. A run out of GPU memory
        stops alike, with ``projected_s`` infinite.
    device : torch.device or str
        Where the network and the loss are evaluated (the sampler's points are drawn on
        the CPU and moved).
    segment : Segment, optional
        The part of the run this call trains (default: all of it). A call that stops
        before the end saves the state and returns the run so far; one that resumes
        skips the iteration-0 snapshot, which the first segment kept.

    The run's ``peak_memory_mb`` is what training added to the process's peak resident
    set on the CPU (0 where it never rose above what the process held before, the
    reference included), or torch's peak allocation during training on a GPU.
    """
    segment = segment or Segment()
    if segment.stop is not None and segment.save is None:
        raise ValueError("a segment that stops needs a path to save its state to")
    device = torch.device(device)
    dtype = sampler.dtype
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    memory_before = 0.0 if device.type == "cuda" else peak_memory_mb(device)
    model.to(device)
    objective = PinnObjective(problem, setup, seed, dtype, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=budget.learning_rate)
    schedule = budget.scheduler(optimizer)
    run = PinnRun(history=[])
    probe = TimeLimitProbe(time_limit_s, budget.iterations, device)
    parts = SegmentParts(model, sampler, weighting, optimizer, schedule, run, probe)
    first, elapsed_s, eval_s = 0, 0.0, 0.0
    if segment.resume is not None:
        first, elapsed_s, eval_s, finished = parts.restore(segment.resume)
        logger.info("resuming from %s at Adam iteration %d", segment.resume, first)
        if finished:  # an earlier segment stopped the run (time limit, GPU memory)
            if segment.save is not None:  # a later segment's job still writes its state
                parts.save(segment.save, first, elapsed_s, eval_s, True)
            return run
    wanted = set(int(i) for i in snapshot_iterations)
    if 0 in wanted and first == 0:
        run.snapshots.append(_snapshot(objective, model, sampler, 0, snapshot_grid))
    start = time.perf_counter() - elapsed_s

    def stopped_early() -> PinnRun:
        """The run as it stands after a stop; a segment job saves it for the next."""
        if segment.save is not None:
            parts.save(segment.save, iteration, time.perf_counter() - start, eval_s, True)
        return run

    for iteration in range(first, budget.iterations):
        optimizer.zero_grad(set_to_none=True)
        try:
            total, residual, terms = objective.terms(model, sampler, weighting)
            total.backward()
        except (torch.cuda.OutOfMemoryError, RuntimeError) as error:
            if not out_of_memory(error):
                raise
            # the method does not fit the device
            logger.warning("out of GPU memory at iteration %d (%s): stopping", iteration + 1,
                           error)  # fmt: skip
            torch.cuda.empty_cache()
            run.projected_s, run.train_s = math.inf, time.perf_counter() - start
            run.peak_memory_mb = peak_memory_mb(device)
            run.history.append({"phase": "adam", "iteration": iteration, "loss": math.nan,
                                "residual_loss": math.nan, "validation_residual": math.nan,
                                "rel_l2": math.nan, "wall_s": run.train_s})  # fmt: skip
            if reference is not None:
                run.prediction = np.full(reference.u.shape, np.nan)
            return stopped_early()
        optimizer.step()
        schedule.step()
        sampler.update(iteration, residual.detach().abs().to(sampler.points.device),
                       objective.residual_at(model))  # fmt: skip
        done = iteration + 1
        stop = probe.over(done)
        if stop is not None:
            run.adam_s_per_iteration, run.projected_s = stop
            row = _log_row("adam", done, total, terms, objective, model, sampler, weighting,
                           None, dtype)  # fmt: skip
            run.history.append({**row, "wall_s": time.perf_counter() - start})
            run.train_s = time.perf_counter() - start
            run.peak_memory_mb = peak_memory_mb(device) - memory_before
            if reference is not None:
                run.prediction = np.full(reference.u.shape, np.nan)
            return stopped_early()
        if done % budget.log_every == 0 or done == budget.iterations or done in wanted:
            synchronize(device)
            tick = time.perf_counter()
            if done % budget.log_every == 0 or done == budget.iterations:
                row = _log_row("adam", done, total, terms, objective, model, sampler,
                               weighting, reference, dtype)  # fmt: skip
                row["wall_s"] = tick - start - eval_s
                run.history.append(row)
                if done % (10 * budget.log_every) == 0 or done == budget.iterations:
                    logger.info("adam %d/%d: loss %.3e, validation residual %.3e, rel L2 %.3g",
                                done, budget.iterations, row["loss"],
                                row["validation_residual"], row["rel_l2"])  # fmt: skip
            if done in wanted:
                run.snapshots.append(_snapshot(objective, model, sampler, done, snapshot_grid))
            eval_s += time.perf_counter() - tick
        if segment.stop is not None and done == segment.stop and done < budget.iterations:
            synchronize(device)
            parts.save(segment.save, done, time.perf_counter() - start, eval_s, False)
            logger.info("segment done at Adam iteration %d of %d: state saved to %s", done,
                        budget.iterations, segment.save)  # fmt: skip
            return run
    synchronize(device)
    adam_s = time.perf_counter() - start - eval_s
    run.adam_s_per_iteration = adam_s / budget.iterations if budget.iterations else math.nan
    if budget.lbfgs_iterations:
        lbfgs_s = _lbfgs(problem, model, sampler, weighting, objective, budget, reference, run)
        run.lbfgs_s_per_iteration = lbfgs_s / max(run.lbfgs_iterations_taken, 1)
        adam_s += lbfgs_s
    run.train_s = adam_s
    run.peak_memory_mb = peak_memory_mb(device) - memory_before
    if reference is not None:
        run.rel_l2, run.prediction = reference_error(model, problem, reference, sampler.dtype,
                                                     device)  # fmt: skip
    run.quantity = problem.state().get(problem.quantity, math.nan)
    return run


def _log_row(phase: str, iteration: int, total: Tensor, terms: dict[str, Tensor],
             objective: PinnObjective, model: nn.Module, sampler: Sampler,
             weighting: Weighting, reference: Reference | None,
             dtype: torch.dtype) -> dict[str, float]:  # fmt: skip
    row: dict[str, Any] = {"phase": phase, "iteration": iteration, "loss": float(total.detach())}
    row.update({k: float(v.detach()) for k, v in terms.items()})
    row["validation_residual"] = objective.validation_residual(model)
    row["rel_l2"] = (
        reference_error(model, objective.problem, reference, dtype, objective.device)[0]
        if reference is not None else math.nan
    )  # fmt: skip
    row.update(objective.problem.state())
    row.update(sampler.state())
    row.update(weighting.state())
    return row


def _lbfgs(problem: Problem, model: nn.Module, sampler: Sampler, weighting: Weighting,
           objective: PinnObjective, budget: Budget, reference: Reference | None,
           run: PinnRun) -> float:  # fmt: skip
    """L-BFGS in float64 at the last collocation points, keeping the best iterate;
    returns its wall time (s), logging excluded."""
    model.double()
    sampler.to(torch.float64)
    objective.to(torch.float64)
    optimizer = torch.optim.LBFGS(
        model.parameters(), lr=1.0, max_iter=budget.log_every, history_size=50,
        tolerance_grad=0.0, tolerance_change=0.0, line_search_fn="strong_wolfe",
    )  # fmt: skip

    def closure() -> Tensor:
        optimizer.zero_grad(set_to_none=True)
        total, _, _ = objective.terms(model, sampler, weighting)
        total.backward()
        return total

    start_total, _, start_terms = objective.terms(model, sampler, weighting)
    start_loss = float(start_total.detach())
    if not run.history:  # an L-BFGS-only budget: the starting iterate is the first row
        row = _log_row("lbfgs", 0, start_total, start_terms, objective, model, sampler,
                       weighting, reference, torch.float64)  # fmt: skip
        row["wall_s"] = 0.0
        run.history.append(row)
    best_loss, best_state = start_loss, copy.deepcopy(model.state_dict())
    spent, adam_done = 0.0, run.history[-1]["iteration"] if run.history else 0
    adam_wall = run.history[-1]["wall_s"] if run.history else 0.0
    state = optimizer.state[optimizer.param_groups[0]["params"][0]]
    taken = 0  # L-BFGS iterations so far, as the optimiser counts them
    while taken < budget.lbfgs_iterations:
        optimizer.param_groups[0]["max_iter"] = min(budget.log_every,
                                                    budget.lbfgs_iterations - taken)  # fmt: skip
        tick = time.perf_counter()
        optimizer.step(closure)
        spent += time.perf_counter() - tick
        progress = state.get("n_iter", 0) - taken
        taken = state.get("n_iter", 0)
        done = adam_done + taken
        total, _, terms = objective.terms(model, sampler, weighting)
        if not torch.isfinite(total):
            logger.warning("L-BFGS reached a non-finite loss at %d: keeping the best iterate", done)
            break
        if float(total.detach()) < best_loss:
            best_loss, best_state = float(total.detach()), copy.deepcopy(model.state_dict())
        row = _log_row("lbfgs", done, total, terms, objective, model, sampler, weighting,
                       reference, torch.float64)  # fmt: skip
        row["wall_s"] = adam_wall + spent
        run.history.append(row)
        if progress == 0:  # converged (tolerances) or the line search found no descent
            break
    model.load_state_dict(best_state)
    run.lbfgs_iterations_taken = taken
    return spent
