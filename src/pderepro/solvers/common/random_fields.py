"""Gaussian random fields on the periodic unit interval and torus.

Two laws. The Burgers initial conditions follow the covariance
``scale * (-Delta + shift * I)^(-exponent)`` on the unit circle [0, 1) with the constant
mode removed (:func:`grf_periodic_1d`). The Neural Spectral Methods inputs follow the
periodic kernel ``k(d) = exp(-sum_i sin^2(pi d_i) / (2 l^2))`` at the nodes ``j / n`` of a
uniform grid (:func:`sample_periodic_kernel_grf`); the field between the nodes is their
band-limited trigonometric interpolant (:func:`fourier_upsample`). Other 2-D fields live
with their solvers:
:mod:`pderepro.solvers.navier_stokes.torus` (Navier-Stokes, periodic) and
:mod:`pderepro.solvers.elliptic.darcy` (zero-Neumann cosine series).
"""

from __future__ import annotations

import logging

import numpy as np

logger = logging.getLogger(__name__)


def grf_eigenvalues_1d(
    n_modes: int, *, scale: float = 625.0, shift: float = 25.0, exponent: float = 2.0
) -> np.ndarray:
    """Covariance eigenvalues of the periodic 1-D Gaussian random field.

    Parameters
    ----------
    n_modes : int
        Number of Fourier modes ``k = 1, ..., n_modes``.
    scale, shift, exponent : float
        Covariance ``scale * ((2 pi k)^2 + shift)^(-exponent)``; ``shift`` has units of
        1/length^2 on the unit domain.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_modes,)``, eigenvalue ``lambda_k`` for ``k = 1..n_modes`` (units of u^2).
    """
    k = np.arange(1, n_modes + 1, dtype=np.float64)
    return scale * ((2.0 * np.pi * k) ** 2 + shift) ** (-exponent)


def grf_periodic_1d(
    n_samples: int,
    resolution: int,
    *,
    rng: np.random.Generator,
    scale: float = 625.0,
    shift: float = 25.0,
    exponent: float = 2.0,
) -> np.ndarray:
    """Draw zero-mean periodic Gaussian random fields on the grid ``x_j = j / resolution``.

    Uses the real Karhunen-Loeve expansion
    ``u(x) = sum_{k>=1} sqrt(2 lambda_k) (a_k cos 2 pi k x + b_k sin 2 pi k x)`` with
    ``a_k, b_k ~ N(0, 1)`` iid, truncated at the grid's resolvable modes
    ``k = 1..(resolution - 1) // 2`` (the Nyquist mode is left at zero), evaluated with
    ``numpy.fft.irfft``. The pointwise variance is ``2 * sum_k lambda_k``.

    Parameters
    ----------
    n_samples : int
        Number of independent fields.
    resolution : int
        Number of grid points on [0, 1).
    rng : numpy.random.Generator
        Source of randomness; draws are made with numpy so a given generator state yields
        identical fields on every device and platform.
    scale, shift, exponent : float
        Covariance parameters, see :func:`grf_eigenvalues_1d`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_samples, resolution)``, float64.
    """
    if n_samples < 0:
        raise ValueError(f"n_samples must be non-negative, got {n_samples}")
    if resolution < 2:
        raise ValueError(f"resolution must be at least 2, got {resolution}")
    if scale <= 0 or exponent <= 0:
        raise ValueError(f"scale and exponent must be positive, got {scale}, {exponent}")
    n_modes = (resolution - 1) // 2
    if shift + (2.0 * np.pi) ** 2 <= 0:
        raise ValueError(f"shift={shift} makes the covariance operator non-positive")
    lam = grf_eigenvalues_1d(n_modes, scale=scale, shift=shift, exponent=exponent)
    a = rng.standard_normal((n_samples, n_modes))
    b = rng.standard_normal((n_samples, n_modes))
    coeffs = np.zeros((n_samples, resolution // 2 + 1), dtype=np.complex128)
    # irfft(c)[j] = (2/n) Re sum_k c_k e^{2 pi i k j/n}; the factor n/2 cancels that scaling,
    # and (a - i b) e^{i theta} has real part a cos(theta) + b sin(theta).
    coeffs[:, 1 : n_modes + 1] = 0.5 * resolution * np.sqrt(2.0 * lam) * (a - 1j * b)
    return np.fft.irfft(coeffs, n=resolution, axis=-1)


def periodic_kernel_eigenvalues(n_nodes: int, length: float, ndim: int) -> np.ndarray:
    """Eigenvalues of the periodic kernel's covariance matrix at the nodes ``j / n_nodes``.

    The kernel ``k(d) = exp(-sum_i sin^2(pi d_i) / (2 length^2))`` is a product over axes,
    and at uniform nodes on the torus its matrix is (block-)circulant, so its eigenvectors
    are the discrete Fourier modes and its eigenvalues the DFT of one row: the outer
    product of the 1-D DFTs over the axes.

    Parameters
    ----------
    n_nodes : int
        Nodes per axis.
    length : float
        Kernel length ``l`` (length units, the domain is [0, 1)); the kernel is the standard
        periodic kernel of length ``2 l``.
    ndim : int
        1 or 2 axes.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_nodes,) * ndim`` in ``numpy.fft.fftfreq`` order, float64, >= 0 (round-off
        negatives clipped; units of the field squared, the kernel's variance being 1).
    """
    if n_nodes < 1 or ndim not in (1, 2):
        raise ValueError(f"need n_nodes >= 1 and ndim in (1, 2), got {n_nodes}, {ndim}")
    if not length > 0:
        raise ValueError(f"length must be positive, got {length}")
    d = np.arange(n_nodes) / n_nodes
    row = np.exp(-(np.sin(np.pi * d) ** 2) / (2.0 * length**2))  # (n,)
    lam = np.clip(np.fft.fft(row).real, 0.0, None)  # symmetric row: real spectrum
    return lam if ndim == 1 else np.multiply.outer(lam, lam)


def sample_periodic_kernel_grf(
    n_samples: int, n_nodes: int, *, length: float, ndim: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw Gaussian random fields of the periodic kernel at the nodes ``j / n_nodes``.

    ``x = F^{-1} diag(sqrt(lambda)) F z`` with ``z`` white noise and ``lambda``
    :func:`periodic_kernel_eigenvalues`: covariance exactly the kernel matrix (the law of
    a draw through its eigen- or singular-value decomposition), zero mean.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_samples, n_nodes)`` or ``(n_samples, n_nodes, n_nodes)``, float64.
    """
    if n_samples < 0:
        raise ValueError(f"n_samples must be non-negative, got {n_samples}")
    root = np.sqrt(periodic_kernel_eigenvalues(n_nodes, length, ndim))
    axes = tuple(range(-ndim, 0))
    z = rng.standard_normal((n_samples,) + (n_nodes,) * ndim)
    return np.fft.ifftn(root * np.fft.fftn(z, axes=axes), axes=axes).real


def _resample_axis(values: np.ndarray, n: int, axis: int) -> np.ndarray:
    """The trigonometric interpolant of ``values`` along ``axis`` at ``j / n``.

    The interpolant keeps modes ``|k| < m / 2`` and, for even ``m``, the Nyquist mode as
    ``c cos(pi m x)`` (what the grid values determine)."""
    m = values.shape[axis]
    if n == m:
        return values
    if n < m and m % n == 0:  # the interpolant at a subset of the nodes: the nodes' values
        return np.take(values, np.arange(0, m, m // n), axis=axis)
    c = np.moveaxis(np.fft.fft(values, axis=axis), axis, -1) / m  # (..., m)
    k = np.fft.fftfreq(m, d=1.0 / m)  # integer wavenumbers
    weight = np.ones(m)
    if m % 2 == 0:
        weight[m // 2] = 0.5  # the Nyquist mode split into +-m/2, as a cosine
    if n > m:
        padded = np.zeros(c.shape[:-1] + (n,), dtype=complex)
        keep = k.astype(int)
        padded[..., keep] += c * weight
        if m % 2 == 0:  # fftfreq puts the Nyquist mode at -m/2; its other half at +m/2
            padded[..., m // 2] += c[..., m // 2] * 0.5
        out = np.fft.ifft(padded, axis=-1).real * n
    else:  # an arbitrary coarser grid: evaluate the interpolant directly
        x = np.arange(n) / n
        basis = np.exp(2j * np.pi * np.outer(k, x)) * weight[:, None]  # (m, n)
        if m % 2 == 0:
            basis[m // 2] = np.cos(np.pi * m * x)
        out = (c @ basis).real
    return np.moveaxis(out, -1, axis)


def fourier_upsample(values: np.ndarray, n: int, ndim: int | None = None) -> np.ndarray:
    """Band-limited trigonometric interpolant of periodic node values on the n-point grid.

    Parameters
    ----------
    values : numpy.ndarray
        Values at ``j / m`` along each of the last ``ndim`` axes.
    n : int
        Points per axis of the output grid ``j / n`` (finer, equal, or coarser).
    ndim : int, optional
        Number of trailing axes to resample; default 2 for arrays with at least 3
        dimensions, else 1 (a ``(sample, x)`` or ``(sample, y, x)`` batch).

    Returns
    -------
    numpy.ndarray
        The interpolant at ``j / n`` on each resampled axis, float64.
    """
    values = np.asarray(values, dtype=np.float64)
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    if ndim is None:
        ndim = 2 if values.ndim >= 3 else 1
    for axis in range(-ndim, 0):
        values = _resample_axis(values, n, axis)
    return values
