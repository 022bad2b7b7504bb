"""Training of one physics-informed run: Adam with a step decay, then optionally L-BFGS.

Each Adam iteration evaluates the residual at the sampler's points, the initial condition
at fixed points ``t = t0`` and, on a periodic domain, the mismatch of ``u`` (and of
``problem.boundary_derivatives`` of its ``x`` derivatives) between the two ends at fixed
times; the loss is their weighted sum; after the step the sampler moves its points. The
L-BFGS phase (strong Wolfe line search, float64, the last collocation points) keeps its
best iterate, since it can return NaN.

Every ``log_every`` iterations the history records the losses, the sampler's and the
weighting's state, the *validation residual* (mean squared residual at fixed fresh points
never trained on: it reads no reference, so budgets are chosen on it) and the relative L2
error on the reference grid (reported, never used for any choice).
"""

from __future__ import annotations

import copy
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.training.pinn.problems.base import Problem, gradient
from pderepro.training.pinn.samplers.base import Sampler, Weighting

logger = logging.getLogger(__name__)

#: Fresh points of the validation residual.
VALIDATION_POINTS = 4096
#: Seed offset of the validation points and of the fixed initial and boundary points.
VALIDATION_SEED_OFFSET, CONDITION_SEED_OFFSET = 7919, 104729


@dataclass(frozen=True)
class Budget:
    """The optimiser schedule: Adam ``iterations`` at ``learning_rate`` times
    ``decay_factor`` every ``decay_every`` iterations, then ``lbfgs_iterations``."""

    iterations: int
    learning_rate: float
    decay_every: int
    decay_factor: float
    lbfgs_iterations: int = 0
    log_every: int = 100


@dataclass(frozen=True)
class LossSetup:
    """Point counts and weights of the three loss terms."""

    n_initial: int
    n_boundary: int
    residual_weight: float = 1.0
    initial_weight: float = 1.0
    boundary_weight: float = 1.0


@dataclass
class Reference:
    """The reference solution ``u (nt, nx)`` on the grid ``x (nx,)``, ``t (nt,)``."""

    x: np.ndarray
    t: np.ndarray
    u: np.ndarray

    def points(self, dtype: torch.dtype) -> Tensor:
        """Grid points ``(nt * nx, 2)`` in the order of ``u.ravel()``."""
        xx, tt = np.meshgrid(self.x, self.t)  # (nt, nx) each
        return torch.as_tensor(np.stack([xx.ravel(), tt.ravel()], axis=1), dtype=dtype)


@dataclass
class Snapshot:
    """The residual field on a grid and the collocation points at one iteration."""

    iteration: int
    residual: np.ndarray  # (nt, nx) absolute residual on the snapshot grid
    points: np.ndarray  # (n, 2) collocation points (x, t)


@dataclass
class PinnRun:
    """What :func:`train_pinn` returns: the history (one row per log), snapshots, the
    final prediction on the reference grid and timings (seconds)."""

    history: list[dict[str, float]]
    snapshots: list[Snapshot] = field(default_factory=list)
    prediction: np.ndarray | None = None
    rel_l2: float = math.nan  # of the final (kept) network on the reference grid
    adam_s_per_iteration: float = math.nan
    lbfgs_s_per_iteration: float = math.nan
    lbfgs_iterations_taken: int = 0
    train_s: float = math.nan


def relative_l2(model: nn.Module, reference: Reference, dtype: torch.dtype) -> tuple[float, Any]:
    """``||u - u_ref|| / ||u_ref||`` over the whole reference grid, and the prediction."""
    with torch.no_grad():
        pred = model(reference.points(dtype)).double().numpy().reshape(reference.u.shape)
    return float(np.linalg.norm(pred - reference.u) / np.linalg.norm(reference.u)), pred


class PinnObjective:
    """The loss of a run: residual, initial and boundary terms at their points."""

    def __init__(self, problem: Problem, setup: LossSetup, seed: int, dtype: torch.dtype) -> None:
        self.problem, self.setup = problem, setup
        domain = problem.domain
        conditions = domain.point_set(
            "sobol", max(setup.n_initial, setup.n_boundary), seed + CONDITION_SEED_OFFSET, dtype
        )
        self.initial = torch.stack(
            [conditions[: setup.n_initial, 0], torch.full((setup.n_initial,), domain.t[0])], 1
        ).to(dtype)  # (n_initial, 2) at t = t0
        self.u0 = problem.initial_condition(self.initial[:, 0])
        times = conditions[: setup.n_boundary, 1]
        self.lower_edge = torch.stack([torch.full_like(times, domain.x[0]), times], 1)
        self.upper_edge = torch.stack([torch.full_like(times, domain.x[1]), times], 1)
        self.validation = domain.point_set(
            "uniform", VALIDATION_POINTS, seed + VALIDATION_SEED_OFFSET, dtype
        )

    def to(self, dtype: torch.dtype) -> None:
        for name in ("initial", "u0", "lower_edge", "upper_edge", "validation"):
            setattr(self, name, getattr(self, name).to(dtype))

    def residual(self, model: nn.Module, points: Tensor) -> Tensor:
        """The residual ``(n,)`` at ``points (n, 2)`` (kept in the graph)."""
        points = points.detach().requires_grad_(True)
        return self.problem.residual(model(points), points)

    def residual_at(self, model: nn.Module) -> Callable[[Tensor], Tensor]:
        """Absolute residuals under the current model, detached (for samplers' pools)."""
        return lambda points: self.residual(model, points).detach().abs()

    def boundary(self, model: nn.Module) -> Tensor:
        if not self.problem.domain.periodic:
            return torch.zeros((), dtype=self.initial.dtype)
        lower = self.lower_edge.clone().requires_grad_(True)
        upper = self.upper_edge.clone().requires_grad_(True)
        u_lo, u_hi = model(lower), model(upper)
        loss = torch.mean((u_lo - u_hi) ** 2)
        for _ in range(self.problem.boundary_derivatives):
            u_lo, u_hi = gradient(u_lo, lower)[:, 0], gradient(u_hi, upper)[:, 0]
            loss = loss + torch.mean((u_lo - u_hi) ** 2)
        return loss

    def terms(
        self, model: nn.Module, sampler: Sampler, weighting: Weighting
    ) -> tuple[Tensor, Tensor, dict[str, Tensor]]:
        """The weighted total loss, the residuals ``(n,)`` and each term."""
        points = sampler.points
        residual = self.residual(model, points)  # (n,)
        weights = sampler.point_weights()
        squared = residual**2 if weights is None else weights * residual**2
        res_loss = weighting.loss(squared, points[:, 1])
        ic_loss = torch.mean((model(self.initial) - self.u0) ** 2)
        bc_loss = self.boundary(model)
        s = self.setup
        total = s.residual_weight * res_loss + s.initial_weight * ic_loss
        total = total + s.boundary_weight * bc_loss
        return total, residual, {"residual_loss": res_loss, "initial_loss": ic_loss,
                                 "boundary_loss": bc_loss}  # fmt: skip

    def validation_residual(self, model: nn.Module) -> float:
        """Mean squared residual at the fixed fresh points (reads no reference)."""
        return float(torch.mean(self.residual(model, self.validation).detach() ** 2))


def _snapshot(objective: PinnObjective, model: nn.Module, sampler: Sampler, iteration: int,
              grid: tuple[int, int]) -> Snapshot:  # fmt: skip
    domain = objective.problem.domain
    x = torch.linspace(*domain.x, grid[0], dtype=sampler.dtype)
    t = torch.linspace(*domain.t, grid[1], dtype=sampler.dtype)
    tt, xx = torch.meshgrid(t, x, indexing="ij")  # (nt, nx)
    points = torch.stack([xx.ravel(), tt.ravel()], 1)
    field_ = objective.residual(model, points).detach().abs().reshape(grid[1], grid[0])
    return Snapshot(iteration, field_.double().numpy(), sampler.points.double().numpy())


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
) -> PinnRun:
    """Train ``model`` on ``problem``; see the module docstring.

    Parameters
    ----------
    problem, model, sampler, weighting
        The run's pieces (model and points in the sampler's dtype).
    budget, setup : Budget, LossSetup
        Schedule; loss points and weights.
    seed : int
        Seeds the fixed initial, boundary and validation points.
    reference : Reference, optional
        Scored at every log (relative L2) and predicted on at the end.
    snapshot_iterations : sequence of int
        Adam iterations after which to keep a :class:`Snapshot` (0: before training).
    snapshot_grid : (nx, nt)
        Grid of the snapshots' residual fields.
    """
    dtype = sampler.dtype
    objective = PinnObjective(problem, setup, seed, dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=budget.learning_rate)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, budget.decay_every, budget.decay_factor)
    run = PinnRun(history=[])
    wanted = set(int(i) for i in snapshot_iterations)
    if 0 in wanted:
        run.snapshots.append(_snapshot(objective, model, sampler, 0, snapshot_grid))
    eval_s, start = 0.0, time.perf_counter()
    for iteration in range(budget.iterations):
        optimizer.zero_grad(set_to_none=True)
        total, residual, terms = objective.terms(model, sampler, weighting)
        total.backward()
        optimizer.step()
        schedule.step()
        sampler.update(iteration, residual.detach().abs(), objective.residual_at(model))
        done = iteration + 1
        if done % budget.log_every == 0 or done == budget.iterations or done in wanted:
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
    adam_s = time.perf_counter() - start - eval_s
    run.adam_s_per_iteration = adam_s / max(budget.iterations, 1)
    if budget.lbfgs_iterations:
        lbfgs_s = _lbfgs(problem, model, sampler, weighting, objective, budget, reference, run)
        run.lbfgs_s_per_iteration = lbfgs_s / max(run.lbfgs_iterations_taken, 1)
        adam_s += lbfgs_s
    run.train_s = adam_s
    if reference is not None:
        run.rel_l2, run.prediction = relative_l2(model, reference, sampler.dtype)
    return run


def _log_row(phase: str, iteration: int, total: Tensor, terms: dict[str, Tensor],
             objective: PinnObjective, model: nn.Module, sampler: Sampler,
             weighting: Weighting, reference: Reference | None,
             dtype: torch.dtype) -> dict[str, float]:  # fmt: skip
    row: dict[str, Any] = {"phase": phase, "iteration": iteration, "loss": float(total.detach())}
    row.update({k: float(v.detach()) for k, v in terms.items()})
    row["validation_residual"] = objective.validation_residual(model)
    row["rel_l2"] = relative_l2(model, reference, dtype)[0] if reference is not None else math.nan
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

    start_loss = float(objective.terms(model, sampler, weighting)[0].detach())
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
