"""Autoregressive rollout shared by the one-step models of the Navier-Stokes study, and the
wrappers that make every Navier-Stokes model map input frames to all target frames."""

from __future__ import annotations

import torch
from torch import Tensor, nn

__all__ = ["Recurrent", "RolloutMixin", "SpaceTime", "check_frames"]


def check_frames(frames: Tensor, in_channels: int) -> None:
    """Raise ``ValueError`` unless ``frames`` is ``(batch, in_channels, n_y, n_x)``.

    Parameters
    ----------
    frames : Tensor
        The input of a model on 2-D frames.
    in_channels : int
        The number of frames (channels) the model takes.
    """
    if frames.ndim != 4 or frames.shape[1] != in_channels:
        raise ValueError(f"expected (batch, {in_channels}, n_y, n_x), got {tuple(frames.shape)}")


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


class Recurrent(nn.Module):
    """A one-step model used recurrently: ``(batch, c, n_y, n_x) -> (batch, frames_out, n_y, n_x)``.

    The training loss sees the whole rollout, so gradients flow through every step (the FNO
    paper's recurrent FNO-2D, U-Net and ResNet).

    Parameters
    ----------
    step : RolloutMixin and nn.Module
        The one-step model.
    frames_out : int
        Frames predicted by :meth:`forward`.
    """

    def __init__(self, step: nn.Module, frames_out: int) -> None:
        super().__init__()
        if frames_out < 1:
            raise ValueError(f"frames_out must be >= 1, got {frames_out}")
        self.step = step
        self.frames_out = int(frames_out)

    def hparams(self) -> dict:
        """The one-step model's constructor arguments."""
        return self.step.hparams()

    def forward(self, frames: Tensor, frames_out: int | None = None) -> Tensor:
        """Roll out ``frames_out`` frames (default: the number it was built for)."""
        return self.step.rollout(frames, frames_out or self.frames_out)


class SpaceTime(nn.Module):
    """:class:`~pderepro.models.fno2d.FNO3d` with its number of output frames bound,
    ``(batch, c, n_y, n_x) -> (batch, frames_out, n_y, n_x)``; ``forward(frames, k)``
    samples the same output window at ``k`` frames (super-resolution in time).

    The zero padding of the time axis scales with ``k``, so it always spans the same time
    as in training: a fixed number of padding frames would stretch the padded window and
    move every learned temporal mode to another frequency (with 10 frames + 6 padding,
    40 frames + 6 put each mode at 1.39 times its trained frequency).
    """

    def __init__(self, net: nn.Module, frames_out: int) -> None:
        super().__init__()
        self.net = net
        self.frames_out = int(frames_out)

    def hparams(self) -> dict:
        """The space-time network's constructor arguments."""
        return self.net.hparams()

    def padding_for(self, frames_out: int) -> int:
        """Padding frames that span the trained padding's time at ``frames_out`` frames."""
        return round(self.net.time_padding * frames_out / self.frames_out)

    def forward(self, frames: Tensor, frames_out: int | None = None) -> Tensor:
        frames_out = frames_out or self.frames_out
        return self.net(frames, frames_out, self.padding_for(frames_out))
