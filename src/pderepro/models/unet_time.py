"""A small time-conditioned 2-D U-Net: the velocity network ``v(x, t)`` of flow matching.

Architecture (ours; groundwork for the PBFM study, issue 49): a 3x3 convolution lifts the
``channels`` input fields to ``width`` features; ``levels`` encoder levels each hold one
residual block and a stride-2 convolution that halves the grid and doubles the features;
a residual block at the coarsest level; ``levels`` decoder levels each upsample (nearest,
then a 3x3 convolution halving the features), concatenate the encoder's skip and apply one
residual block; GroupNorm, SiLU and a 3x3 convolution give ``channels`` output fields.

Every residual block is GroupNorm, SiLU, 3x3 convolution, GroupNorm modulated by the time
embedding (``h * (1 + scale) + shift``, FiLM), SiLU, 3x3 convolution, plus the input (a 1x1
convolution where the feature count changes). The time embedding is ``time_features``
sinusoids of ``t`` (angular frequencies geometric from 1 to 1000, so ``t`` in ``[0, 1]``
is resolved on scales down to about 1e-3) through a two-layer SiLU MLP.

Grids of any size are padded at their far edges (replicating the edge values) to a
multiple of ``2**levels`` and cropped back, so a 33 x 33 vertex grid works as is.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.hparams import HParamsMixin

__all__ = ["TimeUNet", "sinusoidal_embedding"]

#: Largest angular frequency of the time embedding (1/time units; t runs over [0, 1]).
MAX_FREQUENCY = 1000.0


def sinusoidal_embedding(t: Tensor, features: int) -> Tensor:
    """Sines and cosines of ``t`` at ``features // 2`` geometric angular frequencies.

    Parameters
    ----------
    t : torch.Tensor
        Shape ``(B,)``, times (dimensionless, usually in ``[0, 1]``).
    features : int
        Even number of output features.

    Returns
    -------
    torch.Tensor
        Shape ``(B, features)``: ``[sin(w_k t), cos(w_k t)]`` with
        ``w_k = MAX_FREQUENCY ** (k / (features / 2 - 1))``, ``k = 0 .. features / 2 - 1``.
    """
    half = features // 2
    exponent = torch.arange(half, device=t.device, dtype=t.dtype) / max(half - 1, 1)
    freqs = MAX_FREQUENCY**exponent  # (half,)
    angles = t[:, None] * freqs[None, :]  # (B, half)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)  # (B, features)


def _norm(channels: int) -> nn.GroupNorm:
    """GroupNorm with the largest of 1, 2, 4, 8 groups that divides ``channels``."""
    return nn.GroupNorm(math.gcd(channels, 8), channels)


class _ResBlock(nn.Module):
    """Two 3x3 convolutions with a FiLM time modulation between them, and a skip."""

    def __init__(self, in_ch: int, out_ch: int, embed: int) -> None:
        super().__init__()
        self.norm1 = _norm(in_ch)
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.film = nn.Linear(embed, 2 * out_ch)
        self.norm2 = _norm(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.skip = nn.Conv2d(in_ch, out_ch, 1) if in_ch != out_ch else nn.Identity()

    def forward(self, x: Tensor, emb: Tensor) -> Tensor:
        h = self.conv1(F.silu(self.norm1(x)))  # (B, out, H, W)
        scale, shift = self.film(emb)[:, :, None, None].chunk(2, dim=1)  # (B, out, 1, 1) each
        h = self.norm2(h) * (1 + scale) + shift
        h = self.conv2(F.silu(h))  # (B, out, H, W)
        return h + self.skip(x)


class TimeUNet(HParamsMixin, nn.Module):
    """U-Net velocity field ``(x, t) -> v``, fields ``(B, channels, H, W)``, times ``(B,)``.

    Parameters
    ----------
    channels : int
        Input and output fields (2 for Darcy: permeability and pressure).
    width : int
        Features at the finest level; level ``l`` has ``width * 2**l``.
    levels : int
        Number of halvings of the grid (0 gives a plain residual network).
    time_features : int
        Size of the sinusoidal time embedding and of the MLP that follows it (even).
    seed : int, optional
        Seeds a ``torch.Generator`` that draws every initial weight (so two builds with one
        seed are identical, whatever torch's global RNG); None keeps torch's default
        initialisation from the global RNG.
    """

    hparam_names = ("channels", "width", "levels", "time_features", "seed")

    def __init__(
        self,
        channels: int = 2,
        width: int = 32,
        levels: int = 2,
        time_features: int = 64,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        if channels < 1 or width < 1 or levels < 0:
            raise ValueError(
                f"need channels >= 1, width >= 1, levels >= 0; got {channels}, {width}, {levels}"
            )
        if time_features < 2 or time_features % 2:
            raise ValueError(f"time_features must be even and >= 2, got {time_features}")
        self.channels, self.width, self.levels = int(channels), int(width), int(levels)
        self.time_features, self.seed = int(time_features), seed
        embed = self.time_features
        self.time_mlp = nn.Sequential(
            nn.Linear(embed, embed), nn.SiLU(), nn.Linear(embed, embed)
        )  # fmt: skip
        feats = [width * 2**level for level in range(levels + 1)]
        self.lift = nn.Conv2d(channels, feats[0], 3, padding=1)
        self.down_blocks = nn.ModuleList(_ResBlock(f, f, embed) for f in feats[:-1])
        pairs = list(zip(feats[:-1], feats[1:], strict=True))  # (f_l, f_{l+1})
        self.downsample = nn.ModuleList(nn.Conv2d(f, g, 3, stride=2, padding=1) for f, g in pairs)
        self.middle = _ResBlock(feats[-1], feats[-1], embed)
        self.upsample = nn.ModuleList(nn.Conv2d(g, f, 3, padding=1) for f, g in pairs)
        self.up_blocks = nn.ModuleList(_ResBlock(2 * f, f, embed) for f in feats[:-1])
        self.out_norm = _norm(feats[0])
        self.project = nn.Conv2d(feats[0], channels, 3, padding=1)
        if seed is not None:
            self._seeded_init(int(seed))

    def _seeded_init(self, seed: int) -> None:
        """Redraw every weight from a seeded generator, with torch's default laws."""
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, nn.Conv2d | nn.Linear):
                    # torch's default: kaiming_uniform(a=sqrt(5)) is U(-1/sqrt(fan_in), ...),
                    # and the bias has the same bound.
                    bound = 1.0 / math.sqrt(module.weight[0].numel())
                    module.weight.uniform_(-bound, bound, generator=generator)
                    module.bias.uniform_(-bound, bound, generator=generator)
                elif isinstance(module, nn.GroupNorm):
                    module.weight.fill_(1.0)
                    module.bias.zero_()

    def forward(self, x: Tensor, t: Tensor) -> Tensor:
        """Velocity at fields ``x`` and times ``t``.

        Parameters
        ----------
        x : torch.Tensor
            Shape ``(B, channels, H, W)``, any ``H, W >= 1``.
        t : torch.Tensor
            Shape ``(B,)`` (or a scalar, broadcast to the batch), dimensionless times.

        Returns
        -------
        torch.Tensor
            Shape ``(B, channels, H, W)``, in the units of ``x`` per unit time.
        """
        if x.ndim != 4 or x.shape[1] != self.channels:
            raise ValueError(f"x must be (B, {self.channels}, H, W), got {tuple(x.shape)}")
        batch, _, height, width = x.shape
        t = torch.as_tensor(t, dtype=x.dtype, device=x.device).reshape(-1).expand(batch)
        emb = self.time_mlp(sinusoidal_embedding(t, self.time_features))  # (B, E)

        multiple = 2**self.levels
        pad_h, pad_w = (-height) % multiple, (-width) % multiple
        # Replicate the far edges: zero padding would put a false wall next to the data.
        h = F.pad(x, (0, pad_w, 0, pad_h), mode="replicate") if pad_h or pad_w else x
        h = self.lift(h)  # (B, width, H', W'), H' and W' multiples of 2**levels
        skips = []
        for block, down in zip(self.down_blocks, self.downsample, strict=True):
            h = block(h, emb)
            skips.append(h)  # (B, f_l, H' / 2**l, W' / 2**l)
            h = down(h)  # (B, f_{l+1}, H' / 2**(l+1), W' / 2**(l+1))
        h = self.middle(h, emb)
        for level in reversed(range(self.levels)):
            h = F.interpolate(h, scale_factor=2.0, mode="nearest")
            h = self.upsample[level](h)  # (B, f_l, H' / 2**l, W' / 2**l)
            h = self.up_blocks[level](torch.cat([h, skips[level]], dim=1), emb)
        h = self.project(F.silu(self.out_norm(h)))  # (B, channels, H', W')
        return h[:, :, :height, :width]
