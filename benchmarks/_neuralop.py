"""What the benchmarks against neuraloperator share (``fno1d_vs_neuraloperator.py``,
``fno2d3d_vs_neuraloperator.py``, ``fno_peer_variants.py``): its FNO built to our
architecture, the parameter count both sides are compared by, and Adam epochs timed the
same way on both, interleaved.

neuraloperator is imported only when one of its networks is built, so the scripts' ``--help``
works without it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping

import torch
from torch import nn

#: ``step(model, inputs) -> predictions``: how a benchmark calls a model on a batch.
Step = Callable[[nn.Module, torch.Tensor], torch.Tensor]


def neuralop_missing() -> bool:
    """Whether neuraloperator is not importable (then says so: nothing to compare)."""
    try:
        import neuralop  # noqa: F401
    except ImportError as exc:
        print(f"neuraloperator is not importable ({exc}); nothing to compare. Skipping.")
        return True
    return False


def neuralop_n_modes(modes: tuple[int, ...]) -> tuple[int, ...]:
    """neuralop's ``n_modes`` that keeps our ``modes`` per axis: it counts both signs on the
    leading axes and the full spectrum on the last (of which it keeps ``n // 2 + 1``), so
    ``2 * m`` on the leading axes and ``2 * (m - 1)`` on the last."""
    return tuple(2 * m for m in modes[:-1]) + (2 * (modes[-1] - 1),)


def neuralop_fno(
    modes: tuple[int, ...],
    in_channels: int,
    width: int,
    layers: int,
    projection: int,
    padding: float | list[float] | None = None,
) -> nn.Module:
    """neuralop's FNO with our architecture: a single linear lifting of the fields plus grid
    channels, ``layers`` Fourier layers with a linear skip and no channel MLP, projection
    ``width -> projection -> 1``, ``modes`` kept per axis as ours keeps them."""
    from neuralop.models import FNO

    return FNO(
        n_modes=neuralop_n_modes(modes),
        in_channels=in_channels,
        out_channels=1,
        hidden_channels=width,
        n_layers=layers,
        lifting_channel_ratio=0,  # 0 -> a single linear lifting layer, as in the paper
        projection_channel_ratio=projection / width,
        positional_embedding="grid",
        use_channel_mlp=False,
        fno_skip="linear",
        domain_padding=padding,
    )


class Adapter(nn.Module):
    """neuralop's network ``inner`` called as the benchmark calls ours (``forward``)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner


class ChannelAxis(Adapter):
    """Adapts neuralop's ``(batch, 1, *grid) -> (batch, 1, *grid)`` to ``(batch, *grid)``."""

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return self.inner(u[:, None])[:, 0]  # (batch, *grid)


def real_parameter_count(model: nn.Module) -> int:
    """Trainable parameters, complex entries counted as two reals."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in model.parameters())


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ||pred - target|| / ||target||, inputs ``(batch, ...)``."""
    diff = (pred - target).flatten(1).norm(dim=1)  # (batch,)
    return (diff / target.flatten(1).norm(dim=1)).mean()


def train_epoch(
    model: nn.Module, step: Step, inputs: torch.Tensor, targets: torch.Tensor, batch: int
) -> float:
    """One Adam epoch over (inputs, targets), in an order fixed by seed 0; returns seconds."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    order = torch.randperm(inputs.shape[0], generator=torch.Generator().manual_seed(0))
    start = time.perf_counter()
    for i in range(0, inputs.shape[0], batch):
        idx = order[i : i + batch]
        opt.zero_grad(set_to_none=True)
        loss = relative_l2(step(model, inputs[idx]), targets[idx])
        loss.backward()
        opt.step()
    return time.perf_counter() - start


def median_epoch_times(
    models: Mapping[str, nn.Module],
    step: Step,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    batch: int,
    args: argparse.Namespace,
    prefix: str = "",
) -> dict[str, float]:
    """Median seconds per epoch of each model over ``args.epochs`` epochs, interleaved
    (the machine drifts), after a check of the output shape and ``args.warmup_steps``
    untimed steps (allocator, basis caches, einsum paths: the first steps are several
    times slower than steady state and would dominate a 2-epoch median)."""
    for label, model in models.items():
        with torch.no_grad():
            out = step(model, inputs[:batch])
        assert out.shape == targets[:batch].shape, (label, out.shape)
        n_warm = min(args.warmup_steps * batch, inputs.shape[0])
        train_epoch(model, step, inputs[:n_warm], targets[:n_warm], batch)
    times: dict[str, list[float]] = {label: [] for label in models}
    for epoch in range(args.epochs):
        for label, model in models.items():
            seconds = train_epoch(model, step, inputs, targets, batch)
            times[label].append(seconds)
            print(f"{prefix}epoch {epoch}: {label:6s} {seconds:7.2f} s", flush=True)
    return {label: statistics.median(t) for label, t in times.items()}


def add_common_arguments(parser: argparse.ArgumentParser, warmup_steps: int) -> None:
    """The options both timing scripts take: the shared architecture and the timing."""
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--projection", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=2, help="timed epochs per model")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--warmup-steps", type=int, default=warmup_steps, help="untimed steps per model"
    )
