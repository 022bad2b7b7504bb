"""High-dimensional steady problems on the unit ball: the SDGD paper's test problems
(Hu, Shukla, Karniadakis, Kawaguchi 2024, docs/references.md; as their released code
defines them).

On ``|x| <= R`` in ``d`` dimensions the exact solution is

    u(x) = (R^2 - |x|^2) sum_{i=1}^{d-1} c_i sin(x_i + cos x_{i+1} + x_{i+1} cos x_i),

``c_i ~ N(0, 1)`` drawn once per problem (numpy's PCG64 seeded by ``coefficient_seed``;
the code's ``np.random.randn(d - 1)`` under its run seed), the sum over neighbours
without wrapping round, as the code has it. The trial function ``(R^2 - |x|^2) NN(x)``
holds ``u = 0`` on the sphere exactly. The source ``f`` is made so that ``u`` solves

* ``ball_poisson``: ``Δu = f``;
* ``ball_allen_cahn``: ``Δu + u - u^3 = f``,

with ``Δu`` of the exact solution in closed form, O(d) per point. The residual's
Laplacian is whole (:func:`~pderepro.training.pinn.laplacian.laplacian`) or, with
``sampled_dims = k``, SDGD's unbiased estimate over ``k`` coordinates drawn each
evaluation (a method's option, not the PDE's).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from pderepro.training.pinn.domain import Ball
from pderepro.training.pinn.laplacian import laplacian
from pderepro.training.pinn.problems.base import Problem, register_problem


def _pieces(x: Tensor, c: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """``g = sum c_i sin(theta_i)``, ``x . grad g`` and ``Δg`` at ``x (n, d)``: each ``(n,)``."""
    left, right = x[:, :-1], x[:, 1:]  # x_i, x_{i+1}: (n, d-1)
    theta = left + torch.cos(right) + right * torch.cos(left)
    p = 1 - right * torch.sin(left)  # d theta_i / d x_i
    q = torch.cos(left) - torch.sin(right)  # d theta_i / d x_{i+1}
    p2 = -right * torch.cos(left)  # d^2 theta_i / d x_i^2
    q2 = -torch.cos(right)  # d^2 theta_i / d x_{i+1}^2
    sin, cos = torch.sin(theta), torch.cos(theta)
    g = (c * sin).sum(dim=1)
    x_dot_grad = (c * cos * (left * p + right * q)).sum(dim=1)
    lap_g = (c * (cos * (p2 + q2) - sin * (p**2 + q**2))).sum(dim=1)
    return g, x_dot_grad, lap_g


class BallProblem(Problem):
    """The exact solution, its Laplacian and the residual shared by the ball's equations.

    Parameters
    ----------
    dimension : int
        ``d >= 2``.
    radius : float
        ``R``.
    coefficient_seed : int
        Seeds the ``c_i``.
    sampled_dims : int
        0: the whole Laplacian; ``k``: SDGD's estimate over ``k`` coordinates.
    """

    def __init__(
        self, dimension: float, radius: float = 1.0, coefficient_seed: float = 0,
        sampled_dims: float = 0,
    ) -> None:  # fmt: skip
        if int(dimension) != dimension or dimension < 2:
            raise ValueError(f"{self.name}: dimension must be an integer >= 2, got {dimension}")
        if int(sampled_dims) != sampled_dims or sampled_dims < 0:
            raise ValueError(
                f"{self.name}: sampled_dims must be an integer >= 0, got {sampled_dims}"
            )
        self.dimension, self.radius = int(dimension), float(radius)
        self.coefficient_seed, self.sampled_dims = int(coefficient_seed), int(sampled_dims)
        self.domain = Ball.of(self.dimension, self.radius)
        # the exact residual at a point costs d Hessian-vector products: the validation
        # residual scores 64 points up to d = 1000, fewer above (8 from d = 8000)
        self.validation_points = max(8, min(64, 64_000 // self.dimension))
        rng = np.random.default_rng(self.coefficient_seed)
        self.coefficients = rng.standard_normal(self.dimension - 1)  # (d-1,)
        self.reference_method = (
            f"exact: (R^2 - |x|^2) sum c_i sin(x_i + cos x_(i+1) + x_(i+1) cos x_i), "
            f"d = {self.dimension}, c ~ N(0, 1) seed {self.coefficient_seed}"
        )

    def parameters(self) -> dict[str, float]:
        return {
            "dimension": self.dimension, "radius": self.radius,
            "coefficient_seed": self.coefficient_seed, "sampled_dims": self.sampled_dims,
        }  # fmt: skip

    def _c(self, x: Tensor) -> Tensor:
        return torch.as_tensor(self.coefficients, dtype=x.dtype, device=x.device)

    def exact(self, x: Tensor) -> Tensor:
        """``u`` at ``x (n, d)``: ``(n,)``."""
        envelope = self.radius**2 - (x * x).sum(dim=1)
        return envelope * _pieces(x, self._c(x))[0]

    def exact_laplacian(self, x: Tensor) -> Tensor:
        """``Δu = B Δg - 4 x . grad g - 2 d g`` with ``B = R^2 - |x|^2``: ``(n,)``."""
        g, x_dot_grad, lap_g = _pieces(x, self._c(x))
        envelope = self.radius**2 - (x * x).sum(dim=1)
        return envelope * lap_g - 4 * x_dot_grad - 2 * self.dimension * g

    def reaction(self, u: Tensor) -> Tensor:
        """The equation's terms beside ``Δu`` (``(n,)``)."""
        return torch.zeros_like(u)

    def source(self, x: Tensor) -> Tensor:
        """``f`` at ``x (n, d)`` that the exact solution satisfies: ``(n,)``."""
        return self.exact_laplacian(x) + self.reaction(self.exact(x))

    def trial(self, raw: Tensor, points: Tensor) -> Tensor:
        return (self.radius**2 - (points * points).sum(dim=1)) * raw

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        raise NotImplementedError(f"{self.name}: the residual needs the field (residual_of)")

    def residual_of(
        self, field: Callable[[Tensor], Tensor], points: Tensor, exact: bool = False
    ) -> Tensor:
        """``Δu + reaction(u) - f`` at ``points (n, d)``, ``Δu`` whole (``exact``, or no
        ``sampled_dims``) or SDGD's estimate."""
        points = points.detach()
        if exact:  # for scoring, never trained on: without the parameters' graph
            with torch.no_grad():
                lap = laplacian(field, points)
                return lap + self.reaction(field(points)) - self.source(points)
        # SDGD's coordinates come from torch's global stream, which the run seeds
        lap = laplacian(field, points, self.sampled_dims)
        return lap + self.reaction(field(points)) - self.source(points)

    def reference(self, *axes: np.ndarray) -> np.ndarray:
        raise ValueError(f"{self.name}: the reference is on scattered points (reference_at)")

    #: Points of the training law the no-learning constant is fitted on, and their seed
    #: (apart from every run's and the test points' seeds).
    NO_LEARNING_POINTS, NO_LEARNING_SEED = 4096, 12345

    def no_learning_at(self, points: np.ndarray) -> tuple[str, np.ndarray]:
        """The best constant multiple ``C (R^2 - |x|^2)`` of the trial envelope at the
        test ``points (n, d)``: the strongest one-parameter fit that learns nothing of
        the solution's shape. ``C`` is the least-squares fit of the exact solution on
        :attr:`NO_LEARNING_POINTS` points of the training law (never the test points)."""
        generator = torch.Generator().manual_seed(self.NO_LEARNING_SEED)
        train = self.domain.uniform(self.NO_LEARNING_POINTS, generator, torch.float64).numpy()
        envelope = self.radius**2 - (train * train).sum(axis=1)  # (n_train,)
        exact = self.reference_at(train)  # (n_train,)
        scale = float(envelope @ exact / (envelope @ envelope))
        label = (
            f"best constant multiple C (R^2 - |x|^2), C = {scale:.3g} fitted on "
            f"{self.NO_LEARNING_POINTS} training-law points (no learning)"
        )
        return label, scale * (self.radius**2 - (points * points).sum(axis=1))

    def reference_at(self, points: np.ndarray) -> np.ndarray:
        """The exact solution at ``points (n, d)``, float64, in chunks of 4096 rows."""
        chunks = [
            self.exact(torch.as_tensor(points[i : i + 4096], dtype=torch.float64)).numpy()
            for i in range(0, points.shape[0], 4096)
        ]
        return np.concatenate(chunks)


@register_problem
class BallPoisson(BallProblem):
    """``Δu = f`` on the ball (SDGD's Poisson)."""

    name = "ball_poisson"


@register_problem
class BallAllenCahn(BallProblem):
    """``Δu + u - u^3 = f`` on the ball (SDGD's Allen-Cahn)."""

    name = "ball_allen_cahn"

    def reaction(self, u: Tensor) -> Tensor:
        return u - u**3
