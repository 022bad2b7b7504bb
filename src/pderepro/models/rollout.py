"""Autoregressive rollout shared by the one-step models of the Navier-Stokes study."""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["RolloutMixin"]


class RolloutMixin:
    """Autoregressive rollout for one-step models ``(batch, c, n_y, n_x) -> (batch, n_y, n_x)``
    whose ``c`` input channels are the ``c`` most recent frames, oldest first."""

    def rollout(self, frames: Tensor, n_steps: int) -> Tensor:
        """Predict ``n_steps`` frames; each step appends its prediction to the input window
        and drops the oldest frame.

        Parameters
        ----------
        frames : Tensor, shape (batch, c, n_y, n_x)
            Initial window of frames, oldest first.
        n_steps : int
            Number of frames to predict (>= 0).

        Returns
        -------
        Tensor, shape (batch, n_steps, n_y, n_x)
            Differentiable: gradients flow through the whole trajectory.
        """
        if n_steps < 0:
            raise ValueError(f"n_steps must be >= 0, got {n_steps}")
        window = frames  # (batch, c, n_y, n_x)
        predictions = []
        for _ in range(n_steps):
            step = self(window)  # (batch, n_y, n_x)
            predictions.append(step)
            window = torch.cat([window[:, 1:], step[:, None]], dim=1)  # (batch, c, n_y, n_x)
        if not predictions:
            return frames.new_zeros(frames.shape[0], 0, *frames.shape[2:])
        return torch.stack(predictions, dim=1)  # (batch, n_steps, n_y, n_x)
