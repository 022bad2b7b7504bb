"""Self-describing checkpoints: weights, optimiser state and the metadata to rebuild.

Metadata are stored as a JSON string and everything else as tensors and plain
containers, so checkpoints load with ``torch.load(weights_only=True)``: no pickled code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pderepro.data.io import atomic_write

#: Version tag of the checkpoint layout.
CHECKPOINT_FORMAT = "pderepro-checkpoint-v1"


class CheckpointError(RuntimeError):
    """A checkpoint is unreadable or belongs to another model, config or dataset."""


def save_checkpoint(path: str | Path, *, metadata: dict[str, Any], **states: Any) -> Path:
    """Write a checkpoint atomically.

    Parameters
    ----------
    path : path
        Destination.
    metadata : dict
        JSON-serialisable description (architecture, hyperparameters, data fingerprint...).
    **states
        State dicts and tensors (``model=``, ``optimizer=``, ``scheduler=``, ``rng=``).
    """
    payload = {"format": CHECKPOINT_FORMAT, "metadata_json": json.dumps(metadata, sort_keys=True)}
    payload.update(states)
    return atomic_write(path, lambda tmp: torch.save(payload, tmp))


def load_checkpoint(
    path: str | Path, *, map_location: str | torch.device = "cpu",
    expect: Mapping[str, Any] | None = None,
) -> dict:  # fmt: skip
    """Load a checkpoint safely; ``metadata`` is decoded from JSON.

    ``expect``: metadata entries that must match (e.g. ``{"closure": "cnn"}``).

    Raises
    ------
    CheckpointError
        The file is missing, not a torch file, or not a pderepro checkpoint, or an
        expected metadata entry does not match.
    """
    path = Path(path)
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError as err:
        raise CheckpointError(f"{path}: checkpoint does not exist") from err
    except Exception as err:  # torch raises several types for corrupt files
        raise CheckpointError(f"{path}: not a readable checkpoint ({err})") from err
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path}: not a {CHECKPOINT_FORMAT} checkpoint")
    payload["metadata"] = meta = json.loads(payload.pop("metadata_json"))
    for key, value in (expect or {}).items():
        if meta.get(key) != value:
            raise CheckpointError(f"{path}: {key} is {meta.get(key)!r}, expected {value!r}")
    return payload


def fingerprint(*arrays: np.ndarray | torch.Tensor) -> str:
    """SHA-256 of the arrays' bytes and shapes: identifies the data a model saw."""
    digest = hashlib.sha256()
    for array in arrays:
        data = array.detach().cpu().numpy() if isinstance(array, torch.Tensor) else array
        data = np.ascontiguousarray(data)
        digest.update(str((data.shape, data.dtype.str)).encode())
        digest.update(data.tobytes())
    return digest.hexdigest()
