"""The box (or ball) a physics-informed problem lives on, and its point sets.

A domain is one interval per coordinate, named (``("x", "t")`` or ``("x", "y", "t")`` for
an evolution problem, ``("x", "y")`` or ``("x",)`` for a steady one). Points are rows of a
``(n, dim)`` tensor throughout :mod:`pderepro.training.pinn`, coordinates in the domain's
order: collocation points, initial-condition points (``t = t0``) and boundary points
alike. Time, if any, is the last coordinate; only ``(x, t)`` may be periodic in ``x``.

A :class:`Ball` is the steady domain of high-dimensional problems (SDGD's unit ball in
``d`` dimensions): its box is the bounding cube (what networks scale their inputs by),
its points follow the ball's own law, and its reference lives on scattered test points
(:meth:`Ball.test_points`), not on a grid.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from scipy.stats import qmc
from torch import Tensor

from pderepro.solvers.reaction_diffusion.allen_cahn import periodic_grid

#: Initial point sets a fixed sampler may draw (``scipy.stats.qmc``'s or plain uniform).
POINT_SETS = ("uniform", "sobol", "latin_hypercube")


def _sobol(dim: int, n: int, seed: int) -> np.ndarray:
    """The first ``n`` points of a scrambled Sobol sequence ``(n, dim)`` (scipy warns that
    only powers of two keep its balance; the study files' counts are what they are)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The balance properties of Sobol")
        return qmc.Sobol(d=dim, scramble=True, seed=seed).random(n)


@dataclass(frozen=True)
class Domain:
    """A box in model units.

    Attributes
    ----------
    bounds : tuple of (lo, hi)
        One interval per coordinate.
    names : tuple of str
        The coordinates' names, in order (``"t"``, if present, is time and last).
    periodic : bool
        Whether the first coordinate is periodic (its right end then left out of grids).
    """

    bounds: tuple[tuple[float, float], ...]
    names: tuple[str, ...]
    periodic: bool = False

    def __post_init__(self) -> None:
        if len(self.bounds) != len(self.names) or not self.names:
            raise ValueError(f"bounds {self.bounds} and names {self.names} do not match")
        if "t" in self.names[:-1] or self.names == ("t",):
            raise ValueError(f"time is the last coordinate, after space: got {self.names}")
        if self.periodic and self.names != ("x", "t"):
            raise ValueError(f"only the x of an (x, t) domain may be periodic, got {self.names}")

    @classmethod
    def space_time(cls, x: tuple[float, float], t: tuple[float, float], periodic: bool) -> Domain:
        """``x in [x_lo, x_hi]`` (periodic or not), ``t in [t_lo, t_hi]``."""
        return cls(bounds=(tuple(x), tuple(t)), names=("x", "t"), periodic=periodic)

    @classmethod
    def box(cls, **bounds: tuple[float, float]) -> Domain:
        """A box of coordinates by name, in keyword order: ``box(x=..., y=...)`` (steady);
        a last ``t=...`` makes it an evolution domain with no periodic coordinate."""
        return cls(bounds=tuple(tuple(b) for b in bounds.values()), names=tuple(bounds))

    @property
    def dim(self) -> int:
        return len(self.names)

    @property
    def scattered(self) -> bool:
        """Whether the reference lives on scattered test points (a ball), not on a grid."""
        return False

    @property
    def evolution(self) -> bool:
        """Whether the last coordinate is time (an initial condition applies)."""
        return self.names[-1] == "t"

    def initial_points(self, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, dim)`` at ``t = t0``, Sobol over the space coordinates."""
        unit = torch.as_tensor(_sobol(self.dim, n, seed), dtype=dtype)
        unit[:, -1] = 0.0
        return self.scale(unit)

    @property
    def space_dims(self) -> int:
        return self.dim - 1 if self.evolution else self.dim

    @property
    def x(self) -> tuple[float, float]:
        return self.bounds[0]

    @property
    def t(self) -> tuple[float, float]:
        if not self.evolution:
            raise AttributeError(f"a steady domain {self.names} has no time")
        return self.bounds[-1]

    @property
    def lower(self) -> Tensor:
        return torch.tensor([b[0] for b in self.bounds], dtype=torch.float64)

    @property
    def width(self) -> Tensor:
        return torch.tensor([b[1] - b[0] for b in self.bounds], dtype=torch.float64)

    def scale(self, unit: Tensor) -> Tensor:
        """Points of the unit box ``(n, dim)`` mapped onto the domain ``(n, dim)``."""
        return self.lower.to(unit) + unit * self.width.to(unit)

    def uniform(self, n: int, generator: torch.Generator, dtype: torch.dtype) -> Tensor:
        """``n`` independent uniform points ``(n, dim)`` drawn with ``generator``."""
        return self.scale(torch.rand(n, self.dim, generator=generator, dtype=dtype))

    def point_set(self, kind: str, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, dim)`` of a named set (:data:`POINT_SETS`), seeded by ``seed``.

        Sobol sets are scrambled (``n`` need not be a power of two: the first ``n`` of
        the sequence); Latin hypercubes are scipy's, uniform are numpy's.
        """
        if kind == "sobol":
            unit = _sobol(self.dim, n, seed)
        elif kind == "latin_hypercube":
            unit = qmc.LatinHypercube(d=self.dim, seed=seed).random(n)
        elif kind == "uniform":
            unit = np.random.default_rng(seed).random((n, self.dim))
        else:
            raise ValueError(f"unknown point set {kind!r}; choose from {POINT_SETS}")
        return self.scale(torch.as_tensor(unit, dtype=dtype))

    def grid(self, sizes: Mapping[str, int]) -> tuple[np.ndarray, ...]:
        """A reference grid, one axis per coordinate, ``sizes['n<name>']`` points each
        (``{"nx": 512, "nt": 201}``): both ends in, except a periodic first coordinate's
        right end (as :func:`pderepro.solvers.reaction_diffusion.allen_cahn.periodic_grid`)."""
        wanted = {f"n{name}" for name in self.names}
        if set(sizes) != wanted:
            raise ValueError(
                f"a grid of {self.names} needs sizes {sorted(wanted)}, got {sorted(sizes)}"
            )
        axes = []
        for i, (name, (lo, hi)) in enumerate(zip(self.names, self.bounds, strict=True)):
            n = int(sizes[f"n{name}"])
            periodic = self.periodic and i == 0
            axes.append(periodic_grid(lo, hi, n) if periodic else np.linspace(lo, hi, n))
        return tuple(axes)

    def normalised_time(self, t: Tensor) -> Tensor:
        """``t`` mapped to ``[0, 1]`` over the domain's time interval."""
        return (t - self.t[0]) / (self.t[1] - self.t[0])

    def boundary_points(self, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """About ``n`` points ``(m, dim)`` on the faces of the space coordinates (every
        face alike, Sobol over the face's other coordinates, time included), for a
        Dirichlet condition: ``n`` rounded down to a multiple of the face count, at least
        one per face."""
        faces = 2 * self.space_dims
        per_face = max(n // faces, 1)
        unit = _sobol(self.dim, per_face * faces, seed)
        unit = torch.as_tensor(unit, dtype=dtype).reshape(faces, per_face, self.dim)
        for face in range(faces):
            unit[face, :, face // 2] = float(face % 2)  # the face's own coordinate: 0 or 1
        return self.scale(unit.reshape(-1, self.dim))


@dataclass(frozen=True)
class Ball(Domain):
    """The ball ``|x| <= radius`` in ``d`` dimensions, coordinates ``x1 .. xd``, steady.

    Points follow the SDGD authors' law (their released code, which defines what their
    published errors average over): a Gaussian direction times a radius drawn
    *uniformly* in ``[0, radius]``. That is not the uniform law on the ball (whose radius
    is ``radius U^(1/d)``): it puts as many points near the centre as near the sphere.
    """

    radius: float = 1.0

    @classmethod
    def of(cls, dimension: int, radius: float = 1.0) -> Ball:
        """The ball of ``radius`` in ``dimension`` (>= 1) coordinates."""
        if int(dimension) < 1 or float(radius) <= 0:
            raise ValueError(
                f"a ball needs dimension >= 1 and radius > 0, got {dimension}, {radius}"
            )
        bounds = ((-float(radius), float(radius)),) * int(dimension)
        names = tuple(f"x{i + 1}" for i in range(int(dimension)))
        return cls(bounds=bounds, names=names, radius=float(radius))

    @property
    def scattered(self) -> bool:
        return True

    def _from_normal(self, normal: Tensor, radius_unit: Tensor) -> Tensor:
        """Directions of the rows of ``normal (n, d)`` at radii ``radius * radius_unit (n,)``."""
        direction = normal / torch.linalg.vector_norm(normal, dim=1, keepdim=True)
        return direction * (self.radius * radius_unit)[:, None]  # (n, d)

    def uniform(self, n: int, generator: torch.Generator, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, d)`` of the authors' law, drawn with ``generator``."""
        normal = torch.randn(n, self.dim, generator=generator, dtype=dtype)
        return self._from_normal(normal, torch.rand(n, generator=generator, dtype=dtype))

    def point_set(self, kind: str, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, d)`` of the authors' law seeded by ``seed`` (only ``uniform``:
        low-discrepancy sets of the cube do not map onto this law)."""
        if kind != "uniform":
            raise ValueError(f"a ball draws only 'uniform' point sets, not {kind!r}")
        return torch.as_tensor(self.test_points(n, seed), dtype=dtype)

    def test_points(self, n: int, seed: int) -> np.ndarray:
        """``n`` fixed points ``(n, d)`` (float64) of the authors' law from numpy's PCG64
        seeded by ``seed``: the same on every machine, so a reference file stores the seed
        and a checksum, not ``n x d`` coordinates (16 GB at the paper's 10^5 dimensions)."""
        rng = np.random.default_rng(seed)
        normal = torch.as_tensor(rng.standard_normal((n, self.dim)))
        return self._from_normal(normal, torch.as_tensor(rng.random(n))).numpy()

    def boundary_points(self, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        """``n`` points ``(n, d)`` on the sphere ``|x| = radius``."""
        normal = torch.as_tensor(np.random.default_rng(seed).standard_normal((n, self.dim)))
        return self._from_normal(normal, torch.ones(n, dtype=normal.dtype)).to(dtype)

    def initial_points(self, n: int, seed: int, dtype: torch.dtype) -> Tensor:
        raise ValueError("a ball is a steady domain: no initial points")

    def grid(self, sizes: Mapping[str, int]) -> tuple[np.ndarray, ...]:
        raise ValueError("a ball's reference is on scattered test points (test_points), not a grid")
