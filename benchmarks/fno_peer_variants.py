"""neuraloperator's network as ``benchmarks/fno_peer_accuracy.py`` builds it, and that
benchmark's ablation variants: what one run changes in our FNO or neuraloperator's
(initialisation, bias, activation, loss averaging), named on the command line
(``--ablation``), and the parameter counts both sides are compared by.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from pderepro.models.layers import SpectralConv1d
from pderepro.models.spectral_nd import _SpectralConvNd


class ChannelAxis(nn.Module):
    """Adapts neuralop's ``(batch, 1, *grid) -> (batch, 1, *grid)`` to ``(batch, *grid)``."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return self.inner(u[:, None])[:, 0]  # (batch, *grid)


def build_theirs(hparams: dict[str, Any], shape: tuple[int, ...]) -> nn.Module:
    """neuralop's FNO with our architecture: its ``n_modes`` counts both signs on the
    leading axes and the full spectrum on the last (of which it keeps ``n // 2 + 1``)."""
    from neuralop.models import FNO

    m = hparams["modes"]
    n_modes = (2 * m,) * (len(shape) - 1) + (2 * (m - 1),)
    padding = hparams.get("padding", 0)
    inner = FNO(
        n_modes=n_modes,
        in_channels=1,
        out_channels=1,
        hidden_channels=hparams["width"],
        n_layers=hparams["layers"],
        lifting_channel_ratio=0,  # 0 -> a single linear lifting layer, as in the paper
        projection_channel_ratio=hparams["projection"] / hparams["width"],
        positional_embedding="grid",
        use_channel_mlp=False,
        fno_skip="linear",
        # half our one-sided padding on each side: the same padded grid
        domain_padding=padding / 2 / shape[-1] if padding else None,
    )
    return ChannelAxis(inner)


def real_parameter_count(model: nn.Module) -> int:
    """Trainable parameters, complex entries counted as two reals."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in model.parameters())


def glorot_std(in_channels: int, out_channels: int) -> float:
    """neuralop's spectral bias scale (and that of its and our spectral weights),
    ``sqrt(2 / (in + out))``."""
    return math.sqrt(2.0 / (in_channels + out_channels))


# --------------------------------------------------------------------------- ablations


@dataclass
class Variant:
    """What one run changes. ``ours`` and ``theirs`` edit a freshly built network (under
    the run's seed); ``mean_loss`` averages the loss over the batch instead of summing;
    ``pointwise`` normalises each grid point by its own train mean and std."""

    names: tuple[str, ...] = ()
    ours: list[Callable[[nn.Module], None]] = field(default_factory=list)
    theirs: list[Callable[[nn.Module], None]] = field(default_factory=list)
    ours_keys: list[str] = field(default_factory=list)
    theirs_keys: list[str] = field(default_factory=list)
    mean_loss: bool = False
    pointwise: bool = False
    ours_training: dict[str, Any] = field(default_factory=dict)
    theirs_training: dict[str, Any] = field(default_factory=dict)


def _ours_spectral(net: nn.Module) -> list[nn.Module]:
    return [m for m in net.modules() if isinstance(m, SpectralConv1d | _SpectralConvNd)]


def _theirs_spectral(net: nn.Module) -> list[nn.Module]:
    return list(net.inner.fno_blocks.convs)


@torch.no_grad()
def ours_paper_code_spectral(net: nn.Module) -> None:
    """Our spectral weights drawn as the FNO authors' code does (and as we did before
    issue 18): real and imaginary parts ``U[0, 1) / (in * out)``."""
    for conv in _ours_spectral(net):
        conv.weight.uniform_(0.0, 1.0 / (conv.in_channels * conv.out_channels))


@torch.no_grad()
def theirs_uniform_spectral(net: nn.Module) -> None:
    """neuralop's spectral weights drawn as the authors' code does: real and imaginary
    parts ``U[0, 1) / (in * out)``."""
    for conv in _theirs_spectral(net):
        w = conv.weight.tensor  # (in, out, *modes), complex
        scale = 1.0 / (conv.in_channels * conv.out_channels)
        w.copy_(torch.complex(torch.rand_like(w.real), torch.rand_like(w.real)) * scale)


@torch.no_grad()
def ours_bias_like_theirs(net: nn.Module) -> None:
    """Our Fourier-layer biases (on the pointwise map; neuralop keeps them on the spectral
    layer, the same function) drawn as neuralop's: ``N(0, 2 / (in + out))``."""
    for module in net.modules():
        for spectral, pointwise in zip(
            getattr(module, "spectral", []), getattr(module, "pointwise", []), strict=True
        ):
            std = glorot_std(spectral.in_channels, spectral.out_channels)
            pointwise.bias.normal_(0.0, std)


def ours_double_gelu(net: nn.Module) -> None:
    """GELU applied twice between Fourier layers, as neuralop's FNO block does when it has
    no channel MLP (its block applies the activation before and after that MLP)."""
    owner = next(m for m in net.modules() if hasattr(m, "spectral") and hasattr(m, "pointwise"))
    for i in range(1, len(owner.spectral)):
        # The input of layer i is GELU(v_{i-1}); one more GELU gives GELU(GELU(v_{i-1})).
        for module in (owner.spectral[i], owner.pointwise[i]):
            module.register_forward_pre_hook(lambda _m, args: (F.gelu(args[0]), *args[1:]))


def _mean_loss(v: Variant, training: dict[str, Any]) -> None:
    v.mean_loss = True
    # Our loop sums over the batch. Under Adam, loss / B with weight decay w steps exactly
    # as loss with weight decay B * w (up to Adam's eps): that is how our side averages.
    v.ours_training["weight_decay"] = training["weight_decay"] * training["batch_size"]


ABLATIONS: dict[str, tuple[str, Callable[[Variant, dict[str, Any]], None]]] = {
    "none": ("baseline: same loop settings on both sides", lambda v, t: None),
    "ours-paper-init": (
        "ours: spectral weights U[0,1)/(in*out) as the authors' code (our default before)",
        lambda v, t: (v.ours.append(ours_paper_code_spectral), v.ours_keys.append("unif")),
    ),
    "theirs-init": (
        "theirs: spectral weights U[0,1)/(in*out) as the authors' code",
        lambda v, t: (v.theirs.append(theirs_uniform_spectral), v.theirs_keys.append("unif")),
    ),
    "ours-bias": (
        "ours: Fourier-layer bias N(0, 2/(in+out)) as neuralop's spectral bias",
        lambda v, t: (v.ours.append(ours_bias_like_theirs), v.ours_keys.append("bias")),
    ),
    "ours-double-gelu": (
        "ours: GELU twice between Fourier layers, as neuralop's block without channel MLP",
        lambda v, t: (v.ours.append(ours_double_gelu), v.ours_keys.append("gelu2")),
    ),
    "mean-loss": (
        "both: loss averaged over the batch (ours: weight decay x batch, the same steps)",
        _mean_loss,
    ),
    "pointwise-norm": (
        "both: inputs and targets normalised per grid point, not by scalars",
        lambda v, t: setattr(v, "pointwise", True),
    ),
    "no-weight-decay": (
        "both: weight decay 0",
        lambda v, t: (
            v.ours_training.update(weight_decay=0.0),
            v.theirs_training.update(weight_decay=0.0),
        ),
    ),
}


def make_variant(spec: str, training: dict[str, Any]) -> Variant:
    names = tuple(spec.split("+"))
    variant = Variant(names=names)
    for name in names:
        if name not in ABLATIONS:
            raise SystemExit(f"unknown ablation {name!r}; known: {', '.join(ABLATIONS)}")
        ABLATIONS[name][1](variant, training)
    return variant


# --------------------------------------------------------------------------- training
