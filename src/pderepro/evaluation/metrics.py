"""Error metrics, defined once for training, evaluation and tests."""

from __future__ import annotations

import numpy as np
import torch


def relative_l2(pred: torch.Tensor, true: torch.Tensor) -> torch.Tensor:
    """Per-sample relative L2 error ``||pred - true||_2 / ||true||_2`` (the FNO paper's metric).

    Parameters
    ----------
    pred, true : torch.Tensor
        ``(batch, *grid)``.

    Returns
    -------
    torch.Tensor
        ``(batch,)``.
    """
    diff = (pred - true).flatten(1).norm(dim=1)  # (batch,)
    return diff / true.flatten(1).norm(dim=1)


def relative_l2_numpy(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """:func:`relative_l2` for numpy arrays ``(batch, *grid)``, computed in float64."""
    pred = np.asarray(pred, dtype=np.float64).reshape(len(pred), -1)
    true = np.asarray(true, dtype=np.float64).reshape(len(true), -1)
    return np.linalg.norm(pred - true, axis=1) / np.linalg.norm(true, axis=1)
