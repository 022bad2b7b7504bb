"""Convolutional baselines of the FNO paper's Navier-Stokes table: a U-Net and a ResNet,
both one-step maps ``(batch, in_channels, n_y, n_x) -> (batch, n_y, n_x)`` with the same
:meth:`rollout` as the recurrent :class:`~pderepro.models.fno2d.FNO2d`.

The paper describes them only briefly (U-Net: four blocks of 2-D convolutions and
deconvolutions; ResNet: 18 convolution layers with residual connections) and publishes
their sizes, U-Net 24,950,491 and ResNet 266,641 parameters.  Ours are built from that
description with circular padding (the torus) and GroupNorm; the defaults give

- ``UNet2d(in_channels=10, base_width=56, depth=4)``: 23,773,457 parameters (-4.7%);
- ``ResNet2d(in_channels=10, width=42, blocks=8)``: 18 convolutions, 260,233
  parameters (-2.4%).
"""

from __future__ import annotations

import logging
import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.hparams import HParamsMixin
from pderepro.models.rollout import RolloutMixin, check_frames

logger = logging.getLogger(__name__)

__all__ = ["ResNet2d", "UNet2d"]


def _conv3x3(in_channels: int, out_channels: int, periodic: bool) -> nn.Conv2d:
    """3x3 convolution keeping the grid size; circular padding on a periodic domain."""
    mode = "circular" if periodic else "zeros"
    return nn.Conv2d(in_channels, out_channels, 3, padding=1, padding_mode=mode)


def _norm(channels: int) -> nn.GroupNorm:
    """GroupNorm with the largest of 1, 2, 4, 8 groups that divides ``channels``."""
    return nn.GroupNorm(math.gcd(channels, 8), channels)


def _conv_norm_act(in_channels: int, out_channels: int, periodic: bool) -> list[nn.Module]:
    return [_conv3x3(in_channels, out_channels, periodic), _norm(out_channels), nn.GELU()]


def _double_conv(in_channels: int, out_channels: int, periodic: bool) -> nn.Sequential:
    """Two (3x3 convolution, GroupNorm, GELU) stages: one U-Net block."""
    return nn.Sequential(
        *_conv_norm_act(in_channels, out_channels, periodic),
        *_conv_norm_act(out_channels, out_channels, periodic),
    )


class UNet2d(HParamsMixin, RolloutMixin, nn.Module):
    """U-Net: ``depth`` max-pool/double-convolution levels down, transposed convolutions
    and double convolutions (with skip concatenation) up, 1x1 convolution out.

    Parameters
    ----------
    in_channels : int
        Input frames (10 for Navier-Stokes).
    base_width : int
        Channels at full resolution; level ``k`` has ``base_width * 2**k``.
    depth : int
        Number of 2x downsamplings; the grid sizes must be divisible by ``2**depth``.
    periodic : bool
        Circular padding (the Navier-Stokes torus) or zero padding.
    """

    hparam_names = ("in_channels", "base_width", "depth", "periodic")

    def __init__(
        self, in_channels: int = 10, base_width: int = 56, depth: int = 4, periodic: bool = True
    ) -> None:
        super().__init__()
        if min(in_channels, base_width, depth) < 1:
            raise ValueError("in_channels, base_width and depth must be positive")
        self.in_channels = in_channels
        self.base_width = base_width
        self.depth = depth
        self.periodic = bool(periodic)
        widths = [base_width * 2**k for k in range(depth + 1)]
        self.inc = _double_conv(in_channels, widths[0], self.periodic)
        self.down = nn.ModuleList(
            _double_conv(widths[k], widths[k + 1], self.periodic) for k in range(depth)
        )
        levels = range(depth - 1, -1, -1)  # coarse to fine
        self.up = nn.ModuleList(
            nn.ConvTranspose2d(widths[k + 1], widths[k], 2, stride=2) for k in levels
        )
        self.up_conv = nn.ModuleList(
            _double_conv(2 * widths[k], widths[k], self.periodic) for k in levels
        )
        self.out = nn.Conv2d(widths[0], 1, 1)

    def forward(self, frames: Tensor) -> Tensor:
        """Parameters: frames, Tensor (batch, in_channels, n_y, n_x), sizes divisible by
        ``2**depth``.  Returns: Tensor (batch, n_y, n_x)."""
        check_frames(frames, self.in_channels)
        factor = 2**self.depth
        if frames.shape[2] % factor or frames.shape[3] % factor:
            raise ValueError(f"UNet2d(depth={self.depth}) needs grid sizes divisible by {factor}")
        v = self.inc(frames)  # (batch, w_0, n_y, n_x)
        skips = [v]
        for down in self.down:
            v = down(F.max_pool2d(v, 2))  # (batch, w_{k+1}, n_y / 2^(k+1), n_x / 2^(k+1))
            skips.append(v)
        skips.pop()  # the coarsest level is v itself
        for up, conv in zip(self.up, self.up_conv, strict=True):
            skip = skips.pop()  # (batch, w_k, n_y / 2^k, n_x / 2^k)
            v = conv(torch.cat([skip, up(v)], dim=1))  # (batch, w_k, n_y / 2^k, n_x / 2^k)
        return self.out(v)[:, 0]  # (batch, n_y, n_x)


class ResNet2d(HParamsMixin, RolloutMixin, nn.Module):
    """ResNet: 3x3 convolution ``in_channels -> width`` and GELU, ``blocks`` residual
    blocks ``v <- act(v + GN(conv(act(GN(conv(v))))))``, 3x3 convolution ``width -> 1``
    (``2 * blocks + 2`` convolutions in all).

    Parameters
    ----------
    in_channels : int
        Input frames (10 for Navier-Stokes).
    width : int
        Channels of the residual blocks.
    blocks : int
        Number of residual blocks.
    periodic : bool
        Circular padding (the Navier-Stokes torus) or zero padding.

    Notes
    -----
    Works at any grid size with the same weights (but its receptive field is fixed in
    grid points, so it is not resolution-independent in the operator sense).
    """

    hparam_names = ("in_channels", "width", "blocks", "periodic")

    def __init__(
        self, in_channels: int = 10, width: int = 42, blocks: int = 8, periodic: bool = True
    ) -> None:
        super().__init__()
        if min(in_channels, width, blocks) < 1:
            raise ValueError("in_channels, width and blocks must be positive")
        self.in_channels = in_channels
        self.width = width
        self.blocks = blocks
        self.periodic = bool(periodic)
        self.lift = _conv3x3(in_channels, width, self.periodic)
        self.body = nn.ModuleList(
            nn.Sequential(
                *_conv_norm_act(width, width, self.periodic),
                _conv3x3(width, width, self.periodic),
                _norm(width),
            )
            for _ in range(blocks)
        )
        self.out = _conv3x3(width, 1, self.periodic)

    def forward(self, frames: Tensor) -> Tensor:
        """Parameters: frames, Tensor (batch, in_channels, n_y, n_x).
        Returns: Tensor (batch, n_y, n_x)."""
        check_frames(frames, self.in_channels)
        v = F.gelu(self.lift(frames))  # (batch, width, n_y, n_x)
        for block in self.body:
            v = F.gelu(v + block(v))  # (batch, width, n_y, n_x)
        return self.out(v)[:, 0]  # (batch, n_y, n_x)
