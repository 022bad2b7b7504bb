"""Uncertainty of a table's errors: 95% bootstrap intervals over test samples.

A table row's error is the mean over training seeds of each seed's mean over the test
samples. Every seed is scored on the same test samples, so that number is also the mean
over samples of the seed-averaged per-sample errors; resampling the test samples (the
same draw for every seed) is resampling that vector. The interval therefore says how
much the row could move with another test set of the same size, not with other seeds
(the ``_std`` column says that).
"""

from __future__ import annotations

import numpy as np
import scipy.stats

#: Coverage of the intervals in the tables.
CONFIDENCE_LEVEL = 0.95
#: Bootstrap resamples per interval (a percentile interval's ends move by well under
#: 1% of its width between draws at this count).
N_RESAMPLES = 4000
#: Seed of the resampling, so that a table is reproduced exactly.
BOOTSTRAP_SEED = 0


def bootstrap_interval(per_sample: np.ndarray) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-sample errors.

    Parameters
    ----------
    per_sample : numpy.ndarray
        ``(n_samples,)`` error of each test sample (averaged over seeds where there are
        several), dimensionless.

    Returns
    -------
    tuple of float
        ``(low, high)`` at :data:`CONFIDENCE_LEVEL`; both NaN with fewer than two samples
        (no interval can be drawn from one).
    """
    values = np.asarray(per_sample, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"per_sample must be one-dimensional, got shape {values.shape}")
    if len(values) < 2:
        return float("nan"), float("nan")
    if np.ptp(values) == 0:  # every resample has the same mean
        return float(values[0]), float(values[0])
    result = scipy.stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=CONFIDENCE_LEVEL,
        n_resamples=N_RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def paired_ratio_interval(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(numerator) / mean(denominator)`` with the
    test samples resampled in pairs (both errors of one sample move together).

    Parameters
    ----------
    numerator, denominator : numpy.ndarray
        ``(n_samples,)`` per-sample errors of the same test samples, dimensionless.

    Returns
    -------
    tuple of float
        ``(low, high)`` at :data:`CONFIDENCE_LEVEL`; NaN with fewer than two samples.
    """
    top, bottom = np.asarray(numerator, np.float64), np.asarray(denominator, np.float64)
    if top.shape != bottom.shape or top.ndim != 1:
        raise ValueError(f"paired samples need equal 1-D shapes, got {top.shape}, {bottom.shape}")
    if len(top) < 2:
        return float("nan"), float("nan")
    result = scipy.stats.bootstrap(
        (top, bottom),
        lambda a, b, axis=-1: np.mean(a, axis=axis) / np.mean(b, axis=axis),
        paired=True,
        vectorized=True,
        confidence_level=CONFIDENCE_LEVEL,
        n_resamples=N_RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
