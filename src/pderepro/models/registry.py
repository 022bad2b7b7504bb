"""Name -> architecture registry, so configs and checkpoints refer to models by name."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from typing import Any

from torch import nn

from pderepro.models.fno import FNO1d
from pderepro.models.mlp import FCN, PCANN

logger = logging.getLogger(__name__)

__all__ = [
    "ARCHITECTURES",
    "build_model",
    "count_parameters",
    "effective_hparams",
    "needs_data_fit",
]

ARCHITECTURES: dict[str, type[nn.Module]] = {
    "fno1d": FNO1d,
    "fcn": FCN,
    "pcann": PCANN,
}

# Supplied by the caller from the data, never through hparams.
_CONTEXT_ARGS = ("resolution", "n_train")


def build_model(
    architecture: str, hparams: Mapping[str, Any], *, resolution: int, n_train: int
) -> nn.Module:
    """Instantiate a registered architecture.

    Parameters
    ----------
    architecture : str
        One of :data:`ARCHITECTURES`.
    hparams : mapping
        Constructor arguments other than ``resolution`` and ``n_train``; omitted
        ones take the constructor defaults.
    resolution : int
        Grid size ``n`` of the data; passed to architectures that take it.
    n_train : int
        Number of training samples; passed to architectures that take it.

    Returns
    -------
    nn.Module
        Maps ``(batch, n)`` to ``(batch, n)``, float32.

    Raises
    ------
    ValueError
        Unknown architecture, or ``resolution``/``n_train`` given in ``hparams``.
    TypeError
        ``hparams`` names an argument the architecture does not take.
    """
    try:
        cls = ARCHITECTURES[architecture]
    except KeyError:
        known = ", ".join(sorted(ARCHITECTURES))
        raise ValueError(f"unknown architecture {architecture!r}; known: {known}") from None
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    hparams = dict(hparams)
    clash = sorted(set(hparams) & set(_CONTEXT_ARGS))
    if clash:
        raise ValueError(f"{clash} must be passed as keywords to build_model, not in hparams")
    unknown = sorted(set(hparams) - accepted)
    if unknown:
        allowed = sorted(accepted - set(_CONTEXT_ARGS))
        raise TypeError(f"{architecture}: unknown hparam(s) {unknown}; allowed: {allowed}")
    context = {"resolution": resolution, "n_train": n_train}
    kwargs = {name: value for name, value in context.items() if name in accepted}
    model = cls(**hparams, **kwargs)
    logger.debug("built %s %s with %d parameters", architecture, hparams, count_parameters(model))
    return model


def count_parameters(model: nn.Module) -> int:
    """Number of trainable scalar parameters (complex weights count as two)."""
    return sum(
        p.numel() * (2 if p.is_complex() else 1) for p in model.parameters() if p.requires_grad
    )


def needs_data_fit(model: nn.Module) -> bool:
    """True when the model must see the training data (``fit_to_data``) before training."""
    return callable(getattr(model, "fit_to_data", None))


def effective_hparams(model: nn.Module) -> dict[str, Any]:
    """Constructor arguments actually used (after clipping), JSON-serialisable.

    ``build_model(architecture, effective_hparams(model), resolution=..., n_train=...)``
    rebuilds a model of identical structure; load its ``state_dict`` to get
    identical behaviour.
    """
    hparams = getattr(model, "hparams", None)
    if not callable(hparams):
        raise TypeError(f"{type(model).__name__} does not report its hparams")
    return dict(hparams())
