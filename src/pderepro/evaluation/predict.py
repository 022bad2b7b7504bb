"""Rebuild trained models from checkpoints and run them on test data."""

from __future__ import annotations

from pathlib import Path

import torch

from pderepro.models.registry import build_model
from pderepro.training.checkpoint import CheckpointError, load_checkpoint
from pderepro.training.loop import NormalisedModel


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
    payload = load_checkpoint(path)
    meta = payload["metadata"]
    for key, value in (expect or {}).items():
        if meta.get(key) != value:
            raise CheckpointError(
                f"{path}: checkpoint has {key}={meta.get(key)!r}, expected {value!r}"
            )
    net = build_model(
        meta["architecture"],
        meta["hparams"],
        resolution=meta["resolution"],
        n_train=meta["n_train"],
        input_shape=meta.get("input_shape"),
        target_shape=meta.get("target_shape"),
    )
    # placeholder statistics: the real ones are buffers in the state dict loaded next
    placeholder = dict.fromkeys(("input_mean", "input_std", "target_mean", "target_std"), 1.0)
    model = NormalisedModel(net, placeholder)
    model.load_state_dict(payload["model"])
    return model.eval(), meta


@torch.no_grad()
def predict(
    model: torch.nn.Module, inputs: torch.Tensor, *args: object, batch_size: int = 100
) -> torch.Tensor:
    """Apply ``model`` to ``inputs (N, *grid)`` in batches (``args`` passed on to each call);
    returns ``(N, *grid_out)``."""
    return torch.cat(
        [model(inputs[i : i + batch_size], *args) for i in range(0, len(inputs), batch_size)]
    )
