"""Allen-Cahn ``u_t - d u_xx + r (u^3 - u) = 0`` on ``[-1, 1)`` periodic, ``t in [0, 1]``,
``u0 = x^2 cos(pi x)``; the R3 paper's settings are ``d = 1e-4``, ``r = 5`` (docs/references.md).

The reference comes from our Fourier / ETDRK4 solver
(:mod:`pderepro.solvers.reaction_diffusion.allen_cahn`), verified in
``results/validation/solvers.csv`` by self-convergence and against Strang splitting with the exact
reaction flow.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from pderepro.solvers.reaction_diffusion.allen_cahn import allen_cahn_frames
from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.problems.base import Problem, gradient, register_problem

#: ETDRK4 steps per time unit of the reference (the verification's finest level is finer).
REFERENCE_STEPS_PER_UNIT = 2000


@register_problem
class AllenCahn(Problem):
    """Parameters: diffusion ``d`` (length^2 per time unit) and reaction rate ``r``
    (per time unit)."""

    name = "allen_cahn"
    boundary_derivatives = 1

    def __init__(self, diffusion: float, reaction: float) -> None:
        self.diffusion = float(diffusion)
        self.reaction = float(reaction)
        self.domain = Domain.space_time(x=(-1.0, 1.0), t=(0.0, 1.0), periodic=True)
        self.reference_method = (
            f"Fourier pseudo-spectral in x, ETDRK4 in t with {REFERENCE_STEPS_PER_UNIT} "
            "steps per time unit (pderepro.solvers.reaction_diffusion.allen_cahn)"
        )

    def parameters(self) -> dict[str, float]:
        return {"diffusion": self.diffusion, "reaction": self.reaction}

    def initial_condition(self, points: Tensor) -> Tensor:
        x = points[:, 0]
        return x**2 * torch.cos(math.pi * x)

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        du = gradient(u, points)  # (n, 2): u_x, u_t
        u_xx = gradient(du[:, 0], points)[:, 0]
        return du[:, 1] - self.diffusion * u_xx + self.reaction * (u**3 - u)

    def reference(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        if not np.allclose(x, self.domain.grid({"nx": len(x), "nt": 2})[0], rtol=0, atol=1e-12):
            raise ValueError(
                "the Allen-Cahn reference needs the periodic grid lo + (hi - lo) j / n"
            )
        u0 = x**2 * np.cos(np.pi * x)
        return allen_cahn_frames(
            u0,
            length=self.domain.x[1] - self.domain.x[0],
            times=t,
            diffusion=self.diffusion,
            reaction=self.reaction,
            steps_per_unit=REFERENCE_STEPS_PER_UNIT,
        )
