"""Per-sample training losses ``(batch, *grid) -> (batch,)``."""

from __future__ import annotations

import torch

__all__ = ["LOSSES", "mean_squared_error", "relative_l2"]


def relative_l2(pred: torch.Tensor, true: torch.Tensor) -> torch.Tensor:
    """Per-sample relative L2 error ``||pred - true||_2 / ||true||_2`` (the FNO paper's metric).

    It is both the paper's training loss and its test metric; evaluation uses it through
    :func:`pderepro.evaluation.metrics.relative_l2_numpy`.

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


def mean_squared_error(pred: torch.Tensor, true: torch.Tensor) -> torch.Tensor:
    """Per-sample mean squared error (for closures, whose targets pass through zero).

    Parameters
    ----------
    pred, true : torch.Tensor
        ``(batch, *grid)``.

    Returns
    -------
    torch.Tensor
        ``(batch,)``.
    """
    return (pred - true).square().flatten(1).mean(dim=1)


#: Losses by the name ``training.loss`` gives in the config.
LOSSES = {"relative_l2": relative_l2, "mse": mean_squared_error}
