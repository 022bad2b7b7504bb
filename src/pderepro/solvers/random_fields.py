"""Gaussian random fields on the periodic unit interval (Burgers initial conditions).

The field follows the covariance ``scale * (-Delta + shift * I)^(-exponent)`` on the unit
circle [0, 1) with the constant mode removed. The 2-D fields live with their solvers:
:mod:`pderepro.solvers.torus` (Navier-Stokes, periodic) and :mod:`pderepro.solvers.darcy`
(zero-Neumann cosine series).
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
