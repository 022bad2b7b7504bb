"""The problem contract of the physics-informed kind, its registry and shared derivatives.

A *problem* is a PDE residual on a :class:`~pderepro.training.pinn.domain.Domain`, an
initial condition, periodic boundary conditions where the domain says so, and a
reference solution on a fixed grid (exact, or from our own verified solver). A new problem
is one module of this package: a :class:`Problem` subclass with :func:`register_problem`,
imported in the package's ``__init__``; a study file then names it with its parameters.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from pderepro.training.pinn.domain import Domain

PROBLEMS: dict[str, type[Problem]] = {}


def register_problem(cls: type[Problem]) -> type[Problem]:
    """Class decorator: register a problem under its ``name``."""
    if cls.name in PROBLEMS:
        raise ValueError(f"problem {cls.name!r} registered twice")
    PROBLEMS[cls.name] = cls
    return cls


def build_problem(name: str, parameters: dict[str, Any] | None = None) -> Problem:
    """The registered problem ``name`` with its PDE parameters."""
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; registered: {sorted(PROBLEMS)}")
    return PROBLEMS[name](**(parameters or {}))


def gradient(output: Tensor, points: Tensor) -> Tensor:
    """d output / d (x, t) at every point: ``(n,) -> (n, 2)``, kept in the graph.

    ``output[i]`` must depend on ``points[i]`` only (a pointwise network), so one
    vector-Jacobian product with ones gives every row's own gradient.
    """
    (grad,) = torch.autograd.grad(output, points, torch.ones_like(output), create_graph=True)
    return grad  # (n, 2)


class Problem(ABC):
    """A PDE in one space dimension and time, ``u(x, t)`` scalar.

    Attributes
    ----------
    name : str
        The registry key, as study files name it.
    domain : Domain
        Space and time intervals, and whether ``x`` is periodic.
    boundary_derivatives : int
        Periodic conditions tie ``u`` and its first ``boundary_derivatives`` ``x``
        derivatives at the two ends (0: the value only).
    reference_method : str
        How :meth:`reference` is made, for captions and the NetCDF provenance.
    """

    name: ClassVar[str] = ""
    boundary_derivatives: ClassVar[int] = 0
    domain: Domain
    reference_method: str = ""

    @abstractmethod
    def parameters(self) -> dict[str, float]:
        """The PDE's parameters, as the study file gives them."""

    @abstractmethod
    def initial_condition(self, x: Tensor) -> Tensor:
        """``u(x, t0)`` at ``x (n,)``, shape ``(n,)``."""

    @abstractmethod
    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        """The PDE's residual ``(n,)`` of ``u (n,)``, a differentiable function of
        ``points (n, 2)`` (``requires_grad``), zero for a solution."""

    @abstractmethod
    def reference(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The reference solution ``(nt, nx)`` at times ``t (nt,)`` and points ``x (nx,)``."""
