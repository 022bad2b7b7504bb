"""Convection ``u_t + beta u_x = 0`` on ``[0, 2 pi)`` periodic, ``t in [0, 1]``, ``u0 = sin x``
(Krishnapriyan et al. 2021's failure mode; the R3 paper's first problem, docs/references.md).

The reference is exact: ``u = sin(x - beta t)`` (the authors' code shifts by FFT on the
same grid, which is exact for this initial condition too).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from pderepro.solvers.transport.advection import convection_exact
from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.problems.base import Problem, gradient, register_problem


@register_problem
class Convection(Problem):
    """Parameters: beta, the speed (domain lengths of 2 pi per time unit / 2 pi)."""

    name = "convection"
    boundary_derivatives = 0

    def __init__(self, beta: float) -> None:
        self.beta = float(beta)
        self.domain = Domain.space_time(x=(0.0, 2 * math.pi), t=(0.0, 1.0), periodic=True)
        self.reference_method = f"exact: sin(x - {self.beta:g} t)"

    def parameters(self) -> dict[str, float]:
        return {"beta": self.beta}

    def initial_condition(self, points: Tensor) -> Tensor:
        return torch.sin(points[:, 0])

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        du = gradient(u, points)  # (n, 2): u_x, u_t
        return du[:, 1] + self.beta * du[:, 0]

    def reference(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        return convection_exact(x, t, self.beta)
