"""Climate statistics of Lorenz-96 runs, and distances between them.

Conventions (also written into the online table's notes):

- PDFs of ``X`` are histograms on fixed bins shared by every run of a study; ``p_i`` is
  the probability mass of bin i.
- Hellinger distance ``H = sqrt(1/2 sum_i (sqrt p_i - sqrt q_i)^2)``, in [0, 1]: the
  form with the square root (Gagne et al. 2020 report ``H^2``).
- KL divergence ``KL(truth || model) = sum_i p_i log(p_i / max(q_i, floor))`` over the
  bins where the truth has mass, with ``floor`` a small probability so that a model
  that never visits a bin gives a large, finite value.
- Wasserstein-1 between the samples (scipy), in units of ``X``.
- Autocorrelation of ``X_k`` (anomalies from the run's mean), averaged over k and
  members; ``acf_rmse`` is the RMS difference of two such curves over the lags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import wasserstein_distance

#: Probability floor of the model PDF in the KL divergence.
KL_FLOOR = 1e-6


def histogram_edges(pdf: Mapping[str, Any]) -> np.ndarray:
    """Bin edges ``(bins + 1,)`` of a study's ``online.pdf`` setting (``low``, ``high``,
    ``bins``), shared by every run the study scores."""
    return np.linspace(pdf["low"], pdf["high"], pdf["bins"] + 1)


def histogram_pdf(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Probability mass per bin of the finite entries of ``values``.

    Parameters
    ----------
    values : numpy.ndarray
        Samples of any shape; NaN (blown-up states) are ignored.
    edges : numpy.ndarray
        Bin edges ``(n_bins + 1,)``; values outside fall in no bin but count in the total,
        so mass outside the range lowers every ``p_i``.

    Returns
    -------
    numpy.ndarray
        ``(n_bins,)``, summing to at most 1; all NaN when no finite value exists.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        return np.full(len(edges) - 1, np.nan)
    counts, _ = np.histogram(v, bins=edges)
    return counts / v.size


def hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """Hellinger distance between two probability-mass vectors (in [0, 1])."""
    return float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))


def kl_divergence(p: np.ndarray, q: np.ndarray, *, floor: float = KL_FLOOR) -> float:
    """``KL(p || q)`` over the bins where ``p > 0``, with ``q`` floored (nats)."""
    mask = p > 0
    return float(np.sum(p[mask] * np.log(p[mask] / np.maximum(q[mask], floor))))


def wasserstein(a: np.ndarray, b: np.ndarray) -> float:
    """Wasserstein-1 distance between the finite samples of ``a`` and ``b`` (units of X)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size == 0 or b.size == 0:
        return float("nan")
    return float(wasserstein_distance(a, b))


def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Autocorrelation of ``X_k`` at lags ``0 .. max_lag`` saved steps.

    Parameters
    ----------
    x : numpy.ndarray
        ``(member, time, K)``; members with any NaN (blown up) are left out.
    max_lag : int
        Largest lag (in saved steps); must be below the run length.

    Returns
    -------
    numpy.ndarray
        ``(max_lag + 1,)``, 1 at lag 0; all NaN when no member is complete.
    """
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x).all(axis=(1, 2))]
    if len(x) == 0:
        return np.full(max_lag + 1, np.nan)
    n = x.shape[1]
    if max_lag >= n:
        raise ValueError(f"max_lag={max_lag} needs runs longer than {n} saved steps")
    anomaly = x - x.mean()
    size = 1 << (2 * n - 1).bit_length()  # zero-padded: linear, not circular, correlation
    spectrum = np.fft.rfft(anomaly, n=size, axis=1)
    lagged = np.fft.irfft(spectrum * spectrum.conj(), n=size, axis=1)[:, : max_lag + 1]
    lagged = lagged.mean(axis=(0, 2)) / (n - np.arange(max_lag + 1))  # unbiased per lag
    return lagged / lagged[0]


def climate_distances(
    model: np.ndarray, truth: np.ndarray, *, edges: np.ndarray, max_lag: int
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """All climate metrics of a run against a truth run, and the curves behind them.

    Parameters
    ----------
    model, truth : numpy.ndarray
        ``(member, time, K)`` states at equal save intervals.
    edges : numpy.ndarray
        Histogram bin edges.
    max_lag : int
        Largest autocorrelation lag (saved steps).

    Returns
    -------
    (dict, dict)
        Metrics ``hellinger, kl, wasserstein, acf_rmse`` and curves ``pdf`` (model),
        ``pdf_truth``, ``acf`` (model), ``acf_truth``.
    """
    p, q = histogram_pdf(truth, edges), histogram_pdf(model, edges)
    acf_truth, acf = autocorrelation(truth, max_lag), autocorrelation(model, max_lag)
    metrics = {
        "hellinger": hellinger(p, q),
        "kl": kl_divergence(p, q),
        "wasserstein": wasserstein(model, truth),
        "acf_rmse": float(np.sqrt(np.mean((acf - acf_truth) ** 2))),
    }
    curves = {"pdf": q, "pdf_truth": p, "acf": acf, "acf_truth": acf_truth}
    return metrics, curves
