"""The space-time rectangle a physics-informed problem lives on, and its point sets.

Points are rows ``(x, t)`` of a ``(n, 2)`` tensor throughout :mod:`pderepro.training.pinn`:
collocation points, initial-condition points (``t = t0``) and boundary points alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.stats import qmc
from torch import Tensor

from pderepro.solvers.allen_cahn import periodic_grid

#: Initial point sets a fixed sampler may draw (``scipy.stats.qmc``'s or plain uniform).
POINT_SETS = ("uniform", "sobol", "latin_hypercube")


@dataclass(frozen=True)
class Domain:
    """``x in [x_lo, x_hi]`` (periodic or not), ``t in [t_lo, t_hi]``; model units."""

    x: tuple[float, float]
    t: tuple[float, float]
    periodic: bool = True

    @property
    def lower(self) -> Tensor:
        return torch.tensor([self.x[0], self.t[0]], dtype=torch.float64)

    @property
    def width(self) -> Tensor:
        return torch.tensor([self.x[1] - self.x[0], self.t[1] - self.t[0]], dtype=torch.float64)

    def scale(self, unit: Tensor) -> Tensor:
        """Points of the unit square ``(n, 2)`` mapped onto the domain ``(n, 2)``."""
        return self.lower.to(unit) + unit * self.width.to(unit)

    def uniform(self, n: int, generator: torch.Generator, dtype: torch.dtype) -> Tensor:
        """``n`` independent uniform points ``(n, 2)`` drawn with ``generator``."""
        return self.scale(torch.rand(n, 2, generator=generator, dtype=dtype))

    def point_set(self, kind: str, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, 2)`` of a named set (:data:`POINT_SETS`), seeded by ``seed``.

        Sobol sets are scrambled (``n`` need not be a power of two: the first ``n`` of
        the sequence); Latin hypercubes are scipy's, uniform are numpy's.
        """
        if kind == "sobol":
            unit = qmc.Sobol(d=2, scramble=True, seed=seed).random(n)
        elif kind == "latin_hypercube":
            unit = qmc.LatinHypercube(d=2, seed=seed).random(n)
        elif kind == "uniform":
            unit = np.random.default_rng(seed).random((n, 2))
        else:
            raise ValueError(f"unknown point set {kind!r}; choose from {POINT_SETS}")
        return self.scale(torch.as_tensor(unit, dtype=dtype))

    def grid(self, nx: int, nt: int) -> tuple[np.ndarray, np.ndarray]:
        """A reference grid: ``x (nx,)`` (the right end left out on a periodic domain, as
        :func:`pderepro.solvers.allen_cahn.periodic_grid`) and ``t (nt,)``, both ends in."""
        lo, hi = self.x
        x = periodic_grid(lo, hi, nx) if self.periodic else np.linspace(lo, hi, nx)
        return x, np.linspace(*self.t, nt)

    def normalised_time(self, t: Tensor) -> Tensor:
        """``t`` mapped to ``[0, 1]`` over the domain's time interval."""
        return (t - self.t[0]) / (self.t[1] - self.t[0])
