"""The problem contract of the physics-informed kind, its registry and shared derivatives.

A *problem* is a PDE residual on a :class:`~pderepro.training.pinn.domain.Domain`, its
conditions and a reference solution on a fixed grid (exact, or from our own verified
solver). The conditions are: an initial condition on evolution domains; periodic ends
where the domain says so, else Dirichlet values on the faces
(:meth:`Problem.boundary_value`) unless a trial function (:meth:`Problem.trial`)
satisfies them exactly; and a normalisation the trial function holds exactly
(:meth:`Problem.norm`: an eigenfunction's). A problem may carry trainable
scalars (an eigenvalue), optimised with the network.

A new problem is one module of this package: a :class:`Problem` subclass with
:func:`register_problem`, imported in the package's ``__init__``; a study file then names
it with its parameters.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.training.pinn.domain import Domain
from pderepro.training.registry import registrar

PROBLEMS: dict[str, type[Problem]] = {}


register_problem = registrar(PROBLEMS, "problem")


def build_problem(name: str, parameters: dict[str, Any] | None = None) -> Problem:
    """The registered problem ``name`` with its PDE parameters."""
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; registered: {sorted(PROBLEMS)}")
    return PROBLEMS[name](**(parameters or {}))


def gradient(output: Tensor, points: Tensor) -> Tensor:
    """d output / d coordinates at every point: ``(n,) -> (n, dim)``, kept in the graph.

    ``output[i]`` must depend on ``points[i]`` only (a pointwise network), so one
    vector-Jacobian product with ones gives every row's own gradient.
    """
    (grad,) = torch.autograd.grad(output, points, torch.ones_like(output), create_graph=True)
    return grad  # (n, dim)


def relative_l2(prediction: np.ndarray, reference: np.ndarray) -> float:
    """``||u - u_ref|| / ||u_ref||`` over every grid point (a fraction)."""
    return float(np.linalg.norm(prediction - reference) / np.linalg.norm(reference))


class Problem(ABC):
    """A PDE for a scalar ``u`` on a box :class:`Domain`.

    Attributes
    ----------
    name : str
        The registry key, as study files name it.
    domain : Domain
        The box, its coordinates' names and whether the first is periodic.
    boundary_derivatives : int
        Periodic conditions tie ``u`` and its first ``boundary_derivatives`` first-coordinate
        derivatives at the two ends (0: the value only).
    reference_method : str
        How :meth:`reference` is made, for captions and the NetCDF provenance.
    quantity : str
        The name of a trainable scalar reported beside the error (``"energy"``), or "".
    """

    name: ClassVar[str] = ""
    boundary_derivatives: ClassVar[int] = 0
    #: Fresh points of the validation residual (None: the loop's default; a problem may
    #: set its own per instance, as the ball's by dimension).
    validation_points: int | None = None
    domain: Domain
    reference_method: str = ""
    quantity: str = ""

    @abstractmethod
    def parameters(self) -> dict[str, float]:
        """The PDE's parameters, as the study file gives them."""

    @abstractmethod
    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        """The PDE's residual ``(n,)`` of ``u (n,)``, a differentiable function of
        ``points (n, dim)`` (``requires_grad``), zero for a solution."""

    @abstractmethod
    def reference(self, *axes: np.ndarray) -> np.ndarray:
        """The reference solution on the grid of ``axes`` (one per coordinate, in the
        domain's order), shaped by the axes in reverse order: ``(nt, nx)`` for ``(x, t)``."""

    def residual_of(
        self, field: Callable[[Tensor], Tensor], points: Tensor, exact: bool = False
    ) -> Tensor:
        """The residual ``(n,)`` of the field ``u(points) -> (n,)`` at ``points (n, dim)``,
        kept in the graph of the field's parameters. Here: :meth:`residual` of ``u`` at
        points that require grad; a problem that differentiates the field itself (with
        ``torch.func``) overrides this. ``exact`` asks a problem that trains on an
        estimate of its residual (SDGD's sampled Laplacian) for the residual itself."""
        points = points.detach().requires_grad_(True)
        return self.residual(field(points), points)

    def reference_at(self, points: np.ndarray) -> np.ndarray:
        """The reference at scattered ``points (n, dim)`` (``(n,)``), for domains whose
        reference is on test points (:attr:`Domain.scattered`)."""
        raise NotImplementedError(f"{self.name} has a grid reference (reference)")

    def initial_condition(self, points: Tensor) -> Tensor:
        """``u`` at points ``(n, dim)`` with ``t = t0``, shape ``(n,)`` (evolution problems)."""
        raise NotImplementedError(f"{self.name} has no initial condition")

    def boundary_value(self, points: Tensor) -> Tensor | None:
        """Dirichlet values ``(n,)`` at face points ``(n, dim)`` of a non-periodic domain,
        or None where the trial function holds them (or there are none)."""
        return None

    def trial(self, raw: Tensor, points: Tensor) -> Tensor:
        """``u (n,)`` from the network's output ``raw (n,)`` at ``points (n, dim)``: the
        identity, or a trial function that satisfies the boundary conditions exactly."""
        return raw

    def trainable(self) -> dict[str, nn.Parameter]:
        """Scalars trained with the network (an eigenvalue), by name."""
        return {}

    def norm(self, trial_field: Callable[[Tensor], Tensor], dtype: torch.dtype) -> Tensor | None:
        """A scalar the field is divided by (the trial function's norm, so that an
        eigenfunction is normalised exactly and ``u = 0`` is no solution), computed from
        ``trial_field(points) -> u``; None: no normalisation."""
        return None

    def state(self) -> dict[str, float]:
        """The trainable scalars' current values (logged every ``log_every``)."""
        return {k: float(v.detach()) for k, v in self.trainable().items()}

    def reference_quantity(self) -> float | None:
        """The reference value of :attr:`quantity`, or None."""
        return None

    def error(self, prediction: np.ndarray, reference: np.ndarray) -> float:
        """The reported error of a prediction on the reference grid (relative L2)."""
        return relative_l2(prediction, reference)

    def aligned(self, prediction: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """The prediction as compared and shown (an eigenfunction's sign matched to the
        reference's); the identity here."""
        return prediction

    def no_learning(
        self,
        axes: tuple[np.ndarray, ...],
        reference: np.ndarray,
        points: np.ndarray | None = None,
    ) -> tuple[str, np.ndarray]:
        """The no-learning reference row: a label and its field on the reference grid
        (:meth:`no_learning_on`) or, on a scattered domain (axes then empty), at the test
        ``points (n, dim)`` (:meth:`no_learning_at`). A problem overrides those two."""
        if not self.domain.scattered:
            return self.no_learning_on(axes, reference)
        if points is None:
            raise ValueError(f"{self.name}: the no-learning row needs the test points")
        return self.no_learning_at(points)

    def no_learning_at(self, points: np.ndarray) -> tuple[str, np.ndarray]:
        """The no-learning row at scattered test ``points (n, dim)`` (``(n,)``)."""
        raise NotImplementedError(f"{self.name} has a grid reference (no_learning_on)")

    def no_learning_on(
        self, axes: tuple[np.ndarray, ...], reference: np.ndarray
    ) -> tuple[str, np.ndarray]:
        """The no-learning row on the grid of ``axes``, shaped as ``reference``. Here:
        evolution problems hold the initial condition; steady ones predict zero."""
        if self.domain.evolution:
            return "initial condition held (no learning)", np.broadcast_to(
                reference[:1], reference.shape
            )
        return "zero (no learning)", np.zeros_like(reference)
