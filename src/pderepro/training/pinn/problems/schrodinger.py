"""Ground states of the 1-D time-independent Schrodinger equation ``-psi'' + V psi = E psi``
(dimensionless: ``hbar = 1``, ``2m = 1``), the seed paper's three potentials
(:mod:`pderepro.solvers.elliptic.schrodinger`: an infinite square well, a finite well truncated to a
box, a box with a central barrier).

The unknown is ``psi`` and, for the finite well and the barrier, the energy ``E`` (a
trainable scalar starting at ``initial_energy``); the infinite well's is fixed at
``pi^2``, as the seed fixes it. The trial function ``psi = (x - lo)(hi - x) N(x)`` vanishes
at the walls exactly and is divided by its norm (``int psi^2 dx``, trapezoid rule on a
fixed grid), so it is normalised exactly and the trivial ``psi = 0`` is no solution (a
penalty ``(||psi|| - 1)^2`` left the runs we tried near ``psi = 0``). Which eigenstate a
run finds depends on where ``E`` starts: below the first excited level, the ground state
(the study file says where). The error is the relative L2 up to sign (an
eigenfunction's sign is arbitrary); the reference is our finite-difference solver's ground
state (verified against the matching conditions) and its Richardson-extrapolated energy.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.solvers.elliptic import schrodinger as solver
from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.problems.base import Problem, gradient, register_problem

#: Points of the normalisation's trapezoid rule.
NORMALISATION_POINTS = 1024


class SchrodingerGround(Problem):
    """The ground state of one of :data:`pderepro.solvers.elliptic.schrodinger.PROBLEMS`."""

    potential_name = ""
    quantity = "energy"

    def __init__(self, initial_energy: float | None = None) -> None:
        self.domain = Domain.box(x=solver.DOMAINS[self.potential_name])
        lo, hi = self.domain.x
        self.initial_energy = None if initial_energy is None else float(initial_energy)
        energy = math.pi**2 if initial_energy is None else float(initial_energy)
        self.energy = nn.Parameter(torch.tensor(energy), requires_grad=initial_energy is not None)
        self.quadrature = torch.linspace(lo, hi, NORMALISATION_POINTS, dtype=torch.float64)[:, None]
        self.reference_method = (
            f"second-order finite differences on {solver.REFERENCE_CELLS} cells, energy "
            "Richardson-extrapolated (pderepro.solvers.elliptic.schrodinger; verified against the "
            "matching conditions)"
        )

    def parameters(self) -> dict[str, float]:
        return {} if self.initial_energy is None else {"initial_energy": self.initial_energy}

    def potential(self, x: Tensor) -> Tensor:
        return torch.as_tensor(solver.potential(self.potential_name, x.detach().double().numpy()),
                               dtype=x.dtype)  # fmt: skip

    def residual(self, u: Tensor, points: Tensor) -> Tensor:
        u_x = gradient(u, points)[:, 0]
        u_xx = gradient(u_x, points)[:, 0]
        return -u_xx + (self.potential(points[:, 0]) - self.energy) * u

    def trial(self, raw: Tensor, points: Tensor) -> Tensor:
        lo, hi = self.domain.x
        x = points[:, 0]
        return (x - lo) * (hi - x) * raw

    def trainable(self) -> dict[str, nn.Parameter]:
        return {"energy": self.energy} if self.initial_energy is not None else {}

    def state(self) -> dict[str, float]:
        return {"energy": float(self.energy.detach())}

    def norm(self, trial_field, dtype: torch.dtype) -> Tensor:
        x = self.quadrature.to(dtype)  # (m, 1)
        return torch.sqrt(torch.trapezoid(trial_field(x) ** 2, x[:, 0]))

    def reference(self, x: np.ndarray) -> np.ndarray:
        _, nodes, psi = solver.eigenstates(self.potential_name, solver.REFERENCE_CELLS)
        return np.interp(x, nodes, psi[0])

    def reference_quantity(self) -> float:
        return float(solver.richardson_energies(self.potential_name)[0])

    def aligned(self, prediction: np.ndarray, reference: np.ndarray) -> np.ndarray:
        return -prediction if float(np.sum(prediction * reference)) < 0 else prediction

    def error(self, prediction: np.ndarray, reference: np.ndarray) -> float:
        best = min(np.linalg.norm(prediction - reference), np.linalg.norm(prediction + reference))
        return float(best / np.linalg.norm(reference))

    def no_learning_on(
        self, axes: tuple[np.ndarray, ...], reference: np.ndarray
    ) -> tuple[str, np.ndarray]:
        """The trial function's envelope ``(x - lo)(hi - x)``, normalised: what the hard
        constraint alone gives."""
        (x,) = axes
        lo, hi = self.domain.x
        envelope = (x - lo) * (hi - x)
        envelope = envelope / math.sqrt(np.trapezoid(envelope**2, x))
        return "normalised trial envelope (no learning)", self.aligned(envelope, reference)


@register_problem
class InfiniteWell(SchrodingerGround):
    """``V = 0`` on [0, 1]: ``E = pi^2`` fixed, ``psi = sqrt(2) sin(pi x)``."""

    name = "infinite_well"
    potential_name = solver.INFINITE_WELL

    def __init__(self) -> None:
        super().__init__(initial_energy=None)


@register_problem
class FiniteWell(SchrodingerGround):
    """``V = 0`` for ``|x| < 0.5``, 20 outside, in the box [-3, 3]; ``E`` trained."""

    name = "finite_well"
    potential_name = solver.FINITE_WELL


@register_problem
class Barrier(SchrodingerGround):
    """The box [-1, 1] with ``V = 20`` for ``|x| < 0.1``; ``E`` trained."""

    name = "barrier"
    potential_name = solver.BARRIER
