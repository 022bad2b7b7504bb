"""Training loops of flow matching (FM), FM with a weighted residual loss, and PBFM.

Physics-Based Flow Matching (Baldan, Liu, Guardone, Thuerey 2025, arXiv 2506.08604) adds to
the FM loss a physics residual of the model's predicted final sample and combines the two
losses' gradients with the conflict-free update ConFIG (Liu, Chu, Thuerey, ICLR 2025; the
``conflictfree`` package), not with a weight. Three methods, a mapping with ``kind``:

- ``{"kind": "fm"}``: the FM loss ``mean((v(x_t, t) - u)^2)`` alone;
- ``{"kind": "weighted", "weight": w, "unroll": k}``: FM loss ``+ w *`` residual loss;
- ``{"kind": "pbfm", "unroll": k}``: the FM and residual gradients, computed separately,
  combined by ConFIG.

The residual loss is the batch mean of ``residual(normaliser.denormalise(x1_hat))``, with
``x1_hat`` the final estimate of :func:`~.paths.final_estimate` after ``unroll`` Euler steps
(default 1). ``residual`` maps physical fields ``(B, C, H, W)`` to ``(B,)``, so this loop
knows nothing of the PDE.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from conflictfree.grad_operator import ConFIG_update, ConFIG_update_double
from conflictfree.utils import apply_gradient_vector, get_gradient_vector
from torch import Tensor, nn

from pderepro.training.flow_matching.paths import (
    check_sigma_min,
    conditional_path,
    final_estimate,
)

__all__ = [
    "METHOD_KINDS",
    "ChannelNormaliser",
    "FlowMatchingRun",
    "conflict_free_gradient",
    "train_flow_matching",
]

#: The training methods and the keys each accepts besides ``kind``.
METHOD_KINDS: dict[str, frozenset[str]] = {
    "fm": frozenset({"unroll"}),  # unroll is ignored: FM's logged residual is one-step
    "weighted": frozenset({"weight", "unroll"}),
    "pbfm": frozenset({"unroll"}),
}


@dataclass(frozen=True)
class ChannelNormaliser:
    """Per-channel affine normalisation ``(x - mean) / std`` of ``(B, C, H, W)`` fields.

    Attributes
    ----------
    mean, std : tuple of float
        One value per channel, in each channel's physical units; saved with the model so that
        samples can be mapped back to physical fields.
    """

    mean: tuple[float, ...]
    std: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.mean) != len(self.std) or not self.mean:
            raise ValueError(f"need one mean and one std per channel, got {self}")
        if not all(s > 0 for s in self.std):
            raise ValueError(f"std must be positive, got {self.std}")

    @classmethod
    def fit(cls, data: Tensor) -> ChannelNormaliser:
        """Mean and (population) standard deviation of each channel of ``(N, C, H, W)`` data;
        a constant channel gets ``std = 1``."""
        data = torch.as_tensor(data, dtype=torch.float64)
        mean = data.mean(dim=(0, 2, 3))  # (C,)
        std = data.std(dim=(0, 2, 3), correction=0)  # (C,)
        std = torch.where(std > 0, std, torch.ones_like(std))
        return cls(tuple(mean.tolist()), tuple(std.tolist()))

    def _stats(self, x: Tensor) -> tuple[Tensor, Tensor]:
        if x.ndim != 4 or x.shape[1] != len(self.mean):
            raise ValueError(f"expected (B, {len(self.mean)}, H, W), got {tuple(x.shape)}")
        mean = torch.tensor(self.mean, dtype=x.dtype, device=x.device)[None, :, None, None]
        std = torch.tensor(self.std, dtype=x.dtype, device=x.device)[None, :, None, None]
        return mean, std  # (1, C, 1, 1) each

    def normalise(self, x: Tensor) -> Tensor:
        """Physical ``(B, C, H, W)`` fields to normalised (dimensionless) ones."""
        mean, std = self._stats(x)
        return (x - mean) / std

    def denormalise(self, x: Tensor) -> Tensor:
        """Normalised ``(B, C, H, W)`` fields back to physical units (differentiable)."""
        mean, std = self._stats(x)
        return x * std + mean

    def to_dict(self) -> dict[str, list[float]]:
        """JSON-serialisable form; :meth:`from_dict` reads it back."""
        return {"mean": list(self.mean), "std": list(self.std)}

    @classmethod
    def from_dict(cls, state: Mapping[str, Sequence[float]]) -> ChannelNormaliser:
        """Inverse of :meth:`to_dict`."""
        return cls(tuple(map(float, state["mean"])), tuple(map(float, state["std"])))


@dataclass
class FlowMatchingRun:
    """What a training run reports.

    Attributes
    ----------
    method : dict
        The method mapping, with its defaults filled in.
    sigma_min : float
        Minimum noise of the path (normalised units).
    seed : int
        Seed of the noise, times and batch order.
    iterations : int
        Optimiser steps taken.
    normaliser : ChannelNormaliser
        The data's normalisation, to keep with the model.
    history : list of dict
        One row per ``log_every`` steps: ``iteration`` (steps done), ``fm_loss`` and
        ``residual_loss`` (means over the steps since the last row of the batch losses before
        each step; normalised units squared, and the residual's units; NaN without a
        residual), ``wall_s`` (seconds since the start).
    seconds_per_iteration : float
        Wall-clock seconds per step over the run.
    """

    method: dict[str, Any]
    sigma_min: float
    seed: int
    iterations: int
    normaliser: ChannelNormaliser
    history: list[dict[str, float]] = field(default_factory=list)
    seconds_per_iteration: float = float("nan")


def _check_method(method: Mapping[str, Any], has_residual: bool) -> dict[str, Any]:
    kind = method.get("kind")
    if kind not in METHOD_KINDS:
        raise ValueError(f"method kind must be one of {sorted(METHOD_KINDS)}, got {kind!r}")
    unknown = set(method) - {"kind"} - METHOD_KINDS[kind]
    if unknown:
        raise ValueError(f"method {kind!r} takes no {sorted(unknown)}")
    out = {"kind": kind, "unroll": int(method.get("unroll", 1))}
    if out["unroll"] < 1:
        raise ValueError(f"unroll must be >= 1, got {method['unroll']!r}")
    if kind == "weighted":
        if "weight" not in method:
            raise ValueError("method 'weighted' needs a 'weight'")
        out["weight"] = float(method["weight"])
    if kind != "fm" and not has_residual:
        raise ValueError(f"method {kind!r} needs a residual")
    return out


def conflict_free_gradient(model: nn.Module, losses: Sequence[Tensor]) -> Tensor:
    """Back-propagate each loss on its own and set the ConFIG combination as the gradient.

    ConFIG (the ``conflictfree`` package, equal weights, projection length) returns the
    direction with equal cosine to every loss gradient, so it has a non-negative dot product
    with each of them, scaled by the sum of their projections on it. Two losses use the
    package's closed form (``ConFIG_update_double``, deterministic); more, or two parallel or
    zero gradients, its least-squares form (``ConFIG_update``, float32, whose CPU ``lstsq`` is
    not bit-reproducible across thread counts).

    Parameters
    ----------
    model : torch.nn.Module
        The network whose parameters the losses depend on.
    losses : sequence of torch.Tensor
        Scalar losses; all but the last are back-propagated with ``retain_graph`` so they may
        share a forward pass.

    Returns
    -------
    torch.Tensor
        Shape ``(m, P)``: the ``m`` flattened loss gradients (``P`` parameters; zeros where a
        parameter does not enter a loss). The combined gradient is left in ``.grad``.
    """
    grads = []
    for index, loss in enumerate(losses):
        model.zero_grad(set_to_none=True)
        loss.backward(retain_graph=index < len(losses) - 1)
        # A copy: the vector can be a view of a .grad that the next backward accumulates into.
        grads.append(get_gradient_vector(model, none_grad_mode="zero").clone())
    stacked = torch.stack(grads)  # (m, P)
    combined = None
    if len(grads) == 2:
        # The package's closed form for two gradients: the same direction as the general
        # least-squares update, but bit-reproducible (CPU lstsq is not, across threads).
        combined = ConFIG_update_double(stacked[0], stacked[1])  # (P,)
    if combined is None or not torch.isfinite(combined).all():
        # Parallel or zero gradients leave the closed form 0/0; least squares copes.
        combined = ConFIG_update(stacked.float()).to(stacked.dtype)  # (P,)
    apply_gradient_vector(model, combined, none_grad_mode="zero")
    return stacked


def train_flow_matching(
    model: nn.Module,
    data: Tensor,
    *,
    method: Mapping[str, Any],
    sigma_min: float,
    iterations: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    residual: Callable[[Tensor], Tensor] | None = None,
    normaliser: ChannelNormaliser,
    log_every: int,
    device: str | torch.device = "cpu",
) -> FlowMatchingRun:
    """Train the velocity network ``model`` by FM, weighted FM + residual, or PBFM, with Adam.

    Each step draws a batch of ``batch_size`` samples (epochs of a seeded permutation, the
    last partial batch of an epoch dropped), noise ``x0 ~ N(0, I)`` and times
    ``t ~ U[0, 1)``, all from one ``torch.Generator(seed)`` on the CPU (so a run is
    reproducible bit for bit on one device, whatever the device), then
    ``x_t, u = conditional_path(x0, x1, t, sigma_min)`` and the FM loss
    ``mean((v(x_t, t) - u)^2)``. The residual loss is
    ``mean(residual(normaliser.denormalise(x1_hat)))`` with ``x1_hat`` the final estimate after
    ``method["unroll"]`` Euler steps; the first step reuses the FM forward pass. For ``fm``
    the residual loss is only logged (of the one-step estimate, no extra forward pass).

    Parameters
    ----------
    model : torch.nn.Module
        Velocity ``v(x, t)``, ``(B, C, H, W)`` and ``(B,)`` to ``(B, C, H, W)``; moved to
        ``device`` and trained in place.
    data : torch.Tensor
        Shape ``(N, C, H, W)``: training samples, normalised by ``normaliser``.
    method : mapping
        ``kind`` in ``fm``, ``weighted`` (with ``weight``), ``pbfm``; optional ``unroll``
        (int >= 1, default 1).
    sigma_min : float
        Minimum noise of the path (normalised units), in ``[0, 1)``.
    iterations : int
        Optimiser steps.
    batch_size : int
        Samples per step, at most ``N``.
    learning_rate : float
        Adam's step size.
    seed : int
        Seed of the noise, times and batch order (the model's initialisation is the
        caller's).
    residual : callable, optional
        Physical fields ``(B, C, H, W)`` to per-sample residual losses ``(B,)``;
        required by ``weighted`` and ``pbfm``.
    normaliser : ChannelNormaliser
        The normalisation of ``data``; its inverse gives the residual's physical fields.
    log_every : int
        Steps per history row.
    device : str or torch.device
        Where to train (float32).

    Returns
    -------
    FlowMatchingRun
        Method, settings, history and seconds per step.
    """
    spec = _check_method(method, residual is not None)
    sigma_min = check_sigma_min(sigma_min)
    data = torch.as_tensor(data)
    if data.ndim != 4:
        raise ValueError(f"data must be (N, C, H, W), got {tuple(data.shape)}")
    n = data.shape[0]
    if not 1 <= batch_size <= n:
        raise ValueError(f"batch_size must be in [1, {n}], got {batch_size}")
    if iterations < 1 or log_every < 1:
        raise ValueError(f"need iterations >= 1 and log_every >= 1, got {iterations}, {log_every}")
    device = torch.device(device)
    model.to(device).train()
    data = data.to(device=device, dtype=torch.float32)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(int(seed))
    run = FlowMatchingRun(spec, sigma_min, int(seed), int(iterations), normaliser)

    order = torch.empty(0, dtype=torch.long)
    fm_sum = res_sum = 0.0
    start = time.perf_counter()
    for it in range(iterations):
        if order.numel() < batch_size:  # a new epoch
            order = torch.randperm(n, generator=generator)
        index, order = order[:batch_size], order[batch_size:]
        x1 = data[index.to(device)]  # (B, C, H, W)
        x0 = torch.randn(x1.shape, generator=generator).to(device)  # (B, C, H, W)
        t = torch.rand(batch_size, generator=generator).to(device)  # (B,)
        x_t, u = conditional_path(x0, x1, t, sigma_min)

        v = model(x_t, t)  # (B, C, H, W)
        fm_loss = (v - u).square().mean()
        res_loss = None
        if spec["kind"] != "fm":
            # The first Euler step reuses v; the rest call the model again.
            tb = t[:, None, None, None]
            x1_hat = x_t + (1.0 - tb) / spec["unroll"] * v
            if spec["unroll"] > 1:
                t_next = t + (1.0 - t) / spec["unroll"]
                x1_hat = final_estimate(model, x1_hat, t_next, sigma_min, spec["unroll"] - 1)
            res_loss = residual(normaliser.denormalise(x1_hat)).mean()

        if spec["kind"] == "pbfm":
            conflict_free_gradient(model, [fm_loss, res_loss])
        else:
            optimiser.zero_grad(set_to_none=True)
            total = fm_loss if spec["kind"] == "fm" else fm_loss + spec["weight"] * res_loss
            total.backward()
        optimiser.step()

        fm_sum += fm_loss.item()
        if res_loss is None and residual is not None:
            with torch.no_grad():  # the logged residual of plain FM: the one-step estimate
                x1_hat = x_t + (1.0 - t[:, None, None, None]) * v
                res_loss = residual(normaliser.denormalise(x1_hat)).mean()
        res_sum += res_loss.item() if res_loss is not None else float("nan")
        if (it + 1) % log_every == 0 or it + 1 == iterations:
            steps = (it % log_every) + 1
            run.history.append(
                {
                    "iteration": it + 1,
                    "fm_loss": fm_sum / steps,
                    "residual_loss": res_sum / steps,
                    "wall_s": time.perf_counter() - start,
                }
            )
            fm_sum = res_sum = 0.0
    run.seconds_per_iteration = (time.perf_counter() - start) / iterations
    return run
