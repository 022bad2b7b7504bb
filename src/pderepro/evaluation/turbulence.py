"""Statistics of 2-D turbulence: spectra, their log error, vorticity PDFs and their tails.

Conventions:

- Fields are vorticity ``w[..., i, j]`` (1/time) on ``[0, L)^2``, ``n`` points per side; Fourier
  coefficients ``c_k = rfft2(w)_k / n^2`` (``w = sum_k c_k exp(i kappa . x)``), integer
  wavenumbers ``k`` and angular ``kappa = 2 pi k / L``.
- Spectra are shell sums over integer shells ``K = round(|k|)``, ``K = 0 .. round(n / sqrt 2)``,
  normalised so that their sum over shells is the domain mean (Parseval): the enstrophy
  spectrum ``Z_K = 1/2 sum_{shell K} |c_k|^2`` sums to ``1/2 <w^2>``, the energy spectrum
  ``E_K = 1/2 sum_{shell K} |c_k|^2 / |kappa|^2`` (the zero mode has none) to ``1/2 <|u|^2>``
  with ``u`` the velocity of ``-Lap psi = w``. They are per shell, not densities (divide by
  ``2 pi / L`` for a density in ``kappa``).
- Log error of a spectrum against a reference: the mean over the shells ``k_min .. k_max`` of
  ``|ln(E_K / E_ref_K)|`` (natural log; 0 for a perfect match, ``ln 2 = 0.69`` for a factor 2
  everywhere); NaN if any value in the range is not finite (a blown-up run).
- Tails: the tail mass is the fraction of vorticity values beyond ``3 sigma`` from the mean;
  against a reference both are measured with the reference's mean and ``sigma``, and
  ``tail_ratio = tail mass / reference tail mass`` (1 for matching tails).
- PDFs and the Hellinger distance are those of :mod:`pderepro.evaluation.climate`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from pderepro.evaluation.climate import hellinger, histogram_pdf

__all__ = [
    "energy_spectrum",
    "enstrophy_spectrum",
    "pdf_hellinger",
    "spectrum_log_error",
    "tail_mass",
    "tail_ratio",
    "vorticity_pdf",
]


def _numpy(w: torch.Tensor | np.ndarray) -> np.ndarray:
    if isinstance(w, torch.Tensor):
        w = w.detach().cpu().numpy()
    return np.asarray(w, dtype=np.float64)


@lru_cache(maxsize=16)
def _shells(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shell index, rfft2 multiplicity and integer |k|^2 of each mode, all (n, n // 2 + 1)."""
    kx = np.fft.fftfreq(n, d=1.0 / n)[:, None]
    ky = np.arange(n // 2 + 1, dtype=np.float64)[None, :]
    k2 = kx**2 + ky**2
    shell = np.rint(np.sqrt(k2)).astype(np.int64)
    weight = np.full(k2.shape, 2.0)  # each stored k_y > 0 column stands for +-k
    weight[:, 0] = 1.0
    if n % 2 == 0:
        weight[:, n // 2] = 1.0  # the Nyquist column is its own mirror
    return shell, weight, k2


def _shell_sum(w: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """``1/2 sum_{shell} factor |c_k|^2`` of ``w`` (..., n, n) -> (..., n_shells)."""
    n = w.shape[-1]
    if w.shape[-2] != n:
        raise ValueError(f"fields must be square (..., n, n), got {w.shape}")
    shell, weight, _ = _shells(n)
    c = np.fft.rfft2(w) / n**2  # (..., n, n // 2 + 1)
    power = (0.5 * weight * factor * np.abs(c) ** 2).reshape(-1, shell.size)
    n_shells = int(shell.max()) + 1
    out = np.stack([np.bincount(shell.ravel(), weights=row, minlength=n_shells) for row in power])
    return out.reshape(*w.shape[:-2], n_shells)


def enstrophy_spectrum(w: torch.Tensor | np.ndarray) -> np.ndarray:
    """Enstrophy per integer shell, ``(..., n_shells)`` (1/time^2); sums to ``1/2 <w^2>``."""
    w = _numpy(w)
    return _shell_sum(w, np.ones(1))


def energy_spectrum(w: torch.Tensor | np.ndarray, box_size: float) -> np.ndarray:
    """Kinetic energy per integer shell, ``(..., n_shells)`` (length^2/time^2), of the velocity
    of ``w`` (..., n, n) on a box of side ``box_size``; sums to ``1/2 <|u|^2>``."""
    w = _numpy(w)
    _, _, k2 = _shells(w.shape[-1])
    kappa2 = (2.0 * np.pi / box_size) ** 2 * k2
    inv = np.divide(1.0, kappa2, out=np.zeros_like(kappa2), where=kappa2 > 0)
    return _shell_sum(w, inv)


def spectrum_log_error(
    spectrum: np.ndarray, reference: np.ndarray, *, k_min: int = 1, k_max: int | None = None
) -> float:
    """Mean over shells ``k_min .. k_max`` (inclusive) of ``|ln(E / E_ref)|``.

    Parameters
    ----------
    spectrum, reference : numpy.ndarray
        Shell spectra ``(n_shells,)`` (the reference may be longer, e.g. a DNS spectrum).
    k_min, k_max : int
        Resolved range; ``k_max`` defaults to the last shell of ``spectrum``. For an LES on
        ``n_les`` points a natural choice is ``k_max = n_les // 2 - 1``.

    Returns
    -------
    float
        NaN if a value in the range is not finite; ``inf`` if one is zero.
    """
    spectrum, reference = np.asarray(spectrum, np.float64), np.asarray(reference, np.float64)
    if k_max is None:
        k_max = len(spectrum) - 1
    if not 0 <= k_min <= k_max < min(len(spectrum), len(reference)):
        raise ValueError(f"bad shell range {k_min}..{k_max} for spectra of {len(spectrum)}")
    e, r = spectrum[k_min : k_max + 1], reference[k_min : k_max + 1]
    if not (np.isfinite(e).all() and np.isfinite(r).all()):
        return float("nan")
    with np.errstate(divide="ignore"):
        return float(np.mean(np.abs(np.log(e) - np.log(r))))


def vorticity_pdf(
    w: torch.Tensor | np.ndarray, edges: np.ndarray, *, scale: float = 1.0
) -> np.ndarray:
    """Probability mass of ``w / scale`` in the bins ``edges`` (see
    :func:`~pderepro.evaluation.climate.histogram_pdf`; NaN values are ignored)."""
    return histogram_pdf(_numpy(w) / scale, edges)


def pdf_hellinger(
    w: torch.Tensor | np.ndarray, reference: torch.Tensor | np.ndarray, edges: np.ndarray
) -> float:
    """Hellinger distance between the vorticity PDFs of ``w`` and ``reference`` on ``edges``."""
    return hellinger(vorticity_pdf(w, edges), vorticity_pdf(reference, edges))


def tail_mass(
    w: torch.Tensor | np.ndarray, *, mean: float | None = None, sigma: float | None = None,
    n_sigma: float = 3.0,
) -> float:  # fmt: skip
    """Fraction of the finite values of ``w`` with ``|w - mean| > n_sigma sigma``.

    ``mean`` and ``sigma`` default to those of the finite values of ``w``; NaN if none.
    """
    v = _numpy(w).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan")
    mean = float(v.mean()) if mean is None else mean
    sigma = float(v.std()) if sigma is None else sigma
    return float(np.mean(np.abs(v - mean) > n_sigma * sigma))


def tail_ratio(
    w: torch.Tensor | np.ndarray, reference: torch.Tensor | np.ndarray, *, n_sigma: float = 3.0
) -> float:
    """Tail mass of ``w`` over that of ``reference``, both beyond ``n_sigma`` of the reference's
    standard deviation from the reference's mean (NaN if the reference has no tail)."""
    r = _numpy(reference).ravel()
    r = r[np.isfinite(r)]
    mean, sigma = float(r.mean()), float(r.std())
    ref = tail_mass(r, mean=mean, sigma=sigma, n_sigma=n_sigma)
    if not ref > 0:
        return float("nan")
    return tail_mass(w, mean=mean, sigma=sigma, n_sigma=n_sigma) / ref
