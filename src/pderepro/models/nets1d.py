"""Channel-stack networks on a periodic 1-D grid, ``(batch, in_channels, n) -> (batch, n)``:
the bodies of the PDEBench baselines (an FNO-1D and a U-Net-1D).

They know nothing of frames or PDE parameters: the one-step models of
:mod:`pderepro.models.step1d` and :mod:`pderepro.models.cape` decide which fields make up the
input channels (context frames, constant parameter channels, a CAPE estimate) and wrap
these bodies.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.layers import ChannelLinear, SpectralConv1d

__all__ = ["FNOBody1d", "UNetBody1d"]


class FNOBody1d(nn.Module):
    """Fourier neural operator on stacked input fields (Li et al., 2021).

    Lifting ``ChannelLinear(in_channels [+ 1 for x], width)``; ``layers`` Fourier layers
    ``v <- act(K v + W v)`` (``K`` a :class:`SpectralConv1d`, ``W`` pointwise), no activation
    after the last; projection ``width -> projection -> 1`` with GELU between.

    Parameters
    ----------
    in_channels : int
        Number of input fields on the grid.
    modes : int
        Retained Fourier modes per layer.
    width : int
        Channels of the Fourier layers.
    layers : int
        Number of Fourier layers.
    projection : int
        Hidden width of the projection.
    padding : int
        Zero cells appended to the grid before the Fourier layers and cropped after; 0 on a
        periodic domain, where padding would only break the periodicity the DFT assumes.
    grid : bool
        Append the coordinate ``x_j = j / n`` (dimensionless, in ``[0, 1)``) as a channel.
    """

    def __init__(
        self,
        in_channels: int,
        modes: int,
        width: int,
        layers: int,
        projection: int,
        padding: int = 0,
        grid: bool = True,
    ) -> None:
        super().__init__()
        if min(in_channels, modes, width, layers, projection) < 1:
            raise ValueError("in_channels, modes, width, layers and projection must be positive")
        if padding < 0:
            raise ValueError(f"padding must be >= 0, got {padding}")
        self.padding = int(padding)
        self.grid = bool(grid)
        self.lift = ChannelLinear(in_channels + int(self.grid), width)
        self.spectral = nn.ModuleList(SpectralConv1d(width, width, modes) for _ in range(layers))
        self.pointwise = nn.ModuleList(ChannelLinear(width, width) for _ in range(layers))
        self.proj_hidden = ChannelLinear(width, projection)
        self.proj_out = ChannelLinear(projection, 1)

    def forward(self, v: Tensor) -> Tensor:
        """Parameters: v, Tensor (batch, in_channels, n).  Returns: Tensor (batch, n)."""
        batch, _, n = v.shape
        if self.grid:
            coords = torch.arange(n, device=v.device, dtype=v.dtype) / n  # (n,)
            v = torch.cat([v, coords.expand(batch, 1, n)], dim=1)  # (batch, in + 1, n)
        v = self.lift(v)  # (batch, width, n)
        if self.padding:
            v = F.pad(v, (0, self.padding))  # (batch, width, n + padding)
        last = len(self.spectral) - 1
        for i, (spectral, pointwise) in enumerate(zip(self.spectral, self.pointwise, strict=True)):
            v = spectral(v) + pointwise(v)  # (batch, width, n + padding)
            if i < last:
                v = F.gelu(v)
        v = v[..., :n]  # (batch, width, n)
        v = F.gelu(self.proj_hidden(v))  # (batch, projection, n)
        return self.proj_out(v)[:, 0]  # (batch, n)


def _conv3(in_channels: int, out_channels: int) -> nn.Conv1d:
    """Kernel-3 convolution with circular padding (the periodic domain); no bias, as a
    normalisation follows and would remove it."""
    return nn.Conv1d(in_channels, out_channels, 3, padding=1, padding_mode="circular", bias=False)


#: Normalisations of the U-Net's levels.
UNET_NORMS = ("group", "batch")


def _block(in_channels: int, out_channels: int, norm: str = "group") -> nn.Sequential:
    """Two (convolution, normalisation, GELU) stages: one U-Net level.

    ``norm="group"`` (GroupNorm) normalises each sample on its own, so a rollout behaves
    as in training with no running statistics; but it also removes each sample's
    amplitude at every level, which a one-step map ``u_t -> u_{t+1}`` has to carry from
    input to output. ``norm="batch"`` is PDEBench's BatchNorm: statistics over the batch
    in training, running ones in evaluation, so samples keep their relative amplitudes.
    """
    if norm not in UNET_NORMS:
        raise ValueError(f"U-Net norm must be one of {UNET_NORMS}, got {norm!r}")

    def normalisation() -> nn.Module:
        if norm == "batch":
            return nn.BatchNorm1d(out_channels)
        return nn.GroupNorm(math.gcd(out_channels, 8), out_channels)  # 1, 2, 4 or 8 groups

    return nn.Sequential(
        _conv3(in_channels, out_channels),
        normalisation(),
        nn.GELU(),
        _conv3(out_channels, out_channels),
        normalisation(),
        nn.GELU(),
    )


class UNetBody1d(nn.Module):
    """U-Net (Ronneberger et al., 2015) on a periodic 1-D grid, as PDEBench's baseline:
    ``levels`` max-pool/block steps down to a bottleneck, transposed convolutions and blocks
    (after concatenating the skip) up, 1x1 convolution out.

    Parameters
    ----------
    in_channels : int
        Number of input fields on the grid.
    init_features : int
        Channels at full resolution; level ``k`` has ``init_features * 2**k``.
    levels : int
        Number of 2x downsamplings (PDEBench: 4); the grid size must be divisible by
        ``2**levels``.
    norm : {"group", "batch"}
        Normalisation of every level (:func:`_block`; PDEBench: batch).
    """

    def __init__(
        self, in_channels: int, init_features: int, levels: int, norm: str = "group"
    ) -> None:
        super().__init__()
        if min(in_channels, init_features, levels) < 1:
            raise ValueError("in_channels, init_features and levels must be positive")
        self.levels = int(levels)
        widths = [init_features * 2**k for k in range(levels + 1)]
        self.inc = _block(in_channels, widths[0], norm)
        self.down = nn.ModuleList(_block(widths[k], widths[k + 1], norm) for k in range(levels))
        coarse_to_fine = range(levels - 1, -1, -1)
        self.up = nn.ModuleList(
            nn.ConvTranspose1d(widths[k + 1], widths[k], 2, stride=2) for k in coarse_to_fine
        )
        self.up_block = nn.ModuleList(
            _block(2 * widths[k], widths[k], norm) for k in coarse_to_fine
        )
        self.out = nn.Conv1d(widths[0], 1, 1)

    def check_resolution(self, n: int) -> None:
        """Raise ``ValueError`` unless ``n`` cells halve ``levels`` times exactly."""
        factor = 2**self.levels
        if n % factor:
            raise ValueError(
                f"U-Net with {self.levels} levels needs a grid size divisible by {factor}, got {n}"
            )

    def forward(self, v: Tensor) -> Tensor:
        """Parameters: v, Tensor (batch, in_channels, n), n divisible by ``2**levels``.
        Returns: Tensor (batch, n)."""
        self.check_resolution(v.shape[-1])
        v = self.inc(v)  # (batch, f, n)
        skips = [v]
        for down in self.down:
            v = down(F.max_pool1d(v, 2))  # (batch, f * 2^(k+1), n / 2^(k+1))
            skips.append(v)
        skips.pop()  # the bottleneck is v itself
        for up, block in zip(self.up, self.up_block, strict=True):
            skip = skips.pop()  # (batch, f * 2^k, n / 2^k)
            v = block(torch.cat([skip, up(v)], dim=1))  # (batch, f * 2^k, n / 2^k)
        return self.out(v)[:, 0]  # (batch, n)
