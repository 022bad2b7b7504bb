"""Errors of predicted trajectories (PDEBench's metrics), over predicted frames only.

A rollout starts from ``context`` true frames; those are inputs, not predictions, and are
never scored (PDEBench issue 41: counting them flatters a model). Fields are 1-D,
periodic, ``(sample, time, x)``.
"""

from __future__ import annotations

import numpy as np

#: Fourier bands of the band RMSEs (PDEBench): low modes < 4, mid 4..12, high > 12.
BANDS = {"low": (0, 4), "mid": (4, 13), "high": (13, None)}


def _check(pred: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pred = np.asarray(pred, dtype=np.float64)
    true = np.asarray(true, dtype=np.float64)
    if pred.shape != true.shape or pred.ndim != 3:
        raise ValueError(
            f"predictions {pred.shape} and truth {true.shape} must both be (sample, time, x)"
        )
    if pred.shape[1] == 0:
        raise ValueError("no predicted frames to score")
    return pred, true


def nrmse(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Normalised RMSE of each sample over its predicted frames and space.

    Parameters
    ----------
    pred, true : numpy.ndarray
        ``(sample, time, x)``: the predicted frames only (the context removed).

    Returns
    -------
    numpy.ndarray
        ``(sample,)``: ``||pred - true||_2 / ||true||_2`` over time and space
        (dimensionless).
    """
    pred, true = _check(pred, true)
    diff = np.linalg.norm((pred - true).reshape(len(pred), -1), axis=1)
    return diff / np.linalg.norm(true.reshape(len(true), -1), axis=1)


def nrmse_per_step(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Normalised RMSE of each sample at each predicted frame.

    Returns
    -------
    numpy.ndarray
        ``(sample, time)``: ``||pred_k - true_k||_2 / ||true_k||_2`` over space.
    """
    pred, true = _check(pred, true)
    return np.linalg.norm(pred - true, axis=2) / np.linalg.norm(true, axis=2)


def band_rmse(pred: np.ndarray, true: np.ndarray) -> dict[str, np.ndarray]:
    """RMSE of each sample's error in the Fourier bands of :data:`BANDS`.

    The error's discrete Fourier coefficients over x, normalised so that Parseval holds
    (the squares of all bands sum to the mean square error over x), are split by
    wavenumber; each band's RMSE is taken over the predicted frames.

    Returns
    -------
    dict of numpy.ndarray
        ``{band: (sample,)}`` in the units of the field.
    """
    pred, true = _check(pred, true)
    n = pred.shape[-1]
    coeffs = np.fft.rfft(pred - true, axis=-1) / n  # (sample, time, n // 2 + 1)
    power = np.abs(coeffs) ** 2
    power[..., 1 : (n + 1) // 2] *= 2  # the negative wavenumbers' half of the power
    out = {}
    for band, (first, last) in BANDS.items():
        mean_square = power[..., first:last].sum(axis=-1)  # (sample, time)
        out[band] = np.sqrt(mean_square.mean(axis=1))
    return out
