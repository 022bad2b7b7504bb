"""The design objective as torch functions: compliance through the finite-element solve,
and densities that meet the volume fraction exactly.

:func:`compliance` wraps :meth:`pderepro.solvers.elasticity.fem.Structure.compliance`
(float64 NumPy and a sparse direct solve) as an autograd function: its backward is the
adjoint gradient. :func:`constrained_densities` maps unconstrained logits ``z`` to the
filtered densities ``y = W sigmoid(z + b)`` with the shift ``b`` found by bisection so that
``mean(y)`` is the target volume fraction at every step: the physical (filtered) volume is
exact. (Hoyer et al. 2019 shift the logits so that the unfiltered mean is the target and
filter after; the two differ by the filter's edge effects, its column sums ranging about
0.8-1.2.) Float64 logits give the mean to about 1e-15, float32 to about 1e-9.
Its gradient is the implicit one: with ``s' = sigmoid'(z + b)``,
``w = W^T 1`` and ``g = W^T dL/dy``, ``dL/dz = g s' - (g . s') / (w . s') w s'`` (``b``
moves with ``z`` to keep the mean).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

from pderepro.solvers.elasticity.fem import Structure

#: Bisection steps of the logit shift (the bracket shrinks to 2^-60 of its width).
_BISECTION_STEPS = 60


class _Compliance(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, density: torch.Tensor, structure: Structure) -> torch.Tensor:
        value, grad = structure.compliance(density.detach().cpu().double().numpy())
        ctx.save_for_backward(torch.from_numpy(grad).to(density))
        return density.new_tensor(value)

    @staticmethod
    def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None]:
        (grad,) = ctx.saved_tensors
        return upstream * grad, None


def compliance(density: torch.Tensor, structure: Structure) -> torch.Tensor:
    """Compliance (a scalar tensor) of element densities ``(nely, nelx)`` in [0, 1]."""
    return _Compliance.apply(density, structure)


def _shift(z: np.ndarray, volume: float, filt: sp.csr_matrix) -> float:
    """The ``b`` with ``mean(W sigmoid(z + b)) = volume``, by bisection (monotone in b)."""
    low, high = -z.max() - 40.0, -z.min() + 40.0
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2
        if (filt @ (1 / (1 + np.exp(-(z + middle))))).mean() < volume:
            low = middle
        else:
            high = middle
    return (low + high) / 2


class _ConstrainedDensities(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, volume: float, filt: sp.csr_matrix):
        z = logits.detach().cpu().double().numpy().T.ravel()  # element order i * nely + j
        s = 1 / (1 + np.exp(-(z + _shift(z, volume, filt))))
        ctx.filt, ctx.shape = filt, logits.shape
        ctx.slope = s * (1 - s)
        y = (filt @ s).reshape(logits.shape[1], logits.shape[0]).T
        return torch.from_numpy(np.ascontiguousarray(y)).to(logits)

    @staticmethod
    def backward(ctx: Any, upstream: torch.Tensor):
        filt, slope = ctx.filt, ctx.slope
        g = filt.T @ upstream.detach().cpu().double().numpy().T.ravel()
        w = np.asarray(filt.sum(axis=0)).ravel()  # W^T 1
        grad = g * slope - (g @ slope) / (w @ slope) * w * slope
        nely, nelx = ctx.shape
        return (
            torch.from_numpy(np.ascontiguousarray(grad.reshape(nelx, nely).T)).to(upstream),
            None,
            None,
        )


def constrained_densities(logits: torch.Tensor, volume: float, filt: sp.csr_matrix) -> torch.Tensor:
    """Filtered densities ``(nely, nelx)`` of logits ``(nely, nelx)`` whose mean is
    ``volume`` exactly (to the bisection's 1e-15), with the implicit gradient."""
    if not 0 < volume < 1:
        raise ValueError(f"volume fraction must be in (0, 1), got {volume}")
    return _ConstrainedDensities.apply(logits, volume, filt)
