"""Training-epoch time of pderepro's FNO2d and FNO3d against ``neuralop.models.FNO`` (run by hand).

Two cases, each at the FNO paper's sizes (scaled down by default to stay short):

- ``darcy``: FNO2d, ``a -> u`` on s x s (s = 85), modes 12, width 32, batch 20,
  zero padding 8 (ours one-sided, theirs 4 on each side: the same padded grid).
- ``ns3d``: FNO3d, 10 frames -> ``--frames-out`` frames on 64 x 64, modes 8 in space and
  time, width 20, batch 10, time padding 6 (theirs 3 on each side of the time axis).

neuraloperator is configured to the same architecture: single linear lifting of the
fields plus grid channels, ``layers`` Fourier layers with a linear skip and no channel
MLP, projection ``width -> 128 -> 1``.  Its ``n_modes`` counts both signs on the leading
axes and the full spectrum on the last axis (of which it keeps ``n // 2 + 1``), so it is
``2 * modes`` on the leading axes and ``2 * (modes - 1)`` on the last.  For the 3-D case
the frames are repeated along time before its forward.  Parameter counts are printed
(complex counted as two reals) and agree exactly.

Timings are interleaved (ours, theirs, ours, ...) since the machine drifts; median epoch
times and their ratio are reported.

Example::

    python benchmarks/fno2d3d_vs_neuraloperator.py --threads 2
    python benchmarks/fno2d3d_vs_neuraloperator.py --case ns3d --frames-out 40 --n-train-3d 100
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch
from torch import nn

from pderepro.models.fno2d import FNO2d, FNO3d

Step = Callable[[nn.Module, torch.Tensor], torch.Tensor]


def real_parameter_count(model: nn.Module) -> int:
    """Trainable parameters, complex entries counted as two reals."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in model.parameters())


class Darcy(nn.Module):
    """Drops the channel axis of neuralop's output: ``(batch, 1, s, s) -> (batch, s, s)``."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return self.inner(a)[:, 0]  # (batch, s, s)


class RepeatInTime(nn.Module):
    """Feeds neuralop's 3-D FNO the input frames repeated along the output-time axis."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, frames: torch.Tensor, n_time_out: int) -> torch.Tensor:
        batch, c, ny, nx = frames.shape
        v = frames[:, :, None].expand(batch, c, n_time_out, ny, nx)  # (batch, c, t, ny, nx)
        return self.inner(v)[:, 0]  # (batch, t, ny, nx)


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ||pred - target|| / ||target||."""
    diff = (pred - target).flatten(1).norm(dim=1)  # (batch,)
    return (diff / target.flatten(1).norm(dim=1)).mean()


def train_epoch(
    model: nn.Module, step: Step, inputs: torch.Tensor, targets: torch.Tensor, batch: int
) -> float:
    """One Adam epoch over (inputs, targets); returns seconds."""
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


def neuralop_fno(
    modes: tuple[int, ...], in_channels: int, width: int, args: argparse.Namespace, padding
) -> nn.Module:
    from neuralop.models import FNO

    n_modes = tuple(2 * m for m in modes[:-1]) + (2 * (modes[-1] - 1),)
    model = FNO(
        n_modes=n_modes,
        in_channels=in_channels,
        out_channels=1,
        hidden_channels=width,
        n_layers=args.layers,
        lifting_channel_ratio=0,  # 0 -> a single linear lifting layer, as in the paper
        projection_channel_ratio=args.projection / width,
        positional_embedding="grid",
        use_channel_mlp=False,
        fno_skip="linear",
        domain_padding=padding,
    )
    kept = model.fno_blocks.convs[0].n_modes
    print(f"neuralop: n_modes={n_modes} keeps {list(kept)} (ours: +-{modes[:-1]}, {modes[-1]})")
    return model


def darcy_case(args: argparse.Namespace, g: torch.Generator):
    s, m, w = args.resolution, args.modes_2d, args.width_2d
    ours = FNO2d(1, m, w, args.layers, args.projection, periodic=False, padding=args.padding)
    # Symmetric padding of round(fraction * s) on each side: the same padded grid.
    theirs = Darcy(neuralop_fno((m, m), 1, w, args, args.padding / 2 / s))
    inputs = torch.randn(args.n_train_2d, 1, s, s, generator=g)  # (N, 1, s, s)
    targets = torch.randn(args.n_train_2d, s, s, generator=g)  # (N, s, s)

    def step(model: nn.Module, a: torch.Tensor) -> torch.Tensor:
        return model(a)  # (batch, s, s)

    return ours, theirs, step, inputs, targets, args.batch_2d


def ns3d_case(args: argparse.Namespace, g: torch.Generator):
    n, m, w, t = args.grid_3d, args.modes_3d, args.width_3d, args.frames_out
    ours = FNO3d(10, m, m, w, args.layers, args.projection, time_padding=args.time_padding)
    pad = [args.time_padding / 2 / t, 0.0, 0.0]
    theirs = RepeatInTime(neuralop_fno((m, m, m), 10, w, args, pad))
    inputs = torch.randn(args.n_train_3d, 10, n, n, generator=g)  # (N, 10, n, n)
    targets = torch.randn(args.n_train_3d, t, n, n, generator=g)  # (N, t, n, n)

    def step(model: nn.Module, frames: torch.Tensor) -> torch.Tensor:
        return model(frames, t)  # (batch, t, n, n)

    return ours, theirs, step, inputs, targets, args.batch_3d


def compare(name: str, case, args: argparse.Namespace) -> float:
    """Time one case; returns theirs/ours of the median epoch times."""
    ours, theirs, step, inputs, targets, batch = case
    print(
        f"[{name}] parameters: ours {real_parameter_count(ours):,}, "
        f"theirs {real_parameter_count(theirs):,}",
        flush=True,
    )
    models = {"ours": ours, "theirs": theirs}
    for label, model in models.items():
        with torch.no_grad():
            out = step(model, inputs[:batch])
        assert out.shape == targets[:batch].shape, (label, out.shape)
        # Untimed warm-up (allocator, basis caches, einsum paths).
        n_warm = min(args.warmup_steps * batch, inputs.shape[0])
        train_epoch(model, step, inputs[:n_warm], targets[:n_warm], batch)
    times: dict[str, list[float]] = {label: [] for label in models}
    for epoch in range(args.epochs):
        for label, model in models.items():
            seconds = train_epoch(model, step, inputs, targets, batch)
            times[label].append(seconds)
            print(f"[{name}] epoch {epoch}: {label:6s} {seconds:7.2f} s", flush=True)
    med = {label: statistics.median(t) for label, t in times.items()}
    ratio = med["theirs"] / med["ours"]
    print(
        f"[{name}] median epoch time: ours {med['ours']:.2f} s, theirs {med['theirs']:.2f} s, "
        f"theirs/ours = {ratio:.2f} (N={inputs.shape[0]}, batch={batch})",
        flush=True,
    )
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["darcy", "ns3d", "both"], default="both")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--projection", type=int, default=128)
    parser.add_argument("--resolution", type=int, default=85, help="Darcy grid size s")
    parser.add_argument("--modes-2d", type=int, default=12)
    parser.add_argument("--width-2d", type=int, default=32)
    parser.add_argument("--padding", type=int, default=8, help="Darcy zero padding (even)")
    parser.add_argument("--batch-2d", type=int, default=20)
    parser.add_argument("--n-train-2d", type=int, default=200)
    parser.add_argument("--grid-3d", type=int, default=64)
    parser.add_argument("--frames-out", type=int, default=10)
    parser.add_argument("--modes-3d", type=int, default=8)
    parser.add_argument("--width-3d", type=int, default=20)
    parser.add_argument("--time-padding", type=int, default=6, help="(even)")
    parser.add_argument("--batch-3d", type=int, default=10)
    parser.add_argument("--n-train-3d", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=2, help="timed epochs per model")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warmup-steps", type=int, default=2, help="untimed steps per model")
    args = parser.parse_args(argv)
    if args.padding % 2 or args.time_padding % 2:
        parser.error("paddings must be even (neuraloperator pads both sides equally)")

    try:
        import neuralop  # noqa: F401
    except ImportError as exc:
        print(f"neuraloperator is not importable ({exc}); nothing to compare. Skipping.")
        return 0

    torch.set_num_threads(args.threads)
    print(f"threads={args.threads}")
    cases = {"darcy": darcy_case, "ns3d": ns3d_case}
    ratios = {}
    for name, build in cases.items():
        if args.case in (name, "both"):
            torch.manual_seed(args.seed)
            ratios[name] = compare(
                name, build(args, torch.Generator().manual_seed(args.seed)), args
            )
    print("summary: " + ", ".join(f"{k} theirs/ours = {v:.2f}" for k, v in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
