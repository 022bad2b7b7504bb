"""A physics-informed run's reference solution in memory, and the error against it.

The reference is on a grid (one axis per coordinate) or, for a ball's problems, on fixed
scattered test points; either way :meth:`Reference.points` gives the points in the order
of ``u.ravel()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.training.pinn.problems.base import Problem

#: Rows of one forward pass when a network is scored on the reference (bounds memory at
#: high dimension).
EVALUATION_CHUNK = 4096


@dataclass
class Reference:
    """The reference solution ``u`` on the grid of ``axes`` (one per coordinate, in the
    domain's order; ``u`` shaped by the axes in reverse order, ``(nt, nx)``), or at
    scattered ``coordinates (n, dim)`` (``u`` then ``(n,)``, ``axes`` empty); ``quantity``
    is the reference value of the problem's trainable scalar, if any."""

    axes: tuple[np.ndarray, ...]
    u: np.ndarray
    quantity: float | None = None
    coordinates: np.ndarray | None = None

    def points(self, dtype: torch.dtype) -> Tensor:
        """Points ``(u.size, dim)`` in the order of ``u.ravel()``."""
        if self.coordinates is not None:
            return torch.as_tensor(self.coordinates, dtype=dtype)
        mesh = np.meshgrid(*self.axes[::-1], indexing="ij")  # each shaped like u
        return torch.as_tensor(np.stack([m.ravel() for m in mesh[::-1]], axis=1), dtype=dtype)


def reference_error(
    model: nn.Module, problem: Problem, reference: Reference, dtype: torch.dtype,
    device: torch.device | str = "cpu",
) -> tuple[float, Any]:  # fmt: skip
    """The problem's error (relative L2, or as the problem defines it) over the whole
    reference, and the prediction (shaped like ``reference.u``)."""
    points = reference.points(dtype)
    with torch.no_grad():
        pred = torch.cat([
            model(points[i : i + EVALUATION_CHUNK].to(device)).double().cpu()
            for i in range(0, points.shape[0], EVALUATION_CHUNK)
        ]).numpy().reshape(reference.u.shape)  # fmt: skip
    pred = problem.aligned(pred, reference.u)
    return problem.error(pred, reference.u), pred
