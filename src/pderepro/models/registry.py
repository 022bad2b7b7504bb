"""Name -> architecture registry, so configs and checkpoints refer to models by name."""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from torch import nn

from pderepro.models.cnn import ResNet2d, UNet2d
from pderepro.models.fno import FNO1d
from pderepro.models.fno2d import FNO2d, FNO3d
from pderepro.models.mlp import FCN, PCANN
from pderepro.models.rollout import Recurrent, RolloutMixin, SpaceTime

logger = logging.getLogger(__name__)

__all__ = [
    "ARCHITECTURES",
    "build_model",
    "count_parameters",
    "effective_hparams",
]

ARCHITECTURES: dict[str, type[nn.Module]] = {
    "fno1d": FNO1d,
    "fcn": FCN,
    "pcann": PCANN,
    "fno2d": FNO2d,
    "fno3d": FNO3d,
    "unet2d": UNet2d,
    "resnet2d": ResNet2d,
}

# Supplied from the data's shapes, never through hparams.
_CONTEXT_ARGS = ("n_points", "n_train", "in_channels")


def build_model(
    architecture: str,
    hparams: Mapping[str, Any],
    *,
    resolution: int,
    n_train: int,
    input_shape: Sequence[int] | None = None,
    target_shape: Sequence[int] | None = None,
) -> nn.Module:
    """Instantiate a registered architecture for data of the given shapes.

    Parameters
    ----------
    architecture : str
        One of :data:`ARCHITECTURES`.
    hparams : mapping
        Constructor arguments other than those taken from the data (``n_points``,
        ``n_train``, ``in_channels``); omitted ones take the constructor defaults.
    resolution : int
        Grid points per side of the data.
    n_train : int
        Number of training samples; passed to architectures that take it.
    input_shape, target_shape : sequence of int, optional
        Shape of one input and one target sample: ``(n,)`` in 1-D (the default,
        ``(resolution,)``), ``(n_y, n_x)`` for a 2-D field, ``(frames, n_y, n_x)`` for
        a sequence of frames. ``n_points`` (whole-grid models) is the size of one input,
        ``in_channels`` the number of input frames.

    Returns
    -------
    nn.Module
        Maps ``(batch, *input_shape)`` to ``(batch, *target_shape)``, float32. When the
        target is a sequence of frames, one-step models are wrapped in :class:`Recurrent`
        and :class:`FNO3d` in :class:`SpaceTime`.

    Raises
    ------
    ValueError
        Unknown architecture, a data-derived argument given in ``hparams``, or a model
        that cannot produce the target's shape.
    TypeError
        ``hparams`` names an argument the architecture does not take.
    """
    try:
        cls = ARCHITECTURES[architecture]
    except KeyError:
        known = ", ".join(sorted(ARCHITECTURES))
        raise ValueError(f"unknown architecture {architecture!r}; known: {known}") from None
    input_shape = tuple(input_shape or (resolution,))
    target_shape = tuple(target_shape or input_shape)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    hparams = dict(hparams)
    clash = sorted(set(hparams) & {*_CONTEXT_ARGS, "resolution"})
    if clash:
        raise ValueError(f"{clash} come from the data's shapes, not from hparams")
    unknown = sorted(set(hparams) - accepted)
    if unknown:
        allowed = sorted(accepted - set(_CONTEXT_ARGS))
        raise TypeError(f"{architecture}: unknown hparam(s) {unknown}; allowed: {allowed}")
    context = {
        "n_points": math.prod(input_shape),
        "n_train": n_train,
        "in_channels": input_shape[0] if len(input_shape) == 3 else 1,
    }
    kwargs = {name: value for name, value in context.items() if name in accepted}
    model = cls(**hparams, **kwargs)
    if len(target_shape) == 3:  # a sequence of frames
        frames_out = target_shape[0]
        if isinstance(model, FNO3d):
            model = SpaceTime(model, frames_out)
        elif isinstance(model, RolloutMixin):
            model = Recurrent(model, frames_out)
        elif input_shape != target_shape:
            raise ValueError(f"{architecture} cannot map {input_shape} to {target_shape}")
    logger.debug("built %s %s with %d parameters", architecture, hparams, count_parameters(model))
    return model


def count_parameters(model: nn.Module) -> int:
    """Number of trainable scalar parameters (complex weights count as two)."""
    return sum(
        p.numel() * (2 if p.is_complex() else 1) for p in model.parameters() if p.requires_grad
    )


def effective_hparams(model: nn.Module) -> dict[str, Any]:
    """Constructor arguments actually used (after clipping), JSON-serialisable, without
    those taken from the data's shapes.

    ``build_model(architecture, effective_hparams(model), resolution=..., n_train=...)``
    rebuilds a model of identical structure; load its ``state_dict`` to get
    identical behaviour.
    """
    hparams = getattr(model, "hparams", None)
    if not callable(hparams):
        raise TypeError(f"{type(model).__name__} does not report its hparams")
    return {k: v for k, v in hparams().items() if k not in _CONTEXT_ARGS}
