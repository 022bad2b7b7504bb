"""Building blocks for neural operators.

:class:`SpectralConv1d` is the Fourier layer of the FNO (Li et al., 2021): transform
to Fourier space, keep the lowest ``modes`` modes, multiply each retained mode by a
learned complex ``(in, out)`` matrix, transform back.

With few retained modes (16 in the paper) the truncated transforms are computed as
real matrix multiplies against cached cos/sin bases instead of FFTs; on CPU this was
measured about 1.6x faster per batch.  :meth:`SpectralConv1d.forward_fft` keeps the
FFT formulation as the reference the tests compare against.

:mod:`pderepro.models.spectral_nd` holds the 2-D and 3-D layers built on the same bases.
Also: :class:`ChannelLinear` (fast 1x1 maps); the autoregressive rollout of one-step
models is in :mod:`pderepro.models.rollout`.
"""

from __future__ import annotations

import logging
import math
from functools import lru_cache

import torch
from torch import Tensor, nn

logger = logging.getLogger(__name__)

__all__ = [
    "ChannelLinear",
    "SpectralConv1d",
    "spectral_init",
    "truncated_dft_bases",
]


@lru_cache(maxsize=64)
def truncated_dft_bases(
    n: int, modes: int, device: torch.device, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    """Real bases of the truncated forward and inverse DFT on ``n`` points.

    Parameters
    ----------
    n : int
        Number of grid points (periodic grid).
    modes : int
        Number of retained modes, wavenumbers ``k = 0 .. modes-1``; must satisfy
        ``modes <= n // 2 + 1``.
    device, dtype
        Where and in which precision the bases are returned (computed in float64).

    Returns
    -------
    forward : Tensor, shape (n, 2 * modes)
        ``x @ forward`` gives ``[Re X_k, Im X_k]`` of ``X = rfft(x)[:modes]``
        (unnormalised, as ``torch.fft.rfft``).
    inverse : Tensor, shape (2 * modes, n)
        ``[Re Y_k, Im Y_k] @ inverse`` equals ``irfft(Y, n)`` with all modes
        ``k >= modes`` zero (``1/n`` normalisation, as ``torch.fft.irfft``).

    Notes
    -----
    Cached per ``(n, modes, device, dtype)`` and deliberately not module buffers:
    they are a function of the grid, not learned state, so they stay out of the
    ``state_dict`` and one set of weights serves every resolution.
    """
    if modes > n // 2 + 1:
        raise ValueError(f"cannot keep {modes} modes on a grid of {n} points")
    # A first call under inference_mode would otherwise cache inference tensors,
    # which autograd later refuses to save for backward.
    with torch.inference_mode(False):
        return _compute_bases(n, modes, device, dtype)


def _compute_bases(
    n: int, modes: int, device: torch.device, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    j = torch.arange(n, dtype=torch.int64)
    k = torch.arange(modes, dtype=torch.int64)
    # Reduce j*k mod n in integers so the angle stays exact for large n.
    angle = (2.0 * math.pi / n) * torch.remainder(torch.outer(j, k), n).to(torch.float64)
    cos, sin = torch.cos(angle), torch.sin(angle)  # (n, modes)
    # irfft counts mode 0 and the Nyquist mode once and all others twice (their
    # conjugates are implicit), and ignores the imaginary parts of modes 0 and n/2:
    # sin vanishes there, zeroed exactly so no rounding residue leaks through.
    weight = torch.full((modes,), 2.0, dtype=torch.float64)
    weight[0] = 1.0
    if n % 2 == 0 and modes == n // 2 + 1:
        weight[-1] = 1.0
        sin[:, -1] = 0.0
    forward = torch.cat([cos, -sin], dim=1)  # (n, 2*modes); e^{-i theta}
    inverse = torch.cat([cos * weight, -sin * weight], dim=1).T / n  # (2*modes, n)
    return (
        forward.to(device=device, dtype=dtype).contiguous(),
        inverse.to(device=device, dtype=dtype).contiguous(),
    )


def spectral_init(in_channels: int, out_channels: int, modes: tuple[int, ...]) -> Tensor:
    """Initial complex weights of a spectral layer as (real, imaginary) pairs.

    Zero-mean normal with ``E|w|^2 = 2 / (in + out)`` (Glorot's scale; each of the real
    and imaginary parts has variance ``1 / (in + out)``), so that with ``in == out`` the
    layer starts by passing each retained mode's variance through, as strong as the
    pointwise path beside it.

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts of the layer.
    modes : tuple of int
        Shape of the kept spectrum (one entry per kept wavenumber axis).

    Returns
    -------
    Tensor, shape (in_channels, out_channels, *modes, 2)

    Notes
    -----
    The paper is silent on initialisation; the authors' code draws ``U[0, 1) / (in *
    out)``, which we used before. At width 64 a layer so drawn passes about 3e-6 of its
    input's variance (this one about 1), every weight's real and imaginary part is
    positive, and all output channels start as nearly the same sum of the inputs. Chosen on
    validation error with ``benchmarks/fno_peer_accuracy.py`` (quick budget, 2 seeds,
    last epoch): Burgers at s = 1024 0.00239 with this initialisation against 0.00385
    with the authors' (which left us behind neuraloperator's FNO of the same size, issue
    18); Darcy at s = 85 0.0269 against 0.0260, within the spread between seeds
    (0.0246-0.0274).
    """
    std = math.sqrt(1.0 / (in_channels + out_channels))  # per real component
    return std * torch.randn(in_channels, out_channels, *modes, 2)


class SpectralConv1d(nn.Module):
    """Fourier layer: mode-wise complex channel mixing of the lowest Fourier modes.

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts of input and output.
    modes : int
        Number of retained Fourier modes ``k = 0 .. modes-1``.  The same weights
        apply at any grid size ``n`` with ``modes <= n // 2 + 1`` (``n >= 2 * modes``
        keeps the Nyquist mode out, as in the paper).

    Notes
    -----
    The complex weights ``(in, out, modes)`` are stored as a real parameter
    ``weight`` of shape ``(in, out, modes, 2)`` (real, imaginary), initialised by
    :func:`spectral_init`.
    """

    def __init__(self, in_channels: int, out_channels: int, modes: int) -> None:
        super().__init__()
        if min(in_channels, out_channels, modes) < 1:
            raise ValueError("in_channels, out_channels and modes must be positive")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes = modes
        self.weight = nn.Parameter(spectral_init(in_channels, out_channels, (modes,)))

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, modes={self.modes}"

    def _block_weight(self) -> Tensor:
        """Complex weights as real 2x2 blocks, shape (modes, 2*in, 2*out).

        ``[Xr, Xi] @ [[Wr, Wi], [-Wi, Wr]] = [Xr Wr - Xi Wi, Xr Wi + Xi Wr]``, so one
        batched real matmul per mode performs the complex product.
        """
        wr = self.weight[..., 0].permute(2, 0, 1)  # (modes, in, out)
        wi = self.weight[..., 1].permute(2, 0, 1)  # (modes, in, out)
        top = torch.cat([wr, wi], dim=2)  # (modes, in, 2*out)
        bottom = torch.cat([-wi, wr], dim=2)  # (modes, in, 2*out)
        return torch.cat([top, bottom], dim=1)  # (modes, 2*in, 2*out)

    def forward(self, x: Tensor) -> Tensor:
        """Apply the layer via truncated DFT matrix multiplies.

        Parameters
        ----------
        x : Tensor, shape (batch, in_channels, n)

        Returns
        -------
        Tensor, shape (batch, out_channels, n)
        """
        batch, channels, n = x.shape
        if channels != self.in_channels:
            raise ValueError(f"expected {self.in_channels} channels, got {channels}")
        m = self.modes
        fwd, inv = truncated_dft_bases(n, m, x.device, x.dtype)
        coeffs = x @ fwd  # (batch, in, 2*m): [Re | Im]
        coeffs = coeffs.view(batch, channels, 2, m).permute(3, 0, 2, 1)  # (m, batch, 2, in)
        coeffs = coeffs.reshape(m, batch, 2 * channels)  # (m, batch, 2*in)
        mixed = torch.bmm(coeffs, self._block_weight())  # (m, batch, 2*out)
        mixed = mixed.view(m, batch, 2, self.out_channels).permute(1, 3, 2, 0)  # (b, out, 2, m)
        mixed = mixed.reshape(batch, self.out_channels, 2 * m)  # (batch, out, 2*m)
        return mixed @ inv  # (batch, out, n)

    def forward_fft(self, x: Tensor) -> Tensor:
        """Reference implementation of :meth:`forward` with ``torch.fft.rfft``/``irfft``:
        the same result, ``(batch, in_channels, n) -> (batch, out_channels, n)``."""
        batch, _, n = x.shape
        if self.modes > n // 2 + 1:
            raise ValueError(f"cannot keep {self.modes} modes on a grid of {n} points")
        x_ft = torch.fft.rfft(x)  # (batch, in, n//2+1), complex
        w = torch.view_as_complex(self.weight)  # (in, out, modes)
        out_ft = torch.zeros(
            batch, self.out_channels, n // 2 + 1, dtype=x_ft.dtype, device=x.device
        )  # (batch, out, n//2+1)
        out_ft[:, :, : self.modes] = torch.einsum("bik,iok->bok", x_ft[:, :, : self.modes], w)
        return torch.fft.irfft(out_ft, n=n)  # (batch, out, n)


class ChannelLinear(nn.Linear):
    """Pointwise (1x1) map of the channel axis, ``(batch, in, *grid) -> (batch, out, *grid)``.

    Same parameters and initialisation as ``nn.Linear(in, out)``; one batched matmul with
    fused bias, measured 2-2.7x faster per forward+backward than a 1x1 ``nn.Conv2d`` or
    ``nn.Conv3d`` on FNO-sized tensors (one CPU thread).
    """

    def forward(self, v: Tensor) -> Tensor:
        batch, channels, *grid = v.shape
        flat = v.reshape(batch, channels, -1)  # (batch, in, points)
        weight = self.weight.expand(batch, -1, -1)  # (batch, out, in)
        if self.bias is None:
            out = torch.bmm(weight, flat)  # (batch, out, points)
        else:
            out = torch.baddbmm(self.bias[None, :, None].expand(batch, -1, 1), weight, flat)
        return out.reshape(batch, self.out_features, *grid)  # (batch, out, *grid)
