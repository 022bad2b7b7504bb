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
from pderepro.training.pinn.run_state import (
    PinnRun,
    Segment,
    SegmentParts,
    SegmentState,
    Snapshot,
)
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

    def to_float64() -> None:  # the L-BFGS phase's precision
        model.double()
        sampler.to(torch.float64)
        objective.to(torch.float64)

    where = SegmentState()
    if segment.resume is not None:
        where = parts.restore(segment.resume, to_float64)
        logger.info("resuming from %s: %s phase, Adam iteration %d, L-BFGS block %d",
                    segment.resume, where.phase, where.iteration, where.blocks)  # fmt: skip
        if where.phase == "done":  # an earlier segment finished or stopped the run
            if segment.save is not None:  # a later segment's job still writes its state
                parts.save(segment.save, where)
            return run
    first, eval_s = where.iteration, where.eval_s
    wanted = set(int(i) for i in snapshot_iterations)
    if 0 in wanted and segment.resume is None:
        run.snapshots.append(_snapshot(objective, model, sampler, 0, snapshot_grid))
    start = time.perf_counter() - where.elapsed_s

    def finish() -> PinnRun:
        """The run once it finished or stopped for good; a segment job saves it."""
        if segment.save is not None:
            parts.save(segment.save, SegmentState("done", budget.iterations, where.blocks,
                                                  time.perf_counter() - start, eval_s))  # fmt: skip
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
            return finish()
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
            return finish()
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
            parts.save(segment.save, SegmentState("adam", done, 0, time.perf_counter() - start,
                                                  eval_s))  # fmt: skip
            logger.info("segment done at Adam iteration %d of %d: state saved to %s", done,
                        budget.iterations, segment.save)  # fmt: skip
            return run
    synchronize(device)
    if where.phase == "lbfgs":  # resumed inside it: the Adam phase's time was saved
        adam_s = where.lbfgs["adam_s"]
    else:
        adam_s = time.perf_counter() - start - eval_s
        run.adam_s_per_iteration = adam_s / budget.iterations if budget.iterations else math.nan
    if budget.lbfgs_iterations:
        to_float64()
        lbfgs = _Lbfgs(problem, model, sampler, weighting, objective, budget, reference, run)
        if where.phase == "lbfgs":
            lbfgs.restore(where.lbfgs)
        stop = None if segment.stop is None else segment.stop - budget.iterations
        if not lbfgs.train(stop):  # a segment's end inside L-BFGS: save and go
            elapsed = time.perf_counter() - start
            state = {**lbfgs.state(), "adam_s": adam_s}
            parts.save(segment.save, SegmentState("lbfgs", budget.iterations, lbfgs.blocks,
                                                  elapsed, eval_s, state))  # fmt: skip
            logger.info("segment done after L-BFGS block %d: state saved to %s",
                        lbfgs.blocks, segment.save)  # fmt: skip
            return run
        where.blocks = lbfgs.blocks
        run.lbfgs_s_per_iteration = lbfgs.spent / max(run.lbfgs_iterations_taken, 1)
        adam_s += lbfgs.spent
    run.train_s = adam_s
    run.peak_memory_mb = peak_memory_mb(device) - memory_before
    if reference is not None:
        run.rel_l2, run.prediction = reference_error(model, problem, reference, sampler.dtype,
                                                     device)  # fmt: skip
    run.quantity = problem.state().get(problem.quantity, math.nan)
    return finish()


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


class _Lbfgs:
    """L-BFGS in float64 at the last collocation points, keeping the best iterate, in
    blocks of ``log_every`` iterations (one history row each); resumable between blocks."""

    def __init__(self, problem: Problem, model: nn.Module, sampler: Sampler,
                 weighting: Weighting, objective: PinnObjective, budget: Budget,
                 reference: Reference | None, run: PinnRun) -> None:  # fmt: skip
        self.model, self.sampler, self.weighting = model, sampler, weighting
        self.objective, self.budget, self.reference, self.run = objective, budget, reference, run
        self.optimizer = torch.optim.LBFGS(
            model.parameters(), lr=1.0, max_iter=budget.log_every, history_size=50,
            tolerance_grad=0.0, tolerance_change=0.0, line_search_fn="strong_wolfe",
        )  # fmt: skip
        self.blocks, self.spent = 0, 0.0  # blocks done, their wall time (s), logs excluded
        self.best_loss, self.best_state = math.inf, None
        self.adam_done, self.adam_wall = 0, 0.0

    def _terms(self) -> tuple[Tensor, Tensor, dict[str, Tensor]]:
        return self.objective.terms(self.model, self.sampler, self.weighting)

    def _row(self, iteration: int, total: Tensor, terms: dict[str, Tensor]) -> dict[str, Any]:
        return _log_row("lbfgs", iteration, total, terms, self.objective, self.model,
                        self.sampler, self.weighting, self.reference, torch.float64)  # fmt: skip

    def state(self) -> dict[str, Any]:
        """What the next segment needs to go on after the last block."""
        return {"optimizer": self.optimizer.state_dict(), "blocks": self.blocks,
                "spent": self.spent, "best_loss": self.best_loss, "best_state": self.best_state,
                "adam_done": self.adam_done, "adam_wall": self.adam_wall}  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.blocks, self.spent = state["blocks"], state["spent"]
        self.best_loss, self.best_state = state["best_loss"], state["best_state"]
        self.adam_done, self.adam_wall = state["adam_done"], state["adam_wall"]

    def train(self, stop_blocks: int | None = None) -> bool:
        """Run blocks up to the budget, or to ``stop_blocks`` blocks in all (then return
        False with the state to save); at the end load the best iterate and return True."""
        run, budget, model = self.run, self.budget, self.model

        def closure() -> Tensor:
            self.optimizer.zero_grad(set_to_none=True)
            total, _, _ = self._terms()
            total.backward()
            return total

        if self.best_state is None:  # the phase's start (not a resumed segment)
            start_total, _, start_terms = self._terms()
            if not run.history:  # an L-BFGS-only budget: the starting iterate is the first row
                run.history.append({**self._row(0, start_total, start_terms), "wall_s": 0.0})
            self.best_loss = float(start_total.detach())
            self.best_state = copy.deepcopy(model.state_dict())
            self.adam_done = run.history[-1]["iteration"] if run.history else 0
            self.adam_wall = run.history[-1]["wall_s"] if run.history else 0.0
        state = self.optimizer.state[self.optimizer.param_groups[0]["params"][0]]
        taken = state.get("n_iter", 0)  # L-BFGS iterations so far, as the optimiser counts
        while taken < budget.lbfgs_iterations:
            if stop_blocks is not None and self.blocks >= stop_blocks:
                return False
            self.optimizer.param_groups[0]["max_iter"] = min(
                budget.log_every, budget.lbfgs_iterations - taken)  # fmt: skip
            tick = time.perf_counter()
            self.optimizer.step(closure)
            self.spent += time.perf_counter() - tick
            self.blocks += 1
            progress = state.get("n_iter", 0) - taken
            taken = state.get("n_iter", 0)
            done = self.adam_done + taken
            total, _, terms = self._terms()
            if not torch.isfinite(total):
                logger.warning("L-BFGS reached a non-finite loss at %d: keeping the best "
                               "iterate", done)  # fmt: skip
                break
            if float(total.detach()) < self.best_loss:
                self.best_loss = float(total.detach())
                self.best_state = copy.deepcopy(model.state_dict())
            run.history.append({**self._row(done, total, terms),
                                "wall_s": self.adam_wall + self.spent})  # fmt: skip
            if progress == 0:  # converged (tolerances) or the line search found no descent
                break
        model.load_state_dict(self.best_state)
        run.lbfgs_iterations_taken = taken
        return True
