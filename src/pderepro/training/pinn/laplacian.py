"""The Laplacian of a field, whole or estimated from sampled dimensions (SDGD).

``Δu = Σ_i ∂²u/∂x_i²`` at every point, each term a forward-over-reverse product
``e_iᵀ H e_i`` (``torch.func.jvp`` of ``torch.func.grad``), vmapped over points and over
chunks of coordinate directions. The result stays in the autograd graph of the field's
parameters, so a loss built on it trains them.

SDGD (Hu, Shukla, Karniadakis, Kawaguchi 2024, docs/references.md) replaces the sum over all
``d`` coordinates by ``d / k`` times the sum over ``k`` coordinates drawn without
replacement: an unbiased estimate of ``Δu`` whose graph (and cost) holds ``k`` terms, not
``d``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor
from torch.func import grad, jvp, vmap

#: Elements of one chunk's tangent tensor ``(n, chunk, d)``: bounds the chunk of directions,
#: which holds at least :data:`MIN_CHUNK` (SDGD's few sampled directions share one pass).
CHUNK_ELEMENTS, MIN_CHUNK = 2**24, 8


def second_derivatives(field: Callable[[Tensor], Tensor], points: Tensor, dims: Tensor) -> Tensor:
    """``∂²u/∂x_i²`` at every point for every coordinate ``i`` in ``dims``.

    Parameters
    ----------
    field : callable
        ``u(points (n, d)) -> (n,)``, pointwise (row ``i`` of the output depends on row
        ``i`` of the input only).
    points : Tensor
        ``(n, d)``; need not require grad.
    dims : Tensor
        ``(k,)`` coordinate indices (int64).

    Returns
    -------
    Tensor
        ``(n, k)``, differentiable with respect to the field's parameters.
    """
    n, d = points.shape

    def u_one(x: Tensor) -> Tensor:  # (d,) -> ()
        return field(x.unsqueeze(0)).squeeze(0)

    grad_u = grad(u_one)  # (d,) -> (d,)

    def curvature(x: Tensor, direction: Tensor) -> Tensor:  # e_iᵀ H e_i, a scalar
        return (jvp(grad_u, (x,), (direction,))[1] * direction).sum()

    per_point = vmap(vmap(curvature, in_dims=(None, 0)), in_dims=(0, None))
    chunk = max(MIN_CHUNK, CHUNK_ELEMENTS // max(n * d, 1))
    columns = []
    for start in range(0, dims.shape[0], chunk):
        index = dims[start : start + chunk]
        directions = torch.zeros(index.shape[0], d, dtype=points.dtype, device=points.device)
        directions[torch.arange(index.shape[0]), index] = 1.0  # (chunk, d) one-hot rows
        columns.append(per_point(points, directions))  # (n, chunk)
    return torch.cat(columns, dim=1)  # (n, k)


def laplacian(
    field: Callable[[Tensor], Tensor],
    points: Tensor,
    sampled_dims: int = 0,
    generator: torch.Generator | None = None,
) -> Tensor:
    """``Δu`` at ``points (n, d)``: exact (``sampled_dims`` 0 or >= d), or SDGD's unbiased
    estimate ``(d / k) Σ_{i in I} ∂²u/∂x_i²`` over ``k = sampled_dims`` coordinates ``I``
    drawn without replacement with ``generator`` (CPU), the same for every point.
    Returns ``(n,)``."""
    d = points.shape[1]
    if not sampled_dims or sampled_dims >= d:
        return second_derivatives(field, points, torch.arange(d)).sum(dim=1)
    dims = torch.randperm(d, generator=generator)[:sampled_dims]  # (k,)
    return second_derivatives(field, points, dims).sum(dim=1) * (d / sampled_dims)
