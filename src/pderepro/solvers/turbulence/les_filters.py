"""LES filters, coarse-graining and the exact subgrid term of 2-D vorticity on a periodic box.

Conventions (shared with :mod:`pderepro.solvers.navier_stokes.navier_stokes`): fields are real
tensors ``w[..., i, j] = w(x_i, y_j)`` on ``[0, L)^2`` with ``n`` points per side, ``rfft2`` layout,
integer wavenumbers ``k`` and angular wavenumbers ``kappa = 2 pi k / L``.

Filters. The LES grid has ``n_les`` points per side and the filter width is the LES grid
spacing, ``Delta = L / n_les``. Two filters, both diagonal in Fourier space:

- ``"sharp"``: the spectral cutoff ``kappa_c = pi / Delta``, i.e. keep ``|k_x| < n_les / 2``
  and ``|k_y| < n_les / 2`` (a square in k, excluding the LES grid's Nyquist modes, so that a
  filtered field is exactly representable on the LES grid). It is an orthogonal projection.
- ``"gaussian"``: transfer ``G(kappa) = exp(-|kappa|^2 Delta^2 / 24)`` (the Gaussian kernel of
  variance ``Delta^2 / 12``, Pope 2000, Table 13.2); since ``kappa Delta = 2 pi k / n_les`` it
  depends on ``k / n_les`` only.

Coarse-graining (:func:`coarse_grain`) filters on the fine grid and then truncates the spectrum
to the modes ``|k_x|, |k_y| < n_les / 2`` of the LES grid; for the sharp filter truncation alone
is the same thing.

Subgrid term. Filtering ``w_t + u . grad w = nu Lap w - mu w + f`` (the beta term is linear and
commutes with the filter) gives::

    wbar_t + N_les(wbar) = nu Lap wbar - mu wbar + fbar - Pi,
    Pi = trunc(filter(N(w))) - N_les(wbar),

where ``N(w) = u . grad w`` is the DNS's dealiased advection, ``trunc`` keeps the LES grid's
modes and ``N_les`` is the advection *as the LES computes it*: on the LES grid, from ``wbar`` =
``trunc(filter(w))``, dealiased by the 2/3 rule of that grid
(:class:`~pderepro.solvers.turbulence.les.LesStepper`). So ``Pi`` is the term that closes the
discrete LES exactly on the modes it advects; it also carries the interactions with the band
``n_les / 3 <= |k| < n_les / 2`` that the LES grid holds but does not advect (an earlier definition,
``filter(N(w)) - N(filter(w))`` on the DNS grid, missed those, and for the Gaussian filter used
modes above the LES cutoff). ``Pi`` enters like the advection term: ``Pi > 0`` where subgrid scales
remove vorticity.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from pderepro.solvers.navier_stokes.torus import dealias_mask, wavenumbers

__all__ = [
    "FILTER_KINDS",
    "advected_part",
    "advection",
    "angular_wavenumbers",
    "apply_filter",
    "coarse_grain",
    "filter_transfer",
    "filter_width",
    "filtered_pair",
    "pad_spectrum",
    "streamfunction",
    "subgrid_term",
    "truncate_spectrum",
]

#: Filters known to :func:`filter_transfer`.
FILTER_KINDS = ("sharp", "gaussian")


def filter_width(box_size: float, n_les: int) -> float:
    """Filter width ``Delta = L / n_les`` (length): the LES grid spacing."""
    return box_size / n_les


@lru_cache(maxsize=64)
def _transfer_np(kind: str, n: int, n_les: int) -> np.ndarray:
    kx, ky = wavenumbers(n)  # (n, 1), (1, n // 2 + 1)
    if kind == "sharp":
        return ((np.abs(kx) < n_les / 2) & (np.abs(ky) < n_les / 2)).astype(np.float64)
    if kind == "gaussian":
        # kappa^2 Delta^2 = (2 pi k / L)^2 (L / n_les)^2: L drops out
        return np.exp(-((2.0 * np.pi / n_les) ** 2) * (kx**2 + ky**2) / 24.0)
    raise ValueError(f"filter kind must be one of {FILTER_KINDS}, got {kind!r}")


def filter_transfer(kind: str, n: int, n_les: int) -> np.ndarray:
    """Transfer function of a filter of width ``L / n_les`` on an ``n``-point grid.

    Parameters
    ----------
    kind : str
        ``"sharp"`` or ``"gaussian"`` (see the module docstring).
    n, n_les : int
        Points per side of the grid the field lives on and of the LES grid (``n_les <= n``).

    Returns
    -------
    numpy.ndarray
        ``(n, n // 2 + 1)`` real factors in ``[0, 1]`` (``rfft2`` layout).
    """
    return _checked_transfer(kind, n, n_les).copy()  # the cached array stays unmodified


def _checked_transfer(kind: str, n: int, n_les: int) -> np.ndarray:
    if not 2 <= n_les <= n:
        raise ValueError(f"need 2 <= n_les <= n, got n_les={n_les}, n={n}")
    if n_les % 2:
        # an odd grid's sharp cutoff would keep modes that truncation to it drops
        raise ValueError(f"n_les must be even, got {n_les}")
    return _transfer_np(kind, n, n_les)


@lru_cache(maxsize=64)
def _angular_np(n: int, box_size: float) -> tuple[np.ndarray, np.ndarray]:
    kx, ky = wavenumbers(n)
    kx, ky = kx.copy(), ky.copy()
    # Nyquist wavenumbers set to 0: their derivative is not real on the grid, and with them
    # zeroed the spectral derivative is skew-adjoint (summation by parts holds exactly).
    kx[n // 2, 0] = 0.0
    ky[0, n // 2] = 0.0
    return 2.0 * np.pi / box_size * kx, 2.0 * np.pi / box_size * ky


def angular_wavenumbers(
    n: int, box_size: float, *, device: torch.device | str = "cpu", dtype=torch.float64
) -> tuple[torch.Tensor, torch.Tensor]:
    """Angular wavenumbers ``kappa = 2 pi k / L`` (1/length) for spectral derivatives.

    Returns ``kappa_x`` of shape ``(n, 1)`` and ``kappa_y`` of shape ``(1, n // 2 + 1)``
    (``rfft2`` layout) with the Nyquist wavenumbers set to 0.
    """
    kx, ky = _angular_np(n, float(box_size))
    # copies: torch.as_tensor would share memory with the cached arrays on the CPU
    return (
        torch.tensor(kx, device=device, dtype=dtype),
        torch.tensor(ky, device=device, dtype=dtype),
    )


def _spectral(values: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    # a copy: torch must not alias the cached numpy arrays
    return torch.tensor(values, device=like.device, dtype=like.real.dtype)


def apply_filter(w: torch.Tensor, kind: str, n_les: int) -> torch.Tensor:
    """Filter ``w`` (..., n, n) with width ``L / n_les``; same shape, same grid."""
    n = w.shape[-1]
    transfer = _spectral(_checked_transfer(kind, n, n_les), w)  # (n, n // 2 + 1)
    return torch.fft.irfft2(torch.fft.rfft2(w) * transfer, s=(n, n))


def truncate_spectrum(w_hat: torch.Tensor, n: int, n_les: int) -> torch.Tensor:
    """Keep the modes ``|k_x|, |k_y| < n_les / 2`` of ``w_hat`` (..., n, n // 2 + 1).

    Returns the ``rfft2`` coefficients of the same field on the ``n_les`` grid,
    ``(..., n_les, n_les // 2 + 1)``, rescaled for the unnormalised transform; the LES grid's
    Nyquist row and column are zero.
    """
    half = n_les // 2
    out = w_hat.new_zeros((*w_hat.shape[:-2], n_les, half + 1))
    scale = (n_les / n) ** 2  # rfft2 sums over n^2 points
    out[..., :half, :half] = w_hat[..., :half, :half] * scale
    out[..., n_les - half + 1 :, :half] = w_hat[..., n - half + 1 :, :half] * scale
    return out


def pad_spectrum(w_hat: torch.Tensor, n_les: int, n: int) -> torch.Tensor:
    """Inverse of :func:`truncate_spectrum` on its range: zero-pad an ``n_les`` spectrum
    (..., n_les, n_les // 2 + 1) to the ``n`` grid (..., n, n // 2 + 1) (spectral interpolation;
    the LES Nyquist modes are dropped)."""
    half = n_les // 2
    out = w_hat.new_zeros((*w_hat.shape[:-2], n, n // 2 + 1))
    scale = (n / n_les) ** 2
    out[..., :half, :half] = w_hat[..., :half, :half] * scale
    out[..., n - half + 1 :, :half] = w_hat[..., n_les - half + 1 :, :half] * scale
    return out


def coarse_grain(w: torch.Tensor, n_les: int, kind: str = "sharp") -> torch.Tensor:
    """Filter a fine field ``w`` (..., n, n) and truncate it to the LES grid (..., n_les, n_les)."""
    n = w.shape[-1]
    w_hat = torch.fft.rfft2(w) * _spectral(_checked_transfer(kind, n, n_les), w)
    return torch.fft.irfft2(truncate_spectrum(w_hat, n, n_les), s=(n_les, n_les))


def advected_part(field: torch.Tensor) -> torch.Tensor:
    """The part of ``field`` (..., n, n) on the modes its grid advects (2/3 rule, ``|k_x|,
    |k_y| < n / 3``): all an LES state holds once its start has decayed, since the LES
    stepper adds neither advection nor ``Pi`` to the band ``n / 3 <= |k| < n / 2``. The
    resolved fields and subgrid terms LES closures are trained and scored on."""
    n = field.shape[-1]
    mask = torch.as_tensor(dealias_mask(n), device=field.device)
    return torch.fft.irfft2(torch.fft.rfft2(field) * mask, s=(n, n))


def advection(w: torch.Tensor, box_size: float) -> torch.Tensor:
    """Dealiased advection term ``u . grad w`` of a vorticity field ``w`` (..., n, n).

    ``u = (psi_y, -psi_x)``, ``-Lap psi = w``; ``w`` is first restricted to the 2/3-rule modes
    ``|k_x|, |k_y| < n / 3`` and the product is truncated to them, so it is alias-free (the
    Galerkin advection of the DNS solver). Units: vorticity / time.
    """
    n = w.shape[-1]
    kx, ky = angular_wavenumbers(n, box_size, device=w.device, dtype=w.dtype)
    mask = _spectral(dealias_mask(n).astype(np.float64), w)  # (n, n // 2 + 1)
    k2 = kx**2 + ky**2
    inv_k2 = torch.where(k2 > 0, 1.0 / torch.where(k2 > 0, k2, 1.0), 0.0)
    w_hat = torch.fft.rfft2(w) * mask
    psi_hat = w_hat * inv_k2
    # (4, ..., n, n // 2 + 1): u, v, w_x, w_y
    parts = torch.stack([1j * ky * psi_hat, -1j * kx * psi_hat, 1j * kx * w_hat, 1j * ky * w_hat])
    u, v, w_x, w_y = torch.fft.irfft2(parts, s=(n, n))
    return torch.fft.irfft2(torch.fft.rfft2(u * w_x + v * w_y) * mask, s=(n, n))


def subgrid_term(w: torch.Tensor, n_les: int, box_size: float, kind: str = "sharp") -> torch.Tensor:
    """Exact subgrid term ``Pi = trunc(filter(N(w))) - N_les(wbar)`` on the LES grid (module
    docstring).

    Parameters
    ----------
    w : torch.Tensor
        DNS vorticity (1/time), ``(..., n, n)``.
    n_les : int
        LES points per side; filter width ``Delta = box_size / n_les``.
    box_size : float
        Box side ``L`` (length).
    kind : str
        ``"sharp"`` or ``"gaussian"``.

    Returns
    -------
    torch.Tensor
        ``(..., n_les, n_les)`` (vorticity / time), with the sign of the module docstring:
        ``wbar_t + ubar . grad wbar = ... - Pi``.
    """
    return filtered_pair(w, n_les, box_size, kind)[1]


def filtered_pair(
    w: torch.Tensor, n_les: int, box_size: float, kind: str = "sharp"
) -> tuple[torch.Tensor, torch.Tensor]:
    """The coarse-grained vorticity and the exact subgrid term, both ``(..., n_les, n_les)``.

    See :func:`coarse_grain` and :func:`subgrid_term`; one call shares the filtered field.
    """
    n = w.shape[-1]
    transfer = _spectral(_checked_transfer(kind, n, n_les), w)  # (n, n // 2 + 1)
    w_hat = torch.fft.rfft2(w) * transfer
    w_les = torch.fft.irfft2(truncate_spectrum(w_hat, n, n_les), s=(n_les, n_les))
    # trunc(filter(N(w))) - N_les(wbar): the resolved advection as the LES computes it
    filtered = torch.fft.rfft2(advection(w, box_size)) * transfer
    filtered = torch.fft.irfft2(truncate_spectrum(filtered, n, n_les), s=(n_les, n_les))
    return w_les, filtered - advection(w_les, box_size)


def streamfunction(w: torch.Tensor, box_size: float) -> torch.Tensor:
    """``psi`` of ``-Lap psi = w`` (zero mean) for ``w`` (..., n, n) on the ``L`` box
    (length^2/time); the LES pairs' ``psi_bar`` and the CNN closure's input."""
    n = w.shape[-1]
    kx, ky = wavenumbers(n)
    kappa2 = (2.0 * np.pi / box_size) ** 2 * (kx**2 + ky**2)
    inv = np.divide(1.0, kappa2, out=np.zeros_like(kappa2), where=kappa2 > 0)
    inv_t = torch.as_tensor(inv, dtype=w.dtype, device=w.device)
    return torch.fft.irfft2(torch.fft.rfft2(w) * inv_t, s=(n, n))
