"""The sampler and weighting contracts, and their registries.

A *sampler* owns the collocation points of one training run and moves them between
iterations; a *weighting* turns the points' squared residuals into the residual loss.
A new sampler or weighting is one module of this package that subclasses
:class:`Sampler` or :class:`Weighting` with the ``register_*`` decorator, imported in
the package's ``__init__``; a study file then names it. A sampler takes its options in
:meth:`Sampler.configure`, not in an ``__init__`` of its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import torch
from torch import Tensor

from pderepro.training.pinn.domain import Domain
from pderepro.training.registry import registrar

#: Absolute residuals ``(m,)`` of the current model at points ``(m, 2)``: what a sampler
#: calls to score a pool of candidate points (a forward pass with derivatives).
ResidualAt = Callable[[Tensor], Tensor]

SAMPLERS: dict[str, type[Sampler]] = {}
WEIGHTINGS: dict[str, type[Weighting]] = {}


register_sampler = registrar(SAMPLERS, "sampler")
register_weighting = registrar(WEIGHTINGS, "weighting")


class Sampler(ABC):
    """Collocation points of one run, updated after every optimiser step.

    Parameters
    ----------
    domain : Domain
        Where points live.
    n_points : int
        Collocation points (the initial number where a sampler grows its set).
    generator : torch.Generator
        The run's seeded generator; every draw goes through it (deterministic runs).
    dtype : torch.dtype
        Of the points.
    seed : int
        Seeds a ``scipy.stats.qmc`` initial set.
    **options
        The sampler's own settings (the study file's ``sampler_options``), passed to
        :meth:`configure`: a subclass takes them there, never in its own ``__init__``.
    """

    name: ClassVar[str] = ""

    def __init__(
        self,
        domain: Domain,
        n_points: int,
        generator: torch.Generator,
        dtype: torch.dtype = torch.float32,
        seed: int = 0,
        **options: Any,
    ) -> None:
        self.domain = domain
        self.n_points = int(n_points)
        self.generator = generator
        self.dtype = dtype
        self.seed = int(seed)
        self.configure(**options)

    @abstractmethod
    def configure(self, **options: Any) -> None:
        """Check and store the sampler's own ``options`` (keyword-only, with defaults: an
        unknown one is a TypeError) and draw the initial points. Called by ``__init__``
        once the arguments above are set."""

    @property
    @abstractmethod
    def points(self) -> Tensor:
        """The current collocation points ``(n, 2)`` (``n`` may change between calls)."""

    def point_weights(self) -> Tensor | None:
        """Per-point loss weights ``(n,)`` of the current points, or None (all equal)."""
        return None

    @abstractmethod
    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Move the points after optimiser step ``iteration`` (0-based).

        Parameters
        ----------
        iteration : int
            The step just taken.
        residual : Tensor
            ``(n,)`` absolute residuals of the current points from that step's loss
            (detached; computed before the step, which is what R3 reuses at no cost).
        residual_at : callable
            Scores other points under the model as it is now (:data:`ResidualAt`).
        """

    def to(self, dtype: torch.dtype) -> None:
        """Hold the points (and any state) in ``dtype`` from now on (L-BFGS in float64)."""
        self.dtype = dtype

    def state(self) -> dict[str, float]:
        """Scalars worth logging (number of points, a gate's position...)."""
        return {"n_points": float(self.points.shape[0])}


class Weighting(ABC):
    """Turns squared residuals into the residual loss."""

    name: ClassVar[str] = ""

    def __init__(self, domain: Domain, **options: Any) -> None:
        self.domain = domain

    @abstractmethod
    def loss(self, squared: Tensor, t: Tensor) -> Tensor:
        """Scalar residual loss from squared residuals ``(n,)`` at times ``t (n,)``."""

    def state(self) -> dict[str, float]:
        return {}


def build_sampler(
    name: str,
    domain: Domain,
    n_points: int,
    generator: torch.Generator,
    *,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Sampler:
    """The registered sampler ``name`` with its options (ValueError naming the choices)."""
    if name not in SAMPLERS:
        raise ValueError(f"unknown sampler {name!r}; registered: {sorted(SAMPLERS)}")
    return SAMPLERS[name](domain, n_points, generator, dtype=dtype, seed=seed, **(options or {}))


def build_weighting(
    name: str, domain: Domain, options: Mapping[str, Any] | None = None
) -> Weighting:
    """The registered weighting ``name`` with its options."""
    if name not in WEIGHTINGS:
        raise ValueError(f"unknown weighting {name!r}; registered: {sorted(WEIGHTINGS)}")
    return WEIGHTINGS[name](domain, **(options or {}))
