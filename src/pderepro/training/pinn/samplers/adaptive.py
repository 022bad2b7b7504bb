"""Residual-based adaptive samplers of Wu et al.: ``rar_g`` and ``rad``.

Wu, Zhu, Tan, Kartha, Lu, "A comprehensive study of non-adaptive and residual-based
adaptive sampling for physics-informed neural networks", CMAME 403 (2023), arXiv
2207.10289. Both score a *pool* of uniform candidate points under the current model (a
forward pass with derivatives through ``residual_at``) every ``every`` iterations:

- RAR-G (greedy residual-based adaptive refinement, after Lu et al.'s DeepXDE): append
  the ``add`` pool points of largest residual to the set, which grows.
- RAD (residual-based adaptive distribution): replace the whole set by ``n_points`` pool
  points drawn without replacement with probability
  ``p(x) ~ |r(x)|^k / mean_pool(|r|^k) + c``; ``k = 1``, ``c = 1`` are the values Wu et
  al. recommend and our defaults.

Defaults otherwise follow the argparse defaults of the R3 authors' baseline script
(``Convection/train_rar.py`` of arkadaw9/r3_sampling_icml2023, commit a1c24f39): period
1000 iterations, pool 10 x the 1,000 collocation points, 5 points added. Their READMEs
run it with period 100, a pool of 100,000 and 10 points added (convection; 1 for
Allen-Cahn), draw the pool once for the whole run (our ``fixed_pool = True``; by default
we draw a fresh pool at every update, as Wu et al. describe), and their RAD draws with
``p ~ |r|`` (``k = 1``, ``c = 0``). A study file sets these options to match. The
initial set is a uniform draw with the run's generator, as in that code.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from pderepro.training.pinn.samplers.base import ResidualAt, register_sampler
from pderepro.training.pinn.samplers.basic import PointSetSampler, positive_int

#: Pool size per collocation point when ``pool`` is not given (10,000 for 1,000 points).
POOL_FACTOR = 10


class PoolSampler(PointSetSampler):
    """Shared by RAR-G and RAD: a uniform initial set, a pool scored every ``every`` steps."""

    def configure(
        self, *, every: int = 1000, pool: int | None = None, fixed_pool: bool = False
    ) -> None:
        self.every = positive_int("every", every)
        self.pool = positive_int("pool", POOL_FACTOR * self.n_points if pool is None else pool)
        super().configure()  # the uniform initial set, drawn before a fixed pool
        self._pool = self.uniform(self.pool) if fixed_pool else None  # (m, 2) or None

    def to(self, dtype: torch.dtype) -> None:
        super().to(dtype)
        if self._pool is not None:
            self._pool = self._pool.to(dtype)

    def due(self, iteration: int) -> bool:
        """Whether to adapt after step ``iteration`` (0-based): after every ``every`` steps."""
        return (iteration + 1) % self.every == 0

    def scored_pool(self, residual_at: ResidualAt) -> tuple[Tensor, Tensor]:
        """The pool ``(m, 2)`` (fresh unless fixed) and its absolute residuals ``(m,)``."""
        candidates = self.uniform(self.pool) if self._pool is None else self._pool  # (m, 2)
        score = residual_at(candidates)  # needs autograd: no torch.no_grad here
        score = score.detach().reshape(-1).abs().to(candidates)  # (m,)
        if score.shape[0] != self.pool:
            raise ValueError(f"residual_at returned {score.shape[0]} values for {self.pool} points")
        return candidates, score


@register_sampler
class RARG(PoolSampler):
    """Greedy residual-based adaptive refinement (Wu et al. 2023; Lu et al. 2021).

    After steps ``every - 1, 2 every - 1, ...`` (0-based, i.e. every ``every`` steps) a
    uniform pool of ``pool`` points is scored with ``residual_at`` and the ``add``
    points of largest residual are appended: after ``j`` updates the set holds
    ``n_points + j * add`` points. Points are never removed.

    Options
    -------
    every : int, default 1000
        Iterations between refinements.
    pool : int, default ``10 * n_points``
        Candidate points per refinement.
    add : int, default 5
        Points added per refinement (``<= pool``).
    fixed_pool : bool, default False
        Draw the pool once at the start and rescore the same points at every update.
    """

    name = "rar_g"

    def configure(self, *, add: int = 5, **pool_options: Any) -> None:
        super().configure(**pool_options)
        self.add = positive_int("add", add)
        if self.add > self.pool:
            raise ValueError(f"rar_g adds {self.add} points from a pool of only {self.pool}")

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Every ``every`` steps, append the ``add`` worst pool points."""
        if not self.due(iteration):
            return
        candidates, score = self.scored_pool(residual_at)  # (m, 2), (m,)
        worst = torch.topk(score, self.add).indices  # (add,)
        self._points = torch.cat([self._points, candidates[worst]])  # (n + add, 2)


@register_sampler
class RAD(PoolSampler):
    """Residual-based adaptive distribution (Wu et al. 2023).

    Every ``every`` steps a fresh uniform pool of ``pool`` points is scored and the whole
    set is replaced by ``n_points`` pool points drawn without replacement
    (``torch.multinomial`` with the run's generator) with probability proportional to
    ``|r|^k / mean_pool(|r|^k) + c``. ``c > 0`` keeps every pool point possible; with
    ``c = 0`` at least ``n_points`` pool residuals must be non-zero. A pool whose
    residuals are all zero is drawn uniformly.

    Options
    -------
    every : int, default 1000
        Iterations between redistributions.
    pool : int, default ``10 * n_points``
        Candidate points per redistribution (``>= n_points``).
    k : float, default 1
        Exponent of the residual (``k = 0`` is uniform, large ``k`` approaches greedy).
    c : float, default 1
        Uniform floor added to the normalised density.
    fixed_pool : bool, default False
        Draw the pool once at the start and redraw the set from the same pool.
    """

    name = "rad"

    def configure(self, *, k: float = 1.0, c: float = 1.0, **pool_options: Any) -> None:
        super().configure(**pool_options)
        if self.pool < self.n_points:
            raise ValueError(f"rad draws {self.n_points} points from a pool of only {self.pool}")
        if k < 0 or c < 0:
            raise ValueError(f"rad needs k >= 0 and c >= 0, got k={k}, c={c}")
        self.k = float(k)
        self.c = float(c)

    def probabilities(self, score: Tensor) -> Tensor:
        """Unnormalised draw weights ``(m,)`` of pool points with residuals ``score (m,)``."""
        powered = score.double() ** self.k  # (m,)
        mean = powered.mean()
        if not torch.isfinite(mean):
            raise ValueError("rad: non-finite residuals in the pool")
        if mean == 0:
            return torch.ones_like(powered)
        return powered / mean + self.c

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Every ``every`` steps, redraw the whole set from a residual-weighted pool."""
        if not self.due(iteration):
            return
        candidates, score = self.scored_pool(residual_at)  # (m, 2), (m,)
        chosen = torch.multinomial(
            self.probabilities(score), self.n_points, replacement=False, generator=self.generator
        )  # (n,)
        self._points = candidates[chosen]  # (n, 2)
