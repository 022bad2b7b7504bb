"""Name -> architecture registry, so configs and checkpoints refer to models by name."""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from pderepro.models.cape import FNO1dCAPE, UNet1dCAPE
from pderepro.models.cnn import ResNet2d, UNet2d
from pderepro.models.fno import FNO1d
from pderepro.models.fno2d import FNO2d, FNO3d
from pderepro.models.mlp import FCN, PCANN
from pderepro.models.rollout import Recurrent, RolloutMixin, SpaceTime
from pderepro.models.step1d import FNO1dStep, StepModel, UNet1dStep

logger = logging.getLogger(__name__)

__all__ = [
    "ARCHITECTURES",
    "ParameterMatch",
    "build_model",
    "count_parameters",
    "effective_hparams",
    "match_cape_baseline",
    "match_parameter_count",
]

ARCHITECTURES: dict[str, type[nn.Module]] = {
    "fno1d": FNO1d,
    "fcn": FCN,
    "pcann": PCANN,
    "fno2d": FNO2d,
    "fno3d": FNO3d,
    "unet2d": UNet2d,
    "resnet2d": ResNet2d,
    "fno1d_step": FNO1dStep,
    "unet1d_step": UNet1dStep,
    "fno1d_cape": FNO1dCAPE,
    "unet1d_cape": UNet1dCAPE,
}

# Supplied from the data's shapes, never through hparams.
_CONTEXT_ARGS = ("n_points", "n_train", "in_channels", "context")


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
        ``n_train``, ``in_channels``, ``context``); omitted ones take the constructor
        defaults.
    resolution : int
        Grid points per side of the data.
    n_train : int
        Number of training samples; passed to architectures that take it.
    input_shape, target_shape : sequence of int, optional
        Shape of one input and one target sample: ``(n,)`` in 1-D (the default,
        ``(resolution,)``), ``(n_y, n_x)`` for a 2-D field, ``(frames, n_y, n_x)`` for
        a sequence of frames. ``n_points`` (whole-grid models) is the size of one input,
        ``in_channels`` the number of input frames. For the 1-D one-step models
        (:class:`~pderepro.models.step1d.StepModel`) the input is ``(context, n)`` (or
        ``(n,)`` for one frame) and the target ``(n,)`` or ``(steps, n)``.

    Returns
    -------
    nn.Module
        Maps ``(batch, *input_shape)`` to ``(batch, *target_shape)``, float32. When the
        target is a sequence of frames, one-step models are wrapped in :class:`Recurrent`
        and :class:`FNO3d` in :class:`SpaceTime`. Exception: a 1-D one-step model maps
        ``(frames, params)`` to a :class:`~pderepro.models.step1d.StepOutput` (one
        frame) whatever the target; the caller rolls it out with
        :func:`~pderepro.models.step1d.rollout`, since training and evaluation feed it
        differently (teacher forcing, noise).

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
    if issubclass(cls, StepModel):
        _check_step_shapes(architecture, input_shape, target_shape)
        context["context"] = input_shape[0] if len(input_shape) == 2 else 1
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


def _check_step_shapes(
    architecture: str, input_shape: tuple[int, ...], target_shape: tuple[int, ...]
) -> None:
    """1-D one-step models take ``(n,)`` or ``(context, n)`` and predict frames of ``n``."""
    if len(input_shape) not in (1, 2) or len(target_shape) not in (1, 2):
        raise ValueError(
            f"{architecture} maps (context, n) frames to (n,) or (steps, n), "
            f"not {input_shape} to {target_shape}"
        )
    if input_shape[-1] != target_shape[-1]:
        raise ValueError(f"{architecture} keeps the grid: {input_shape} -> {target_shape}")


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


@dataclass(frozen=True)
class ParameterMatch:
    """The size of an architecture whose parameter count is closest to a target.

    Attributes
    ----------
    architecture : str
        Registry name of the matched model.
    hparams : dict
        Its full hparams, the matched size included.
    size_name : str
        The hparam that was searched (e.g. ``width``).
    count : int
        Its parameter count.
    target : int
        The count it was matched to.
    """

    architecture: str
    hparams: dict[str, Any]
    size_name: str
    count: int
    target: int

    @property
    def relative_difference(self) -> float:
        """``(count - target) / target``."""
        return (self.count - self.target) / self.target

    def __str__(self) -> str:
        return (
            f"{self.architecture} {self.size_name}={self.hparams[self.size_name]}: "
            f"{self.count:,} parameters vs {self.target:,} ({self.relative_difference:+.1%})"
        )


def match_parameter_count(
    architecture: str,
    hparams: Mapping[str, Any],
    size_name: str,
    target: int,
    *,
    input_shape: Sequence[int],
    sizes: Iterable[int] = range(1, 1025),
) -> ParameterMatch:
    """Find the value of ``hparams[size_name]`` whose model has the parameter count
    closest to ``target`` (ties go to the smaller model).

    Parameters
    ----------
    architecture : str
        One of :data:`ARCHITECTURES`.
    hparams : mapping
        The other hparams, held fixed.
    size_name : str
        The hparam to search (``width`` for the FNOs, ``init_features`` for the U-Net).
    target : int
        Parameter count to match.
    input_shape : sequence of int
        Shape of one input sample (the count can depend on it, e.g. the context frames).
    sizes : iterable of int
        Candidate sizes, increasing; the search stops once counts exceed ``target``
        (counts grow with the size).

    Returns
    -------
    ParameterMatch
    """
    best: ParameterMatch | None = None
    for size in sizes:
        trial = {**hparams, size_name: int(size)}
        # Build on the meta device: the count needs the shapes only, not the memory.
        with torch.device("meta"):
            model = build_model(
                architecture,
                trial,
                resolution=input_shape[-1],
                n_train=1,
                input_shape=input_shape,
            )
        count = count_parameters(model)
        match = ParameterMatch(architecture, trial, size_name, count, int(target))
        if best is None or abs(count - target) < abs(best.count - target):
            best = match
        if count > target:
            break
    if best is None:
        raise ValueError("no candidate sizes")
    return best


def match_cape_baseline(model: FNO1dCAPE | UNet1dCAPE, resolution: int) -> ParameterMatch:
    """The plain baseline (no CAPE, no parameter input) of a CAPE model, with its width
    (FNO) or ``init_features`` (U-Net) chosen to match the CAPE model's parameter count.

    Parameters
    ----------
    model : FNO1dCAPE or UNet1dCAPE
        The CAPE model.
    resolution : int
        Grid size (the counts do not depend on it; the shapes passed to the builder do).

    Returns
    -------
    ParameterMatch
        ``target`` is the CAPE model's count; :func:`str` gives both counts.
    """
    match = match_parameter_count(
        model.baseline_architecture,
        model.baseline_hparams(),
        model.baseline_size,
        count_parameters(model),
        input_shape=(model.context, resolution),
    )
    logger.info("CAPE %s matched by %s", type(model).__name__, match)
    return match
