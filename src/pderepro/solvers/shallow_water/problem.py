"""The 1-D shallow-water problem: grid, gravity and scheme choices, checked on creation.

Kept apart from the scheme (:mod:`pderepro.solvers.shallow_water.shallow_water`), which
imports its fluxes (:mod:`pderepro.solvers.shallow_water.fluxes`): the fluxes take a problem
too, and import it from here instead of from the scheme, so no import goes in a circle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BOUNDARIES = ("periodic", "reflective", "transmissive")
LIMITERS = ("minmod", "mc")
FLUXES = ("hll", "rusanov")
INTEGRATORS = ("ssprk2", "ssprk3")


@dataclass(frozen=True)
class ShallowWaterProblem:
    """Grid, gravity and scheme of the 1-D shallow-water solver (all dimensionless).

    Attributes
    ----------
    resolution : int
        Number of cells ``n``.
    length : float
        Domain length; cells cover ``[0, length)``.
    gravity : float
        ``g`` (dimensionless; 1 when lengths are scaled by a depth and times by
        ``sqrt(depth / g)``).
    boundary : str
        One of :data:`BOUNDARIES`.
    flux : str
        One of :data:`FLUXES`.
    limiter : str
        One of :data:`LIMITERS` (``mc``: monotonised central).
    integrator : str
        One of :data:`INTEGRATORS`.
    cfl : float
        Courant number on ``max(|u| + sqrt(g h))``; positivity is guaranteed by the theory
        up to 1/4 (the dry-bed speeds reach ``|u| + 2 c``, MUSCL halves the first-order
        bound) and holds in practice at the default 0.4.
    dry_tolerance : float
        Depth below which a cell is dry (its velocity is 0).
    """

    resolution: int
    length: float = 1.0
    gravity: float = 1.0
    boundary: str = "periodic"
    flux: str = "hll"
    limiter: str = "minmod"
    integrator: str = "ssprk2"
    cfl: float = 0.4
    dry_tolerance: float = 1e-8

    def __post_init__(self) -> None:
        if isinstance(self.resolution, bool) or not isinstance(self.resolution, int | np.integer):
            raise ValueError(f"resolution must be an integer, got {self.resolution!r}")
        if self.resolution < 4:
            raise ValueError(f"resolution must be at least 4, got {self.resolution}")
        for name in ("length", "gravity", "cfl", "dry_tolerance"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value!r}")
        if self.cfl > 1:
            raise ValueError(f"cfl must be at most 1, got {self.cfl}")
        for name, choices in (
            ("boundary", BOUNDARIES),
            ("flux", FLUXES),
            ("limiter", LIMITERS),
            ("integrator", INTEGRATORS),
        ):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {choices}, got {getattr(self, name)!r}")

    @property
    def dx(self) -> float:
        """Cell width."""
        return self.length / self.resolution

    @property
    def grid(self) -> np.ndarray:
        """Cell centres ``(j + 1/2) dx``, shape ``(n,)``."""
        return (np.arange(self.resolution, dtype=np.float64) + 0.5) * self.dx

    @property
    def faces(self) -> np.ndarray:
        """Face positions ``j dx``, ``j = 0..n``, shape ``(n + 1,)`` (on a periodic domain
        the first and last are the same face)."""
        return np.arange(self.resolution + 1, dtype=np.float64) * self.dx
