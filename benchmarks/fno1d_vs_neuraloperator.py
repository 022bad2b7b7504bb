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
import statistics
import sys
import time

import torch
from torch import nn

from pderepro.models import build_model


def real_parameter_count(model: nn.Module) -> int:
    """Trainable parameters, complex entries counted as two reals."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in model.parameters())


class ChannelFirst(nn.Module):
    """Adapts a ``(batch, 1, n) -> (batch, 1, n)`` model to ``(batch, n) -> (batch, n)``."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return self.inner(u[:, None, :])[:, 0, :]  # (batch, n)


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ||pred - target|| / ||target||, inputs (batch, n)."""
    return ((pred - target).norm(dim=1) / target.norm(dim=1)).mean()


def train_epoch(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, batch: int) -> float:
    """One Adam epoch over (inputs, targets), shapes (N, n); returns seconds."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    order = torch.randperm(inputs.shape[0], generator=g)
    start = time.perf_counter()
    for i in range(0, inputs.shape[0], batch):
        idx = order[i : i + batch]
        opt.zero_grad(set_to_none=True)
        loss = relative_l2(model(inputs[idx]), targets[idx])
        loss.backward()
        opt.step()
    return time.perf_counter() - start


def build_theirs(args: argparse.Namespace) -> nn.Module:
    from neuralop.models import FNO

    inner = FNO(
        n_modes=(2 * (args.modes - 1),),  # keeps n_modes // 2 + 1 == args.modes rfft modes
        in_channels=1,
        out_channels=1,
        hidden_channels=args.width,
        n_layers=args.layers,
        lifting_channel_ratio=0,  # 0 -> a single linear lifting layer, as in the paper
        projection_channel_ratio=args.projection / args.width,
        positional_embedding="grid",
        use_channel_mlp=False,
        fno_skip="linear",
    )
    kept = inner.fno_blocks.convs[0].n_modes
    print(f"neuralop: n_modes={2 * (args.modes - 1)} keeps rfft modes {list(kept)}")
    return ChannelFirst(inner)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=1024)
    parser.add_argument("--n-train", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--modes", type=int, default=16)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--projection", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=2, help="timed epochs per model")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warmup-steps", type=int, default=10, help="untimed steps per model")
    args = parser.parse_args(argv)

    try:
        import neuralop  # noqa: F401
    except ImportError as exc:
        print(f"neuraloperator is not importable ({exc}); nothing to compare. Skipping.")
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
        f"parameters: ours {real_parameter_count(ours):,}, theirs {real_parameter_count(theirs):,}"
    )

    g = torch.Generator().manual_seed(args.seed)
    inputs = torch.randn(args.n_train, args.resolution, generator=g)  # (N, n)
    targets = torch.randn(args.n_train, args.resolution, generator=g)  # (N, n)
    models = {"ours": ours, "theirs": theirs}
    for name, model in models.items():
        with torch.no_grad():
            out = model(inputs[: args.batch])
        assert out.shape == (args.batch, args.resolution), (name, out.shape)
        # Untimed warm-up (allocator, basis caches, einsum paths): the first steps are
        # several times slower than steady state and would dominate a 2-epoch median.
        n_warm = min(args.warmup_steps * args.batch, args.n_train)
        train_epoch(model, inputs[:n_warm], targets[:n_warm], args.batch)

    times: dict[str, list[float]] = {name: [] for name in models}
    for epoch in range(args.epochs):
        for name, model in models.items():
            seconds = train_epoch(model, inputs, targets, args.batch)
            times[name].append(seconds)
            print(f"epoch {epoch}: {name:6s} {seconds:7.2f} s", flush=True)
    med = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"median epoch time: ours {med['ours']:.2f} s, theirs {med['theirs']:.2f} s, "
        f"theirs/ours = {med['theirs'] / med['ours']:.2f} "
        f"(n={args.resolution}, N={args.n_train}, batch={args.batch}, threads={args.threads})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
