"""neuraloperator's network as ``benchmarks/fno_peer_accuracy.py`` builds it, and that
benchmark's ablation variants: what one run changes in our FNO or neuraloperator's
(initialisation, bias, activation, loss averaging), named on the command line
(``--ablation``). The network and the parameter count both sides are compared by are
:mod:`_neuralop`'s (beside this file).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from _neuralop import ChannelAxis, neuralop_fno
from torch import nn
from torch.nn import functional as F

from pderepro.models.layers import SpectralConv1d
from pderepro.models.spectral_nd import _SpectralConvNd


def build_theirs(hparams: dict[str, Any], shape: tuple[int, ...]) -> nn.Module:
    """neuralop's FNO with our architecture on the grid ``shape``, ``(batch, *grid)`` in and
    out; our one-sided ``padding`` is half of it on each side there: the same padded grid."""
    padding = hparams.get("padding", 0)
    inner = neuralop_fno(
        (hparams["modes"],) * len(shape),
        1,
        hparams["width"],
        hparams["layers"],
        hparams["projection"],
        padding / 2 / shape[-1] if padding else None,
    )
    return ChannelAxis(inner)


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


Ablation = Callable[[Variant, dict[str, Any]], None]


def _network_edit(side: str, edit: Callable[[nn.Module], None], key: str) -> Ablation:
    """The ablation that applies ``edit`` to the fresh network of ``side`` (``"ours"`` or
    ``"theirs"``), ``key`` naming it among that side's keys."""

    def ablate(v: Variant, training: dict[str, Any]) -> None:
        getattr(v, side).append(edit)
        getattr(v, f"{side}_keys").append(key)

    return ablate


def _mean_loss(v: Variant, training: dict[str, Any]) -> None:
    v.mean_loss = True
    # Our loop sums over the batch. Under Adam, loss / B with weight decay w steps exactly
    # as loss with weight decay B * w (up to Adam's eps): that is how our side averages.
    v.ours_training["weight_decay"] = training["weight_decay"] * training["batch_size"]


ABLATIONS: dict[str, tuple[str, Ablation]] = {
    "none": ("baseline: same loop settings on both sides", lambda v, t: None),
    "ours-paper-init": (
        "ours: spectral weights U[0,1)/(in*out) as the authors' code (our default before)",
        _network_edit("ours", ours_paper_code_spectral, "unif"),
    ),
    "theirs-init": (
        "theirs: spectral weights U[0,1)/(in*out) as the authors' code",
        _network_edit("theirs", theirs_uniform_spectral, "unif"),
    ),
    "ours-bias": (
        "ours: Fourier-layer bias N(0, 2/(in+out)) as neuralop's spectral bias",
        _network_edit("ours", ours_bias_like_theirs, "bias"),
    ),
    "ours-double-gelu": (
        "ours: GELU twice between Fourier layers, as neuralop's block without channel MLP",
        _network_edit("ours", ours_double_gelu, "gelu2"),
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
