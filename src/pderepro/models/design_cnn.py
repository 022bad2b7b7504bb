"""The convolutional reparameterisation of a design (Hoyer et al. 2019): the network's
weights, not the pixels, are what the optimiser moves; the network maps a fixed random
latent vector to the design's logits.

Architecture (ours, from the paper's description; stated in the study file): a dense map
of the latent vector (``latent`` values, optimised too) to ``channels[0]`` coarse images
of ``ceil(nely / 8) x ceil(nelx / 8)``; five blocks of tanh, bilinear upsampling (by 2, 2,
2, 1, 1), per-channel normalisation and a 5 x 5 convolution to ``channels[k + 1]`` (the
last to one channel); the image cropped to ``nely x nelx``, plus a trainable offset per
pixel initialised at zero. Seeded initialisation: the same seed gives the same network.
Where it is known to differ from the authors' network (a review of their description):
their upsampling is (1, 2, 2, 2, 1), their dense layer outputs 32 channels, they add a
zero-initialised offset scaled by 10 after every convolution, initialise the dense layer
orthogonally and the convolutions from a normal law; the crop here drops the last rows
and columns of the upsampled image. A study that claims the paper's CNN must close these.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

#: Upsampling factor of each block.
UPSAMPLE = (2, 2, 2, 1, 1)


class DesignCNN(nn.Module):
    """Logits ``(nely, nelx)`` of a design from a latent vector, float64."""

    def __init__(
        self, nely: int, nelx: int, *, latent: int = 128,
        channels: tuple[int, ...] = (128, 64, 32, 16, 1), seed: int = 0,
    ) -> None:  # fmt: skip
        super().__init__()
        if len(channels) != len(UPSAMPLE):
            raise ValueError(f"give {len(UPSAMPLE)} channel counts, got {channels}")
        generator = torch.Generator().manual_seed(seed)
        scale = math.prod(UPSAMPLE)
        self.shape = (nely, nelx)
        self.coarse = (math.ceil(nely / scale), math.ceil(nelx / scale))
        self.z = nn.Parameter(torch.randn(latent, generator=generator, dtype=torch.float64))
        self.dense = nn.Linear(latent, channels[0] * self.coarse[0] * self.coarse[1]).double()
        convs, norms, previous = [], [], channels[0]
        for out in channels:
            norms.append(nn.GroupNorm(1, previous, affine=False).double())
            convs.append(nn.Conv2d(previous, out, 5, padding=2).double())
            previous = out
        self.convs, self.norms = nn.ModuleList(convs), nn.ModuleList(norms)
        self.offset = nn.Parameter(torch.zeros(nely, nelx, dtype=torch.float64))
        with torch.no_grad():  # seeded weights, whatever torch's global RNG
            for p in self.parameters():
                if p is self.z or p is self.offset:
                    continue
                if p.dim() > 1:  # fan-in uniform, as torch's default
                    bound = 1 / math.sqrt(p[0].numel())
                    p.uniform_(-bound, bound, generator=generator)
                else:
                    p.zero_()

    def forward(self) -> Tensor:
        x = self.dense(self.z).reshape(1, -1, *self.coarse)  # (1, C0, h0, w0)
        for factor, norm, conv in zip(UPSAMPLE, self.norms, self.convs, strict=True):
            x = torch.tanh(x)
            if factor > 1:
                x = F.interpolate(x, scale_factor=factor, mode="bilinear", align_corners=False)
            x = conv(norm(x))  # (1, C_k, h, w)
        nely, nelx = self.shape
        return x[0, 0, :nely, :nelx] + self.offset  # (nely, nelx)
