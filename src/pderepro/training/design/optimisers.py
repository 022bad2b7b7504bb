"""Design optimisers: each runs a fixed number of iterations on one structure and returns
the compliance history and the final filtered densities.

- :func:`optimality_criteria`: the classic pixel update (Bendsoe and Sigmund's optimality
  criteria with the density filter): ``x <- clip(x sqrt(-dc/dx / (lambda dv/dx)), x -
  move, x + move, 0, 1)`` with the multiplier ``lambda`` found by bisection so that the
  filtered densities meet the volume exactly.
- :func:`mma`: the method of moving asymptotes (Svanberg 1987; nlopt's ``LD_MMA``) on the
  pixels, the volume an inequality ``mean(W x) <= V`` it keeps to its tolerance.
- :func:`lbfgs`: L-BFGS (torch's, with a strong-Wolfe line search) on any
  parameterisation ``params -> logits``: pixels (the logits themselves) or a network's
  weights (Hoyer et al. 2019's reparameterisation); the logits pass through
  :func:`~pderepro.training.design.physics.constrained_densities`, so every iterate meets
  the volume exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch

from pderepro.solvers.elasticity.fem import Structure
from pderepro.training.design.physics import compliance, constrained_densities


@dataclass
class DesignRun:
    """What one optimiser reached: compliance at each objective evaluation (OC: one per
    iteration; MMA and L-BFGS: their evaluations, line-search trials included, so
    budgets compare by evaluations), the last entry the final design's, and the final
    filtered densities ``(nely, nelx)``."""

    history: list[float]
    density: np.ndarray

    @property
    def final(self) -> float:
        return self.history[-1]


def _image(values: np.ndarray, structure: Structure) -> np.ndarray:
    return values.reshape(structure.nelx, structure.nely).T


def _elements(image: np.ndarray) -> np.ndarray:
    return image.T.ravel()


def optimality_criteria(
    structure: Structure,
    volume: float,
    filt: sp.csr_matrix,
    iterations: int,
    *,
    move: float = 0.2,
) -> DesignRun:
    """Pixel optimality criteria from the uniform design ``x = volume``."""
    x = np.full(structure.nelx * structure.nely, float(volume))
    dv = np.asarray(filt.sum(axis=0)).ravel()  # d(sum of filtered densities)/dx
    history = []
    for _ in range(iterations):
        c, grad = structure.compliance(_image(filt @ x, structure))
        history.append(c)
        dc = np.minimum(filt.T @ _elements(grad), -1e-30)  # compliance only falls with x
        ratio = -dc / dv
        low, high = 1e-12 * ratio.max(), 1e12 * ratio.max()  # scale-free bracket
        while (high - low) / (high + low) > 1e-9:  # the multiplier, by bisection in ratio
            lam = np.sqrt(low * high)
            new = np.clip(
                x * np.sqrt(ratio / lam), np.maximum(0, x - move), np.minimum(1, x + move)
            )
            if (filt @ new).mean() > volume:
                low = lam
            else:
                high = lam
        if abs((filt @ new).mean() - volume) > 1e-6:
            raise RuntimeError(f"optimality criteria missed the volume: {(filt @ new).mean()}")
        x = new
    final = _image(filt @ x, structure)
    history.append(structure.compliance(final)[0])
    return DesignRun(history, final)


def lbfgs(
    structure: Structure,
    volume: float,
    filt: sp.csr_matrix,
    iterations: int,
    params: Sequence[torch.Tensor],
    logits: Callable[[], torch.Tensor],
) -> DesignRun:
    """L-BFGS on ``params``; ``logits()`` maps them to ``(nely, nelx)`` logits (float64)."""
    optimiser = torch.optim.LBFGS(params, max_iter=iterations, line_search_fn="strong_wolfe",
                                  tolerance_grad=0.0, tolerance_change=0.0)  # fmt: skip
    history: list[float] = []

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        value = compliance(constrained_densities(logits(), volume, filt), structure)
        value.backward()
        history.append(float(value.detach()))
        return value

    optimiser.step(closure)
    with torch.no_grad():
        final = constrained_densities(logits(), volume, filt).numpy()
    history.append(structure.compliance(final)[0])
    return DesignRun(history, final)


def pixel_lbfgs(
    structure: Structure, volume: float, filt: sp.csr_matrix, iterations: int
) -> DesignRun:
    """L-BFGS on the pixels' logits, from the uniform design (logits zero)."""
    z = torch.zeros(structure.nely, structure.nelx, dtype=torch.float64, requires_grad=True)
    return lbfgs(structure, volume, filt, iterations, [z], lambda: z)


def mma(structure: Structure, volume: float, filt: sp.csr_matrix, iterations: int) -> DesignRun:
    """MMA on the pixels from the uniform design, ``iterations`` objective evaluations."""
    import nlopt  # only the MMA baseline needs it

    n = structure.nelx * structure.nely
    dv = np.asarray(filt.sum(axis=0)).ravel() / n  # d mean(W x) / dx
    history: list[float] = []

    def objective(x: np.ndarray, grad: np.ndarray) -> float:
        c, g = structure.compliance(_image(filt @ x, structure))
        if grad.size:
            grad[:] = filt.T @ _elements(g)
        history.append(c)
        return c

    def constraint(x: np.ndarray, grad: np.ndarray) -> float:
        if grad.size:
            grad[:] = dv
        return float((filt @ x).mean() - volume)

    opt = nlopt.opt(nlopt.LD_MMA, n)
    opt.set_lower_bounds(0.0)
    opt.set_upper_bounds(1.0)
    opt.set_min_objective(objective)
    opt.add_inequality_constraint(constraint, 1e-8)
    opt.set_maxeval(iterations)
    x = opt.optimize(np.full(n, float(volume)))
    final = _image(filt @ x, structure)
    history.append(structure.compliance(final)[0])
    return DesignRun(history, final)
