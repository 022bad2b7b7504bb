"""Rebuild trained models and closures from their checkpoints; run models on test data."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from pderepro.models.closures import NETWORK_KINDS, AR1Noise, Closure, build_network
from pderepro.models.normalised import STAT_NAMES, NormalisedModel
from pderepro.models.registry import build_model
from pderepro.training.checkpoint import CheckpointError, load_checkpoint


def _load_expected(path: str | Path, expect: Mapping[str, Any] | None) -> tuple[dict, dict]:
    """A checkpoint's payload and metadata, refused unless the metadata match ``expect``."""
    payload = load_checkpoint(path)
    meta = payload["metadata"]
    for key, value in (expect or {}).items():
        if meta.get(key) != value:
            raise CheckpointError(
                f"{path}: checkpoint has {key}={meta.get(key)!r}, expected {value!r}"
            )
    return payload, meta


def load_trained_model(
    path: str | Path, *, expect: dict | None = None
) -> tuple[NormalisedModel, dict]:
    """The model stored in a final checkpoint, in eval mode on the CPU, and its metadata.

    Parameters
    ----------
    path : path
        ``checkpoint.pt`` written by training.
    expect : dict, optional
        Metadata entries that must match (e.g. ``{"model": "fno", "resolution": 256}``).

    Raises
    ------
    CheckpointError
        Unreadable file, or metadata not matching ``expect``.
    """
    payload, meta = _load_expected(path, expect)
    net = build_model(
        meta["architecture"],
        meta["hparams"],
        resolution=meta["resolution"],
        n_train=meta["n_train"],
        input_shape=meta.get("input_shape"),
        target_shape=meta.get("target_shape"),
    )
    # placeholder statistics: the real ones are buffers in the state dict loaded next
    model = NormalisedModel(net, dict.fromkeys(STAT_NAMES, 1.0))
    model.load_state_dict(payload["model"])
    return model.eval(), meta


def load_closure(
    path: str | Path, *, expect: Mapping[str, Any] | None = None
) -> tuple[Closure, dict]:
    """The Lorenz-96 closure in a checkpoint of the ``fit_closure`` stage, and its metadata.

    Parameters
    ----------
    path : path
        Checkpoint written by :func:`pderepro.stages.closures.run_fit_closure`.
    expect : mapping, optional
        Metadata entries that must match (e.g. ``{"closure": "mlp"}``).

    Returns
    -------
    (Closure, dict)
        The closure (its network, if any, in eval mode on the CPU) and the checkpoint's
        metadata.

    Raises
    ------
    CheckpointError
        Unreadable file, or metadata not matching ``expect``.
    """
    payload, meta = _load_expected(path, expect)
    noise = meta.get("noise")
    noise = AR1Noise(phi=noise["phi"], sigma=noise["sigma"]) if noise else None
    kind = meta["kind"]
    if kind in NETWORK_KINDS:
        # placeholder statistics: the real ones are buffers in the state dict loaded next
        placeholder = dict.fromkeys(STAT_NAMES, 1.0)
        model = NormalisedModel(build_network(kind, meta["hparams"]), placeholder)
        model.load_state_dict(payload["model"])
        return Closure(kind, network=model, noise=noise), meta
    return Closure(kind, coefficients=meta.get("coefficients"), noise=noise), meta


@torch.no_grad()
def predict(
    model: torch.nn.Module, inputs: torch.Tensor, *args: object, batch_size: int = 100
) -> torch.Tensor:
    """Apply ``model`` to ``inputs (N, *grid)`` in batches (``args`` passed on to each call);
    returns ``(N, *grid_out)``."""
    return torch.cat(
        [model(inputs[i : i + batch_size], *args) for i in range(0, len(inputs), batch_size)]
    )
