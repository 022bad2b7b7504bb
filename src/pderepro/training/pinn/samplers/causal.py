"""Residual-loss weightings: ``none`` (the plain mean) and ``causal`` (Wang et al.).

Wang, Sankaran, Perdikaris, "Respecting causality is all you need for training
physics-informed neural networks", arXiv 2203.07404 (2022; CMAME 421, 2024). The time
interval is cut into ``chunks`` equal slabs; with ``L_i`` the mean squared residual of
the points in slab ``i``, slab ``i`` is weighted by
``w_i = exp(-epsilon * sum_{k<i} L_k)`` (detached: no gradient flows through the
weights), so a slab counts only once every earlier slab is resolved; the loss is
``mean_i(w_i L_i)`` over the non-empty slabs (an empty slab has no ``L_i`` and no
weight, and does not add to later slabs' sums).

The tolerance ``epsilon`` is fixed by default. Wang et al. anneal it through
``[1e-2, 1e-1, 1, 10, 100]``, moving on once ``min_i w_i > delta = 0.99``; the R3
authors' code (``Convection/pinn_model.py`` of arkadaw9/r3_sampling_icml2023) also moves
on after a fixed number of iterations per value. Both are available: give ``tolerance``
as a list, and optionally ``steps_per_tolerance``. The R3 authors' causal PINN uses 32
time levels for convection (our default ``chunks``) and 100 for Allen-Cahn.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.samplers.base import Weighting, register_weighting
from pderepro.training.pinn.samplers.basic import positive_int


@register_weighting
class NoWeighting(Weighting):
    """The mean of the squared residuals. No options."""

    name = "none"

    def __init__(self, domain: Domain) -> None:
        super().__init__(domain)

    def loss(self, squared: Tensor, t: Tensor) -> Tensor:
        return squared.mean()


@register_weighting
class CausalWeighting(Weighting):
    """Causal weights over ``chunks`` equal time slabs (Wang, Sankaran, Perdikaris 2022).

    Options
    -------
    chunks : int, default 32
        Equal slabs of the domain's time interval (``t = t1`` falls in the last).
    tolerance : float or list of float, default 1.0
        ``epsilon`` (per unit of squared residual). A list is a schedule: the next
        value takes over after a :meth:`loss` call whose smallest weight exceeds
        ``delta``, or after ``steps_per_tolerance`` calls at the current value.
    delta : float, default 0.99
        Smallest weight that counts as "every slab resolved" (schedules only).
    steps_per_tolerance : int or None, default None
        Most :meth:`loss` calls per scheduled value (None: no limit).
    """

    name = "causal"

    def __init__(
        self,
        domain: Domain,
        *,
        chunks: int = 32,
        tolerance: float | Sequence[float] = 1.0,
        delta: float = 0.99,
        steps_per_tolerance: int | None = None,
    ) -> None:
        super().__init__(domain)
        self.chunks = positive_int("chunks", chunks)
        schedule = [tolerance] if isinstance(tolerance, int | float) else list(tolerance)
        if not schedule or any(float(value) < 0 for value in schedule):
            raise ValueError(f"causal weighting needs tolerances >= 0, got {tolerance!r}")
        self.schedule = [float(value) for value in schedule]
        self.delta = float(delta)
        self.steps_per_tolerance = (
            None
            if steps_per_tolerance is None
            else positive_int("steps_per_tolerance", steps_per_tolerance)
        )
        self.stage = 0  # index into the schedule
        self.steps_at_stage = 0
        self.min_weight = 1.0

    @property
    def tolerance(self) -> float:
        return self.schedule[self.stage]

    def weights(self, chunk_loss: Tensor, filled: Tensor) -> Tensor:
        """Detached weights ``(c,)`` of per-slab losses ``(c,)``; ``filled`` marks non-empty."""
        earlier = torch.cumsum(chunk_loss.detach(), 0) - chunk_loss.detach()  # (c,) sum_{k<i}
        weights = torch.exp(-self.tolerance * earlier)
        return torch.where(filled, weights, torch.zeros_like(weights))

    def loss(self, squared: Tensor, t: Tensor) -> Tensor:
        """``mean_i(w_i L_i)`` over the non-empty slabs; may advance the tolerance schedule."""
        s = self.domain.normalised_time(t.detach().reshape(-1))  # (n,)
        slab = (s * self.chunks).floor().long().clamp(0, self.chunks - 1)  # (n,)
        count = torch.bincount(slab, minlength=self.chunks)  # (c,)
        total = torch.zeros(self.chunks, dtype=squared.dtype, device=squared.device)
        total = total.index_add(0, slab.to(squared.device), squared.reshape(-1))  # (c,)
        filled = (count > 0).to(squared.device)  # (c,)
        chunk_loss = total / count.clamp(min=1).to(total)  # (c,) 0 where empty
        weights = self.weights(chunk_loss, filled)  # (c,)
        self.min_weight = float(weights[filled].min()) if bool(filled.any()) else 1.0
        self.step_schedule()
        return (weights * chunk_loss).sum() / filled.sum().clamp(min=1)

    def step_schedule(self) -> None:
        """Move to the next scheduled tolerance when the current one is done."""
        self.steps_at_stage += 1
        if self.stage + 1 >= len(self.schedule):
            return
        limit = self.steps_per_tolerance
        if self.min_weight > self.delta or (limit is not None and self.steps_at_stage >= limit):
            self.stage += 1
            self.steps_at_stage = 0

    def state(self) -> dict[str, float]:
        return {"min_weight": self.min_weight, "tolerance": self.tolerance}
