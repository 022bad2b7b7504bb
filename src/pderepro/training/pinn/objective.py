"""The loss of a physics-informed run: residual, initial, boundary terms and their points.

The residual is the problem's (:meth:`~pderepro.training.pinn.problems.Problem.residual_of`)
at the sampler's points; on an evolution domain the initial condition at fixed points
``t = t0``; on a periodic domain the mismatch of ``u`` (and of
``problem.boundary_derivatives`` of its first-coordinate derivatives) between the two
ends, else the problem's Dirichlet values on the faces, if any. The *validation residual*
is the mean squared (exact) residual at fixed fresh points never trained on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from pderepro.training.pinn.problems.base import Problem, gradient
from pderepro.training.pinn.samplers.base import Sampler, Weighting

#: Fresh points of the validation residual.
VALIDATION_POINTS = 4096
#: Seed offset of the validation points, of the fixed initial and periodic-end points, and
#: of the fixed Dirichlet face points.
VALIDATION_SEED_OFFSET, CONDITION_SEED_OFFSET, FACE_SEED_OFFSET = 7919, 104729, 1299709


@dataclass(frozen=True)
class LossSetup:
    """Point counts and weights of the loss terms."""

    n_initial: int
    n_boundary: int
    residual_weight: float = 1.0
    initial_weight: float = 1.0
    boundary_weight: float = 1.0


class PinnObjective:
    """The loss of a run: residual, initial, boundary and the problem's own terms."""

    def __init__(self, problem: Problem, setup: LossSetup, seed: int, dtype: torch.dtype,
                 device: torch.device | str = "cpu") -> None:  # fmt: skip
        self.problem, self.setup, self.device = problem, setup, torch.device(device)
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
            "uniform", problem.validation_points or VALIDATION_POINTS,
            seed + VALIDATION_SEED_OFFSET, dtype,
        )  # fmt: skip
        self.to(dtype)

    def to(self, dtype: torch.dtype) -> None:
        """Hold the fixed points and values in ``dtype`` on the objective's device."""
        for name in ("initial", "u0", "lower_edge", "upper_edge", "faces", "face_values",
                     "validation"):  # fmt: skip
            if getattr(self, name) is not None:
                setattr(self, name, getattr(self, name).to(self.device, dtype))

    def residual(self, model: nn.Module, points: Tensor) -> Tensor:
        """The residual ``(n,)`` at ``points (n, dim)`` (on the objective's device, kept
        in the graph)."""
        return self.problem.residual_of(model, points.to(self.device))

    def residual_at(self, model: nn.Module) -> Callable[[Tensor], Tensor]:
        """Absolute residuals under the current model, detached, on the points' device
        (for samplers' pools)."""
        return lambda points: self.residual(model, points).detach().abs().to(points.device)

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
        points = sampler.points.to(self.device)
        residual = self.residual(model, points)  # (n,)
        weights = sampler.point_weights()
        squared = residual**2 if weights is None else weights.to(self.device) * residual**2
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
        residual = self.problem.residual_of(model, self.validation, exact=True).detach()
        return float(torch.mean(residual**2))
