"""Training of one physics-informed run: Adam with a step decay, then optionally L-BFGS.

The trained function is a :class:`PinnField`: the network behind the problem's trial
function, with the problem's trainable scalars (an eigenvalue). Each Adam iteration
evaluates the residual at the sampler's points; on an evolution domain the initial
condition at fixed points ``t = t0``; on a periodic domain the mismatch of
``u`` (and of ``problem.boundary_derivatives`` of its first-coordinate derivatives)
between the two ends, else the problem's Dirichlet values on the faces, if any. The loss
is their weighted sum; after the step the sampler moves its points. The L-BFGS phase
(strong Wolfe line search, float64, the last collocation points) keeps its best iterate,
since it can return NaN; a budget may be L-BFGS alone (no Adam iteration).

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
#: Seed offset of the validation points, of the fixed initial and periodic-end points, and
#: of the fixed Dirichlet face points.
VALIDATION_SEED_OFFSET, CONDITION_SEED_OFFSET, FACE_SEED_OFFSET = 7919, 104729, 1299709


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
    """Point counts and weights of the loss terms."""

    n_initial: int
    n_boundary: int
    residual_weight: float = 1.0
    initial_weight: float = 1.0
    boundary_weight: float = 1.0


@dataclass
class Reference:
    """The reference solution ``u`` on the grid of ``axes`` (one per coordinate, in the
    domain's order); ``u`` is shaped by the axes in reverse order (``(nt, nx)``), and
    ``quantity`` is the reference value of the problem's trainable scalar, if any."""

    axes: tuple[np.ndarray, ...]
    u: np.ndarray
    quantity: float | None = None

    def points(self, dtype: torch.dtype) -> Tensor:
        """Grid points ``(u.size, dim)`` in the order of ``u.ravel()``."""
        mesh = np.meshgrid(*self.axes[::-1], indexing="ij")  # each shaped like u
        return torch.as_tensor(np.stack([m.ravel() for m in mesh[::-1]], axis=1), dtype=dtype)


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
    quantity: float = math.nan  # the problem's trainable scalar at the end, if any
    adam_s_per_iteration: float = math.nan
    lbfgs_s_per_iteration: float = math.nan
    lbfgs_iterations_taken: int = 0
    train_s: float = math.nan


def reference_error(
    model: nn.Module, problem: Problem, reference: Reference, dtype: torch.dtype
) -> tuple[float, Any]:
    """The problem's error (relative L2, or as the problem defines it) over the whole
    reference grid, and the prediction."""
    with torch.no_grad():
        pred = model(reference.points(dtype)).double().numpy().reshape(reference.u.shape)
    pred = problem.aligned(pred, reference.u)
    return problem.error(pred, reference.u), pred


class PinnObjective:
    """The loss of a run: residual, initial, boundary and the problem's own terms."""

    def __init__(self, problem: Problem, setup: LossSetup, seed: int, dtype: torch.dtype) -> None:
        self.problem, self.setup = problem, setup
        domain = problem.domain
        self.initial = self.u0 = None
        self.lower_edge = self.upper_edge = self.faces = self.face_values = None
        if domain.evolution:
            self.initial = domain.initial_points(setup.n_initial, seed + CONDITION_SEED_OFFSET,
                                                 dtype)  # (n_initial, dim) at t = t0  # fmt: skip
            self.u0 = problem.initial_condition(self.initial)
        if domain.periodic:  # (x, t): the two ends of x at the same Sobol times
            conditions = domain.point_set("sobol", setup.n_boundary, seed + CONDITION_SEED_OFFSET,
                                          dtype)  # fmt: skip
            times = conditions[:, 1]
            self.lower_edge = torch.stack([torch.full_like(times, domain.x[0]), times], 1)
            self.upper_edge = torch.stack([torch.full_like(times, domain.x[1]), times], 1)
        else:
            # their own stream: the initial points' would repeat along a face
            faces = domain.boundary_points(setup.n_boundary, seed + FACE_SEED_OFFSET, dtype)
            values = problem.boundary_value(faces)
            if values is not None:
                self.faces, self.face_values = faces, values  # (m, dim), (m,)
        self.validation = domain.point_set(
            "uniform", VALIDATION_POINTS, seed + VALIDATION_SEED_OFFSET, dtype
        )

    def to(self, dtype: torch.dtype) -> None:
        for name in ("initial", "u0", "lower_edge", "upper_edge", "faces", "face_values",
                     "validation"):  # fmt: skip
            if getattr(self, name) is not None:
                setattr(self, name, getattr(self, name).to(dtype))

    def residual(self, model: nn.Module, points: Tensor) -> Tensor:
        """The residual ``(n,)`` at ``points (n, dim)`` (kept in the graph)."""
        points = points.detach().requires_grad_(True)
        return self.problem.residual(model(points), points)

    def residual_at(self, model: nn.Module) -> Callable[[Tensor], Tensor]:
        """Absolute residuals under the current model, detached (for samplers' pools)."""
        return lambda points: self.residual(model, points).detach().abs()

    def initial_loss(self, model: nn.Module) -> Tensor:
        if self.initial is None:
            return torch.zeros((), dtype=self.validation.dtype)
        return torch.mean((model(self.initial) - self.u0) ** 2)

    def boundary(self, model: nn.Module) -> Tensor:
        if self.faces is not None:
            return torch.mean((model(self.faces) - self.face_values) ** 2)
        if self.lower_edge is None:
            return torch.zeros((), dtype=self.validation.dtype)
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
        res_loss = weighting.loss(squared, points[:, -1])
        ic_loss = self.initial_loss(model)
        bc_loss = self.boundary(model)
        s = self.setup
        total = s.residual_weight * res_loss + s.initial_weight * ic_loss
        total = total + s.boundary_weight * bc_loss
        terms = {"residual_loss": res_loss, "initial_loss": ic_loss, "boundary_loss": bc_loss}
        return total, residual, terms

    def validation_residual(self, model: nn.Module) -> float:
        """Mean squared residual at the fixed fresh points (reads no reference)."""
        return float(torch.mean(self.residual(model, self.validation).detach() ** 2))


def _snapshot(objective: PinnObjective, model: nn.Module, sampler: Sampler, iteration: int,
              grid: tuple[int, int]) -> Snapshot:  # fmt: skip
    first, second = objective.problem.domain.bounds  # a two-coordinate domain: (x, t), (x, y)
    x = torch.linspace(*first, grid[0], dtype=sampler.dtype)
    t = torch.linspace(*second, grid[1], dtype=sampler.dtype)
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
        The run's pieces (model and points in the sampler's dtype); ``model`` is the
        :class:`PinnField` of ``problem`` (or any network ``u(points)``).
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
    run.adam_s_per_iteration = adam_s / budget.iterations if budget.iterations else math.nan
    if budget.lbfgs_iterations:
        lbfgs_s = _lbfgs(problem, model, sampler, weighting, objective, budget, reference, run)
        run.lbfgs_s_per_iteration = lbfgs_s / max(run.lbfgs_iterations_taken, 1)
        adam_s += lbfgs_s
    run.train_s = adam_s
    if reference is not None:
        run.rel_l2, run.prediction = reference_error(model, problem, reference, sampler.dtype)
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
        reference_error(model, objective.problem, reference, dtype)[0]
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
