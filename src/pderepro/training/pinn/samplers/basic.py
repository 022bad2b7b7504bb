"""Non-adaptive samplers: ``fixed`` points and ``uniform`` resampling every iteration.

Both are baselines of the R3 paper (Daw et al., ICML 2023, arXiv 2207.02338): the PINN
with one fixed set of collocation points, and the PINN whose points are redrawn
uniformly after every optimiser step. :class:`PointSetSampler` holds the point tensor
the adaptive samplers share.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from pderepro.training.pinn.domain import POINT_SETS
from pderepro.training.pinn.samplers.base import ResidualAt, Sampler, register_sampler


def positive_int(name: str, value: Any) -> int:
    """``value`` as an int >= 1, or ValueError naming the option."""
    if int(value) != value or int(value) < 1:
        raise ValueError(f"sampler option {name!r} must be a positive integer, got {value!r}")
    return int(value)


class PointSetSampler(Sampler):
    """A sampler that holds its current points ``(n, 2)`` in ``self._points``: by default
    an initial set of ``n_points`` uniform points drawn with the run's generator."""

    _points: Tensor

    def configure(self) -> None:
        self._points = self.uniform(self.n_points)  # (n, 2)

    @property
    def points(self) -> Tensor:
        return self._points

    def to(self, dtype: torch.dtype) -> None:
        super().to(dtype)
        self._points = self._points.to(dtype)

    def uniform(self, n: int) -> Tensor:
        """``n`` fresh uniform points ``(n, 2)`` of the domain, drawn with the run's generator."""
        return self.domain.uniform(n, self.generator, self.dtype)

    def residual_of_points(self, residual: Tensor) -> Tensor:
        """``residual (n,)`` detached, on the points' device and dtype, checked against them."""
        residual = residual.detach().reshape(-1).to(self._points)
        if residual.shape[0] != self._points.shape[0]:
            raise ValueError(
                f"{residual.shape[0]} residuals for {self._points.shape[0]} collocation points"
            )
        return residual


@register_sampler
class Fixed(PointSetSampler):
    """One set of collocation points for the whole run; :meth:`update` never moves it.

    Options
    -------
    point_set : str, default ``"sobol"``
        One of :data:`~pderepro.training.pinn.domain.POINT_SETS` (scrambled Sobol, Latin
        hypercube, or uniform), drawn by :meth:`Domain.point_set` with the run's ``seed``:
        equal seeds give equal sets, whatever the generator's state.
    """

    name = "fixed"

    def configure(self, *, point_set: str = "sobol") -> None:
        # not the uniform initial set: the generator is left untouched
        if point_set not in POINT_SETS:
            raise ValueError(f"unknown point set {point_set!r}; choose from {POINT_SETS}")
        self.point_set = point_set
        self._points = self.domain.point_set(point_set, self.n_points, self.seed, self.dtype)

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Nothing moves."""


@register_sampler
class Uniform(PointSetSampler):
    """``n_points`` independent uniform points, redrawn with the generator after every step.

    No options. The initial set is a uniform draw too.
    """

    name = "uniform"

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Replace every point by a fresh uniform one."""
        self._points = self.uniform(self.n_points)  # (n, 2)
