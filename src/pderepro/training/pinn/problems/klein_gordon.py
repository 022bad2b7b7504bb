"""Klein-Gordon ``u_tt - (u_xx + u_yy) + u^2 = f`` on ``(x, y) in [-1, 1]^2``,
``t in [0, 10]``: the Physics-Informed Gaussians paper's second problem (docs/references.md),
which its released code takes from Separable PINNs (Cho et al. 2023). ``f`` makes
``u = (x + y) cos(k t) + x y sin(k t)`` exact (``k = 2``), so ``f = u^2 - k^2 u``.

Conditions as the released code fits them (which define its published numbers): ``u`` at
``t = 0`` (``x + y``) and the exact ``u`` on the four sides; no ``u_t`` at ``t = 0``, which
the exact solution has (``k x y``) and a second-order equation would need.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.problems.base import Problem, gradient, register_problem


@register_problem
class KleinGordon(Problem):
    """Parameters: ``k``, the solution's angular frequency in time (per time unit), and
    ``t_final`` (time units)."""

    name = "klein_gordon"

    def __init__(self, k: float, t_final: float = 10.0) -> None:
        self.k, self.t_final = float(k), float(t_final)
        self.domain = Domain.box(x=(-1.0, 1.0), y=(-1.0, 1.0), t=(0.0, self.t_final))
        self.reference_method = f"exact: (x + y) cos({self.k:g} t) + x y sin({self.k:g} t)"

    def parameters(self) -> dict[str, float]:
        return {"k": self.k, "t_final": self.t_final}

    def exact(self, x, y, t, cos, sin):
        return (x + y) * cos(self.k * t) + x * y * sin(self.k * t)

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        du = gradient(u, points)  # (n, 3): u_x, u_y, u_t
        u_xx = gradient(du[:, 0], points)[:, 0]
        u_yy = gradient(du[:, 1], points)[:, 1]
        u_tt = gradient(du[:, 2], points)[:, 2]
        exact = self.exact(points[:, 0], points[:, 1], points[:, 2], torch.cos, torch.sin)
        source = exact**2 - self.k**2 * exact
        return u_tt - (u_xx + u_yy) + u**2 - source

    def initial_condition(self, points: Tensor) -> Tensor:
        return points[:, 0] + points[:, 1]

    def boundary_value(self, points: Tensor) -> Tensor:
        return self.exact(points[:, 0], points[:, 1], points[:, 2], torch.cos, torch.sin)

    def reference(self, x: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        tt, yy, xx = np.meshgrid(t, y, x, indexing="ij")
        return self.exact(xx, yy, tt, np.cos, np.sin)  # (nt, ny, nx)
