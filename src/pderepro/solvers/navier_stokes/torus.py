"""Fourier grids on the unit torus ``[0, 1)^2``: wavenumbers, 2/3 dealiasing, random fields.

Shared by the Navier-Stokes solver and its verification; fields use ``torch.fft.rfft2``
layout with integer wavenumbers ``k`` (angular wavenumber ``2 pi k``).
"""

from __future__ import annotations

import math

import numpy as np
import torch

#: Covariance ``7^3 (-Delta + 49 I)^-2.5`` of the FNO initial vorticity.
GRF_SCALE, GRF_SHIFT, GRF_EXPONENT = 7.0**3, 49.0, 2.5


def default_device(device: str | torch.device | None) -> torch.device:
    """``device``, or CUDA when available and CPU otherwise."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def complex_dtype(dtype: torch.dtype) -> torch.dtype:
    """The complex dtype matching float32 or float64 (ValueError otherwise)."""
    if dtype == torch.float64:
        return torch.complex128
    if dtype == torch.float32:
        return torch.complex64
    raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")


def wavenumbers(resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer wavenumbers of the ``rfft2`` layout of an ``(n, n)`` field.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``k_x`` of shape ``(n, 1)`` (``0..n/2-1, -n/2..-1``) and ``k_y`` of shape
        ``(1, n // 2 + 1)`` (``0..n/2``); cycles per unit length.
    """
    kx = np.fft.fftfreq(resolution, d=1.0 / resolution)[:, None]
    ky = np.arange(resolution // 2 + 1, dtype=np.float64)[None, :]
    return kx, ky


def dealias_mask(resolution: int) -> np.ndarray:
    """2/3-rule mask ``|k_x| < n/3 and |k_y| < n/3``, shape ``(n, n // 2 + 1)``, bool."""
    kx, ky = wavenumbers(resolution)
    return (np.abs(kx) < resolution / 3.0) & (np.abs(ky) < resolution / 3.0)


def grf_eigenvalues_2d(
    resolution: int, *, scale: float = GRF_SCALE, shift: float = GRF_SHIFT,
    exponent: float = GRF_EXPONENT,
) -> np.ndarray:  # fmt: skip
    """Covariance eigenvalues ``scale (4 pi^2 |k|^2 + shift)^(-exponent)`` in ``rfft2`` layout.

    The zero mode and the Nyquist row and column are set to 0 (not sampled).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n // 2 + 1)``, units of vorticity^2.
    """
    kx, ky = wavenumbers(resolution)
    lam = scale * (4.0 * np.pi**2 * (kx**2 + ky**2) + shift) ** (-exponent)
    lam[0, 0] = 0.0
    lam[resolution // 2, :] = 0.0
    lam[:, resolution // 2] = 0.0
    return lam


def sample_vorticity_grf(
    n_samples: int,
    resolution: int,
    *,
    scale: float = GRF_SCALE,
    shift: float = GRF_SHIFT,
    exponent: float = GRF_EXPONENT,
    generator: torch.Generator | None = None,
    seed: int | None = None,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """Draw zero-mean Gaussian random vorticity fields on the unit torus ``[0, 1)^2``.

    The covariance operator is ``C = scale (-Delta + shift I)^(-exponent)``, whose eigenfunctions
    ``exp(2 pi i k . x)`` have eigenvalues ``lambda_k = scale (4 pi^2 |k|^2 + shift)^(-exponent)``
    (:func:`grf_eigenvalues_2d`). The field is ``w(x) = sum_k sqrt(lambda_k) xi_k exp(2 pi i
    k . x)`` with Hermitian standard complex normals ``xi_k`` (``E |xi_k|^2 = 1``), summed over
    the grid's modes without the zero mode (zero mean) and the Nyquist row/column, so
    ``E |w_hat_k|^2 = lambda_k`` for ``w_hat = rfft2(w) / n^2`` and the pointwise variance is
    ``sum_k lambda_k`` over all such ``k`` (both signs). ``xi`` is made by an ``rfft2`` of white
    noise. The noise is drawn in float64 on the CPU, so a seed gives the same fields on every
    device and in either dtype (up to FFT round-off).

    Parameters
    ----------
    n_samples, resolution : int
        Number of fields and grid points per side.
    scale, shift, exponent : float
        Covariance parameters (``shift`` in 1/length^2); defaults are the FNO paper's.
    generator : torch.Generator, optional
        CPU generator to draw from; exclusive with ``seed``.
    seed : int, optional
        Seed of a fresh generator; with neither, torch's global CPU generator is used.
    device : str or torch.device, optional
        Output device; defaults to CUDA when available, else CPU.
    dtype : torch.dtype
        float64 or float32.

    Returns
    -------
    torch.Tensor
        Shape ``(n_samples, resolution, resolution)``, vorticity (1/time).
    """
    if n_samples < 1 or resolution < 4 or resolution % 2:
        raise ValueError(f"need n_samples >= 1, even resolution >= 4: {n_samples}, {resolution}")
    if scale <= 0 or exponent <= 0 or shift + 4.0 * math.pi**2 <= 0:
        raise ValueError(f"invalid covariance scale={scale} shift={shift} exponent={exponent}")
    if generator is not None and seed is not None:
        raise ValueError("pass either generator or seed, not both")
    if seed is not None:
        generator = torch.Generator().manual_seed(int(seed))
    device = default_device(device)
    complex_dtype(dtype)
    noise = torch.randn(
        (n_samples, resolution, resolution), generator=generator, dtype=torch.float64
    ).to(device)
    lam = grf_eigenvalues_2d(resolution, scale=scale, shift=shift, exponent=exponent)
    # rfft2 of unit white noise has E|Z_k|^2 = n^2; irfft2 divides by n^2, so the factor
    # n sqrt(lambda_k) gives E|w_hat_k|^2 = lambda_k.
    amplitude = torch.as_tensor(resolution * np.sqrt(lam), device=device)
    w = torch.fft.irfft2(torch.fft.rfft2(noise) * amplitude, s=(resolution, resolution))
    return w.to(dtype)
