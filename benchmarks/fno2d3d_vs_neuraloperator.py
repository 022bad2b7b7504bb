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
import sys
from pathlib import Path

import torch
from torch import nn

from pderepro.models.fno2d import FNO2d, FNO3d

sys.path.insert(0, str(Path(__file__).parent))
import _neuralop as peer  # noqa: E402  (beside this script: neuraloperator's side)


class Darcy(peer.Adapter):
    """Drops the channel axis of neuralop's output: ``(batch, 1, s, s) -> (batch, s, s)``."""

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return self.inner(a)[:, 0]  # (batch, s, s)


class RepeatInTime(peer.Adapter):
    """Feeds neuralop's 3-D FNO the input frames repeated along the output-time axis."""

    def forward(self, frames: torch.Tensor, n_time_out: int) -> torch.Tensor:
        batch, c, ny, nx = frames.shape
        v = frames[:, :, None].expand(batch, c, n_time_out, ny, nx)  # (batch, c, t, ny, nx)
        return self.inner(v)[:, 0]  # (batch, t, ny, nx)


def theirs_fno(
    modes: tuple[int, ...], in_channels: int, width: int, args: argparse.Namespace, padding
) -> nn.Module:
    """neuralop's FNO of our architecture (:func:`_neuralop.neuralop_fno`), ``padding`` its
    ``domain_padding``."""
    model = peer.neuralop_fno(modes, in_channels, width, args.layers, args.projection, padding)
    n_modes = peer.neuralop_n_modes(modes)
    kept = model.fno_blocks.convs[0].n_modes
    print(f"neuralop: n_modes={n_modes} keeps {list(kept)} (ours: +-{modes[:-1]}, {modes[-1]})")
    return model


def darcy_case(args: argparse.Namespace, g: torch.Generator):
    s, m, w = args.resolution, args.modes_2d, args.width_2d
    ours = FNO2d(1, m, w, args.layers, args.projection, periodic=False, padding=args.padding)
    # Symmetric padding of round(fraction * s) on each side: the same padded grid.
    theirs = Darcy(theirs_fno((m, m), 1, w, args, args.padding / 2 / s))
    inputs = torch.randn(args.n_train_2d, 1, s, s, generator=g)  # (N, 1, s, s)
    targets = torch.randn(args.n_train_2d, s, s, generator=g)  # (N, s, s)

    def step(model: nn.Module, a: torch.Tensor) -> torch.Tensor:
        return model(a)  # (batch, s, s)

    return ours, theirs, step, inputs, targets, args.batch_2d


def ns3d_case(args: argparse.Namespace, g: torch.Generator):
    n, m, w, t = args.grid_3d, args.modes_3d, args.width_3d, args.frames_out
    ours = FNO3d(10, m, m, w, args.layers, args.projection, time_padding=args.time_padding)
    pad = [args.time_padding / 2 / t, 0.0, 0.0]
    theirs = RepeatInTime(theirs_fno((m, m, m), 10, w, args, pad))
    inputs = torch.randn(args.n_train_3d, 10, n, n, generator=g)  # (N, 10, n, n)
    targets = torch.randn(args.n_train_3d, t, n, n, generator=g)  # (N, t, n, n)

    def step(model: nn.Module, frames: torch.Tensor) -> torch.Tensor:
        return model(frames, t)  # (batch, t, n, n)

    return ours, theirs, step, inputs, targets, args.batch_3d


def compare(name: str, case, args: argparse.Namespace) -> float:
    """Time one case; returns theirs/ours of the median epoch times."""
    ours, theirs, step, inputs, targets, batch = case
    print(
        f"[{name}] parameters: ours {peer.real_parameter_count(ours):,}, "
        f"theirs {peer.real_parameter_count(theirs):,}",
        flush=True,
    )
    models = {"ours": ours, "theirs": theirs}
    med = peer.median_epoch_times(models, step, inputs, targets, batch, args, prefix=f"[{name}] ")
    ratio = med["theirs"] / med["ours"]
    print(
        f"[{name}] median epoch time: ours {med['ours']:.2f} s, theirs {med['theirs']:.2f} s, "
        f"theirs/ours = {ratio:.2f} (N={inputs.shape[0]}, batch={batch})",
        flush=True,
    )
    return ratio


#: Per case (the options' suffix): Fourier modes, width, batch size and training samples.
CASE_SIZES = {
    "2d": {"modes": 12, "width": 32, "batch": 20, "n-train": 200},
    "3d": {"modes": 8, "width": 20, "batch": 10, "n-train": 40},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["darcy", "ns3d", "both"], default="both")
    parser.add_argument("--resolution", type=int, default=85, help="Darcy grid size s")
    parser.add_argument("--padding", type=int, default=8, help="Darcy zero padding (even)")
    parser.add_argument("--grid-3d", type=int, default=64)
    parser.add_argument("--frames-out", type=int, default=10)
    parser.add_argument("--time-padding", type=int, default=6, help="(even)")
    for suffix, sizes in CASE_SIZES.items():
        for size, default in sizes.items():
            parser.add_argument(f"--{size}-{suffix}", type=int, default=default)
    peer.add_common_arguments(parser, warmup_steps=2)
    args = parser.parse_args(argv)
    if args.padding % 2 or args.time_padding % 2:
        parser.error("paddings must be even (neuraloperator pads both sides equally)")

    if peer.neuralop_missing():
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
