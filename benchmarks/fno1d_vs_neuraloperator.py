"""Training-epoch time of pderepro's FNO1d against ``neuralop.models.FNO`` (run by hand).

Both models are configured to match the FNO paper's Burgers architecture: linear
lifting of (u0, x), ``layers`` Fourier layers with a linear 1x1 skip, projection MLP
``width -> projection -> 1``, GELU, same retained modes.  neuraloperator's ``n_modes``
counts modes of the full spectrum and keeps ``n_modes // 2 + 1`` rfft modes, so it is
chosen as ``2 * (modes - 1)``.  Parameter counts are printed (complex counted as two
reals); the remaining difference is neuraloperator's spectral-layer bias.

Timings are interleaved (ours, theirs, ours, ...) since the machine drifts, and the
median epoch times and their ratio are reported.

Example::

    python benchmarks/fno1d_vs_neuraloperator.py --resolution 1024 --epochs 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from pderepro.models import build_model

sys.path.insert(0, str(Path(__file__).parent))
import _neuralop as peer  # noqa: E402  (beside this script: neuraloperator's side)


def build_theirs(args: argparse.Namespace) -> peer.ChannelAxis:
    """neuralop's FNO of the same architecture, ``(batch, n) -> (batch, n)``."""
    inner = peer.neuralop_fno((args.modes,), 1, args.width, args.layers, args.projection)
    kept = inner.fno_blocks.convs[0].n_modes
    (n_modes,) = peer.neuralop_n_modes((args.modes,))  # keeps n_modes // 2 + 1 == args.modes
    print(f"neuralop: n_modes={n_modes} keeps rfft modes {list(kept)}")
    return peer.ChannelAxis(inner)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=1024)
    parser.add_argument("--n-train", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--modes", type=int, default=16)
    parser.add_argument("--width", type=int, default=64)
    peer.add_common_arguments(parser, warmup_steps=10)
    args = parser.parse_args(argv)

    if peer.neuralop_missing():
        return 0

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    hparams = {
        "modes": args.modes,
        "width": args.width,
        "layers": args.layers,
        "projection": args.projection,
    }
    ours = build_model("fno1d", hparams, resolution=args.resolution, n_train=args.n_train)
    theirs = build_theirs(args)
    print(
        f"parameters: ours {peer.real_parameter_count(ours):,}, "
        f"theirs {peer.real_parameter_count(theirs):,}"
    )

    g = torch.Generator().manual_seed(args.seed)
    inputs = torch.randn(args.n_train, args.resolution, generator=g)  # (N, n)
    targets = torch.randn(args.n_train, args.resolution, generator=g)  # (N, n)
    models = {"ours": ours, "theirs": theirs}
    med = peer.median_epoch_times(
        models, lambda model, u: model(u), inputs, targets, args.batch, args
    )
    print(
        f"median epoch time: ours {med['ours']:.2f} s, theirs {med['theirs']:.2f} s, "
        f"theirs/ours = {med['theirs'] / med['ours']:.2f} "
        f"(n={args.resolution}, N={args.n_train}, batch={args.batch}, threads={args.threads})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
