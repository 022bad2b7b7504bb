"""Helmholtz ``u_xx + u_yy + k^2 u = q`` on [-1, 1]^2 with ``u = 0`` on the boundary
(Wang, Teng, Perdikaris 2021; the Physics-Informed Gaussians paper's first problem,
docs/references.md): ``q`` is made so that ``u = sin(a_x pi x) sin(a_y pi y)``, exact.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.problems.base import Problem, gradient, register_problem


@register_problem
class Helmholtz(Problem):
    """Parameters: the solution's wave numbers ``a_x`` (in x), ``a_y`` (in y), in
    half-waves per unit length, and ``k`` (the authors' code: ``a2 = 1`` in x, ``a1 = 4``
    in y, ``k^2 = lambda = 1``)."""

    name = "helmholtz"

    def __init__(self, a_x: float, a_y: float, k: float) -> None:
        self.a_x, self.a_y, self.k = float(a_x), float(a_y), float(k)
        self.domain = Domain.box(x=(-1.0, 1.0), y=(-1.0, 1.0))
        self.reference_method = f"exact: sin({self.a_x:g} pi x) sin({self.a_y:g} pi y)"

    def parameters(self) -> dict[str, float]:
        return {"a_x": self.a_x, "a_y": self.a_y, "k": self.k}

    def _exact(self, x, y, sin):
        return sin(self.a_x * math.pi * x) * sin(self.a_y * math.pi * y)

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        du = gradient(u, points)  # (n, 2): u_x, u_y
        u_xx = gradient(du[:, 0], points)[:, 0]
        u_yy = gradient(du[:, 1], points)[:, 1]
        x, y = points[:, 0], points[:, 1]
        factor = self.k**2 - (self.a_x * math.pi) ** 2 - (self.a_y * math.pi) ** 2
        source = factor * self._exact(x, y, torch.sin)
        return u_xx + u_yy + self.k**2 * u - source

    def boundary_value(self, points: Tensor) -> Tensor:
        return torch.zeros(points.shape[0], dtype=points.dtype)

    def reference(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self._exact(x[None, :], y[:, None], np.sin)  # (ny, nx)
