"""A distance between sets of fields that sees their spatial structure.

The energy distance of :mod:`pderepro.evaluation.generative_metrics` compares whole fields
by Euclidean distances, whose expectation over pairs depends on the pixels' variances
but hardly on their correlations in many dimensions: independent pixels with the right
means and variances (the pixelwise Gaussian) score as well as real fields. Between the
fields' forward differences the same distance separates them, since a two-valued
permeability and a smooth pressure have sparse, small differences where independent pixels
have large ones everywhere.

:func:`sample_statistics` reduces each field to a few numbers per channel (its spatial
mean, variance, and the power in log-spaced wavenumber shells), and
:func:`statistics_distance` compares the distributions of those numbers over two sets, one
Wasserstein-1 distance per statistic in units of the reference's spread of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.stats

from pderepro.evaluation.generative_metrics import normalised_energy_distance


def gradient_fields(x: np.ndarray) -> np.ndarray:
    """Forward differences of ``(n, C, H, W)`` fields along both axes, ``(n, 2C, H-1, W-1)``
    (the fields' units per grid spacing; channel ``2c`` along axis -2, ``2c + 1`` along -1)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 4 or min(x.shape[-2:]) < 2:
        raise ValueError(f"expected (n, C, H, W) fields with H, W >= 2, got {x.shape}")
    along_h = np.diff(x, axis=-2)[..., :, :-1]  # (n, C, H-1, W-1)
    along_w = np.diff(x, axis=-1)[..., :-1, :]  # (n, C, H-1, W-1)
    return np.stack([along_h, along_w], axis=2).reshape(x.shape[0], -1, *along_h.shape[-2:])


def structure_distance(samples: np.ndarray, reference: np.ndarray) -> float:
    """Normalised energy distance (dimensionless, 0 for one distribution) between the
    forward differences of two sets of ``(n, C, H, W)`` fields, each difference channel
    divided by the reference's standard deviation of it (so every field weighs alike)."""
    a, b = gradient_fields(samples), gradient_fields(reference)
    scale = b.std(axis=(0, 2, 3))  # (2C,)
    if not np.all(scale > 0):
        raise ValueError("a reference difference channel is constant")
    scale = scale[None, :, None, None]
    return normalised_energy_distance(a / scale, b / scale)


#: Lower bound of a shell's mean power before its log10 (the smallest normal float64,
#: log10 about -307.7): a field with no power in a shell, e.g. a constant one, gets a
#: finite, very small value rather than ``-inf``.
POWER_FLOOR = float(np.finfo(np.float64).tiny)


def spectrum_shells(bins: int = 4) -> tuple[tuple[float, float], ...]:
    """The log-spaced wavenumber shells of :func:`sample_statistics`.

    Shell ``b`` is ``[2^b, 2^(b+1))`` for ``b < bins - 1`` and the last is
    ``[2^(bins-1), inf)``: for ``bins = 4``, ``[1, 2), [2, 4), [4, 8), [8, inf)``, in cycles
    per field length (integer wavenumbers of the discrete Fourier transform).
    """
    if int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be an integer >= 1, got {bins!r}")
    edges = [2.0**b for b in range(int(bins))] + [np.inf]
    return tuple(zip(edges[:-1], edges[1:], strict=True))


def sample_statistics(
    x: np.ndarray, channels: Sequence[str] = ("K", "p"), bins: int = 4
) -> dict[str, np.ndarray]:
    """Per-sample summary statistics of each channel: spatial mean, variance and spectrum.

    For sample ``i`` and channel ``c`` with values ``x[i, c]`` on an ``H x W`` grid:

    * ``mean_<c>``: the mean over the ``H W`` pixels (the channel's units);
    * ``var_<c>``: the population variance over the pixels, ``ddof = 0`` (units squared);
    * ``spectrum<b>_<c>`` for ``b = 0 .. bins - 1``: ``log10`` of the mean power of the
      mean-removed field over the modes of shell ``b`` of :func:`spectrum_shells`
      (``log10`` of units squared). The power of mode ``(kx, ky)`` is
      ``|F(kx, ky)|^2 / (H W)^2`` with ``F`` the 2-D FFT (:func:`numpy.fft.fft2`) and
      ``kx, ky`` the integer wavenumbers (:func:`numpy.fft.fftfreq` times ``H``, ``W``), so
      by Parseval the powers of all modes ``|k| >= 1`` sum to ``var_<c>``; a mode is in a
      shell by ``|k| = sqrt(kx^2 + ky^2)``. The FFT treats the field as periodic, so a jump
      between opposite edges (of a permeability, say; a pressure with ``p = 0`` on the
      boundary has none) adds power to every shell: the statistic compares sets of fields
      on one grid, it is not the physical spectrum. A shell's mean power is floored at
      :data:`POWER_FLOOR` before the logarithm.

    Parameters
    ----------
    x : numpy.ndarray
        Shape ``(n, C, H, W)``: ``n`` fields of ``C`` channels, finite.
    channels : sequence of str
        ``C`` names of the channels, in array order (physical units are the caller's).
    bins : int
        Number of wavenumber shells, ``>= 1``; every shell must hold a mode of the grid
        (``bins = 4`` needs ``max |k| >= 8``, e.g. ``H = W >= 12``).

    Returns
    -------
    dict of str to numpy.ndarray
        Each value ``(n,)`` float64; keys per channel in array order: ``mean_<c>``,
        ``var_<c>``, ``spectrum0_<c>`` ... ``spectrum<bins-1>_<c>``.

    Raises
    ------
    ValueError
        On a bad shape, non-finite values, a channel-name count other than ``C``, or an
        empty shell.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 4 or len(x) < 1:
        raise ValueError(f"expected (n, C, H, W) fields with n >= 1, got {x.shape}")
    if len(channels) != x.shape[1]:
        raise ValueError(f"need {x.shape[1]} channel names, got {list(channels)}")
    if not np.isfinite(x).all():
        raise ValueError(f"fields {x.shape} hold non-finite values")
    h, w = x.shape[-2:]
    kx = np.fft.fftfreq(h, d=1.0 / h)[:, None]  # (H, 1): integer wavenumbers
    ky = np.fft.fftfreq(w, d=1.0 / w)[None, :]  # (1, W)
    radius = np.sqrt(kx**2 + ky**2)  # (H, W)
    shells = [(radius >= lo) & (radius < hi) for lo, hi in spectrum_shells(bins)]
    empty = [b for b, shell in enumerate(shells) if not shell.any()]
    if empty:
        raise ValueError(
            f"shells {empty} of {spectrum_shells(bins)} hold no mode of a {h}x{w} grid "
            f"(max |k| = {radius.max():.2f}); use fewer bins"
        )
    mean = x.mean(axis=(-2, -1))  # (n, C)
    var = x.var(axis=(-2, -1))  # (n, C)
    power = np.abs(np.fft.fft2(x - mean[..., None, None])) ** 2 / (h * w) ** 2  # (n, C, H, W)
    stats: dict[str, np.ndarray] = {}
    for c, name in enumerate(channels):
        stats[f"mean_{name}"] = mean[:, c]
        stats[f"var_{name}"] = var[:, c]
        for b, shell in enumerate(shells):
            shell_power = power[:, c][:, shell].mean(axis=-1)  # (n,)
            stats[f"spectrum{b}_{name}"] = np.log10(np.maximum(shell_power, POWER_FLOOR))
    return stats


def statistics_distance(
    samples: np.ndarray,
    reference: np.ndarray,
    channels: Sequence[str] = ("K", "p"),
    bins: int = 4,
) -> dict[str, float]:
    """Wasserstein-1 distances of the distributions of :func:`sample_statistics`.

    Each statistic takes one value per field, so a set of fields gives a 1-D empirical
    distribution of it; the distance between the samples' and the reference's is
    :func:`scipy.stats.wasserstein_distance`, divided by the reference's standard deviation
    of that statistic (``ddof = 1``), so it is dimensionless and statistics compare: a
    shift of every sample's value by ``d`` gives ``d / std``. Two finite sets from one
    distribution give a positive value that shrinks as ``n^(-1/2)``; judge it against the
    same distance between two reference sets.

    Parameters
    ----------
    samples, reference : numpy.ndarray
        Shapes ``(n_a, C, H, W)`` and ``(n_b, C, H, W)``, ``n_a, n_b >= 2``: generated and
        held-out fields on one grid (physical units).
    channels, bins
        As in :func:`sample_statistics`.

    Returns
    -------
    dict of str to float
        ``w1_<statistic>`` for every key of :func:`sample_statistics` (dimensionless), in
        its order, then ``statistics_w1``, their mean.

    Raises
    ------
    ValueError
        On bad or unequal shapes, fewer than 2 fields in a set, or a statistic constant over
        the reference (e.g. the spatial mean of a channel fixed by a boundary condition).
    """
    samples, reference = np.asarray(samples), np.asarray(reference)
    if samples.ndim != 4 or samples.shape[1:] != reference.shape[1:]:
        raise ValueError(f"samples {samples.shape} and reference {reference.shape} differ")
    if min(len(samples), len(reference)) < 2:
        raise ValueError("need at least 2 fields in each set")
    a = sample_statistics(samples, channels, bins)
    b = sample_statistics(reference, channels, bins)
    out: dict[str, float] = {}
    for name, ref in b.items():
        scale = ref.std(ddof=1)
        if not scale > 0:
            raise ValueError(f"statistic {name!r} is constant over the reference")
        out[f"w1_{name}"] = float(scipy.stats.wasserstein_distance(a[name], ref) / scale)
    out["statistics_w1"] = float(np.mean(list(out.values())))
    return out
