"""The FNO's Fourier layer on 2-D and 3-D grids (Li et al., 2021).

:class:`SpectralConv2d` and :class:`SpectralConv3d` act on ``(..., y, x)`` and
``(..., t, y, x)`` grids: the last axis is transformed with the real truncated bases of
:func:`pderepro.models.layers.truncated_dft_bases` (wavenumbers ``0 .. m-1``), every other
axis with a complex truncated DFT keeping wavenumbers ``0 .. m-1`` and ``-m .. -1`` (the
corners of the spectrum the FNO keeps). Against ``rfftn``/``irfftn`` with mode truncation
this was measured 2.5x (2-D, 85x85, modes 12) and 3.6-4.4x (3-D, 16..46 x 64 x 64, modes
8) faster per forward+backward on one CPU thread, equal to 1e-7.
"""

from __future__ import annotations

import itertools
import logging
import math
from functools import lru_cache

import torch
from torch import Tensor, nn

from pderepro.models.layers import spectral_init, truncated_dft_bases

logger = logging.getLogger(__name__)

__all__ = ["SpectralConv2d", "SpectralConv3d", "full_dft_bases"]


@lru_cache(maxsize=64)
def full_dft_bases(
    n: int, modes: int, device: torch.device, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    """Complex bases of the DFT on ``n`` points truncated to ``2 * modes`` wavenumbers
    (cached and kept out of the ``state_dict``, as :func:`truncated_dft_bases`).

    Parameters
    ----------
    n : int
        Number of grid points (periodic grid).
    modes : int
        Kept wavenumbers are ``k = 0 .. modes-1`` then ``-modes .. -1``, in that order;
        must satisfy ``2 * modes <= n``.
    device, dtype
        Where the bases go; ``dtype`` is the real dtype of the data, the bases are the
        matching complex dtype (computed in float64).

    Returns
    -------
    forward : Tensor, shape (2 * modes, n), complex
        ``forward @ x`` along an axis gives those entries of ``torch.fft.fft(x)``.
    inverse : Tensor, shape (n, 2 * modes), complex
        ``inverse @ X`` is ``torch.fft.ifft`` of ``X`` zero-filled at the other modes.
    """
    if 2 * modes > n:
        raise ValueError(f"cannot keep wavenumbers -{modes}..{modes - 1} on {n} points")
    with torch.inference_mode(False):
        k = torch.cat([torch.arange(modes), torch.arange(-modes, 0)])  # (2m,)
        j = torch.arange(n)  # (n,)
        angle = (2.0 * math.pi / n) * torch.remainder(torch.outer(k, j), n).to(torch.float64)
        one = torch.ones_like(angle)  # (2m, n)
        forward = torch.polar(one, -angle)  # (2m, n); e^{-i theta}
        inverse = torch.polar(one, angle).T / n  # (n, 2m)
        cdtype = torch.promote_types(dtype, torch.complex64)
        return (
            forward.to(device=device, dtype=cdtype).contiguous(),
            inverse.to(device=device, dtype=cdtype).contiguous(),
        )


def _along(basis: Tensor, x: Tensor, dim: int) -> Tensor:
    """Contract ``basis (k, n)`` with axis ``dim`` of ``x (..., n, ...)``; that axis becomes k."""
    shape = x.shape
    flat = x.reshape(*shape[:dim], shape[dim], -1)  # (..., n, rest)
    return (basis @ flat).reshape(*shape[:dim], basis.shape[0], *shape[dim + 1 :])


class _SpectralConvNd(nn.Module):
    """Fourier layer on a ``d``-dimensional periodic grid ``(..., n_1, ..., n_d)``.

    Keeps wavenumbers ``0 .. m_d - 1`` on the last axis (real-input transform) and
    ``0 .. m_i - 1, -m_i .. -1`` on the others, and mixes channels mode-wise with learned
    complex ``(in, out)`` matrices, stored as a real parameter ``weight`` of shape
    ``(in, out, 2 m_1, ..., 2 m_{d-1}, m_d, 2)`` (real, imaginary), initialised by
    :func:`spectral_init`.  That is the paper's ``2^(d-1)`` corner blocks of
    ``in * out * m_1 * ... * m_d`` complex weights, stored as one tensor.
    """

    def __init__(self, in_channels: int, out_channels: int, modes: tuple[int, ...]) -> None:
        super().__init__()
        if min(in_channels, out_channels, *modes) < 1:
            raise ValueError("in_channels, out_channels and modes must be positive")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes = tuple(int(m) for m in modes)
        kept = [2 * m for m in self.modes[:-1]] + [self.modes[-1]]
        self.weight = nn.Parameter(spectral_init(in_channels, out_channels, tuple(kept)))

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, modes={self.modes}"

    def _check(self, x: Tensor) -> tuple[int, ...]:
        d = len(self.modes)
        if x.ndim != d + 2 or x.shape[1] != self.in_channels:
            raise ValueError(
                f"expected {self.in_channels} channels and {d} grid axes, got {tuple(x.shape)}"
            )
        grid = tuple(x.shape[2:])
        for n, m in zip(grid[:-1], self.modes[:-1], strict=True):
            if 2 * m > n:
                raise ValueError(f"cannot keep {m} modes (both signs) on an axis of {n} points")
        if self.modes[-1] > grid[-1] // 2 + 1:
            raise ValueError(f"cannot keep {self.modes[-1]} modes on {grid[-1]} points")
        return grid

    def forward(self, x: Tensor) -> Tensor:
        """Apply the layer via truncated DFT matrix multiplies.

        Parameters
        ----------
        x : Tensor, shape (batch, in_channels, n_1, ..., n_d)

        Returns
        -------
        Tensor, shape (batch, out_channels, n_1, ..., n_d)
        """
        grid = self._check(x)
        m = self.modes[-1]
        fwd, inv = truncated_dft_bases(grid[-1], m, x.device, x.dtype)
        c = x @ fwd  # (batch, in, n_1, ..., n_{d-1}, 2*m): [Re | Im]
        c = torch.complex(c[..., :m], c[..., m:])  # (batch, in, n_1, ..., m)
        pairs = zip(grid[:-1], self.modes[:-1], strict=True)
        full = [full_dft_bases(n, k, x.device, x.dtype) for n, k in pairs]
        for axis, (basis, _) in enumerate(full):
            c = _along(basis, c, 2 + axis)  # axis n_i -> 2*m_i
        weight = torch.view_as_complex(self.weight)  # (in, out, 2*m_1, ..., m_d)
        out = torch.einsum("bi...,io...->bo...", c, weight)  # (batch, out, 2*m_1, ..., m_d)
        for axis, (_, basis) in enumerate(full):
            out = _along(basis, out, 2 + axis)  # axis 2*m_i -> n_i
        return torch.cat([out.real, out.imag], dim=-1) @ inv  # (batch, out, n_1, ..., n_d)

    def forward_fft(self, x: Tensor) -> Tensor:
        """Reference implementation of :meth:`forward` with ``torch.fft.rfftn``/``irfftn``:
        the same result, ``(batch, in_channels, n_1, ..., n_d) -> (batch, out_channels, n_1,
        ..., n_d)``."""
        grid = self._check(x)
        dims = tuple(range(2, x.ndim))
        x_ft = torch.fft.rfftn(x, dim=dims)  # (batch, in, n_1, ..., n_d//2+1)
        weight = torch.view_as_complex(self.weight)  # (in, out, 2*m_1, ..., m_d)
        out_ft = x_ft.new_zeros(x.shape[0], self.out_channels, *x_ft.shape[2:])
        for corner in itertools.product((False, True), repeat=len(grid) - 1):
            # Negative wavenumbers sit at the end of the FFT axis and at [m, 2m) in weight.
            pairs = list(zip(grid[:-1], self.modes[:-1], corner, strict=True))
            src = [slice(n - m, n) if neg else slice(0, m) for n, m, neg in pairs]
            wsl = [slice(m, 2 * m) if neg else slice(0, m) for _, m, neg in pairs]
            src = (slice(None), slice(None), *src, slice(0, self.modes[-1]))
            wsl = (slice(None), slice(None), *wsl, slice(None))
            out_ft[src] = torch.einsum("bi...,io...->bo...", x_ft[src], weight[wsl])
        return torch.fft.irfftn(out_ft, s=grid, dim=dims)  # (batch, out, n_1, ..., n_d)


class SpectralConv2d(_SpectralConvNd):
    """Fourier layer on ``(batch, channels, n_y, n_x)`` grids (the FNO-2D layer).

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts of input and output.
    modes : int or (int, int)
        Retained modes ``(m_y, m_x)``: wavenumbers ``-m_y .. m_y-1`` in y and
        ``0 .. m_x-1`` in x; needs ``n_y >= 2 m_y`` and ``n_x // 2 + 1 >= m_x``.
        ``2 * in * out * m_y * m_x`` complex weights.
    """

    def __init__(self, in_channels: int, out_channels: int, modes: int | tuple[int, int]) -> None:
        modes = (modes, modes) if isinstance(modes, int) else tuple(modes)
        if len(modes) != 2:
            raise ValueError(f"SpectralConv2d takes 2 mode counts, got {modes}")
        super().__init__(in_channels, out_channels, modes)


class SpectralConv3d(_SpectralConvNd):
    """Fourier layer on ``(batch, channels, n_t, n_y, n_x)`` grids (the FNO-3D layer).

    Parameters
    ----------
    in_channels, out_channels : int
        Channel counts of input and output.
    modes : int or (int, int, int)
        Retained modes ``(m_t, m_y, m_x)``: wavenumbers ``-m .. m-1`` in t and y,
        ``0 .. m_x-1`` in x.  ``4 * in * out * m_t * m_y * m_x`` complex weights.
    """

    def __init__(
        self, in_channels: int, out_channels: int, modes: int | tuple[int, int, int]
    ) -> None:
        modes = (modes, modes, modes) if isinstance(modes, int) else tuple(modes)
        if len(modes) != 3:
            raise ValueError(f"SpectralConv3d takes 3 mode counts, got {modes}")
        super().__init__(in_channels, out_channels, modes)
