"""Errors of predicted trajectories as PDEBench defines them, over predicted frames only.

Definitions follow PDEBench's metrics module (its ``metric_func``; Takamoto et al. 2022,
docs/references.md), the definitions behind its published numbers, for one channel in 1-D.
With ``e = pred - true`` at frame ``t`` of sample ``b`` on ``N`` cells:

* ``RMSE_bt = sqrt(mean_x e^2)`` and ``nRMSE_bt = RMSE_bt / sqrt(mean_x true^2)``: a ratio
  per frame, then averaged over samples and frames. Not ``||e|| / ||true||`` pooled over
  space-time (:func:`pooled_rel_l2`, kept as a separately named column): on a decaying
  truth late frames are small, and the per-frame ratio weights them as much as early ones.
* ``bRMSE_bt = sqrt((e_0^2 + e_{N-1}^2) / 2)``, the two boundary cells.
* ``cRMSE_t = sqrt(mean_b (sum_x e)^2) / N``: the error of the conserved spatial mean,
  root-mean-square over samples.
* ``max_t = max_b max_x |e|``.
* ``fRMSE``: ``F_kt = sqrt(mean_b |rfft_x(e)_k|^2) / N`` (unnormalised rfft, domain length
  1), averaged over the modes of each band: low ``k < 4``, mid ``4 <= k < 12``, high
  ``k >= 12`` (mode 12 is "high").

Each is then averaged over predicted frames. The first three are means over samples of
per-sample values (:func:`nrmse`, :func:`rmse`, :func:`boundary_rmse`: per-sample rows, so
bootstrap intervals apply); the last three are taken over a set of samples at once
(:func:`split_metrics`). PDEBench evaluates those over its loader's batches and averages
the batch values; here the set is the whole test split of one parameter value, stated
wherever they are shown.

A rollout starts from ``context`` true frames; those are inputs, not predictions, and are
never scored (PDEBench issue 41: counting them flatters a model). Fields are 1-D,
periodic, ``(sample, time, x)``.
"""

from __future__ import annotations

import numpy as np

#: PDEBench's Fourier bands of fRMSE over rfft modes k: [first, last) (``None``: to the end).
BANDS = {"low": (0, 4), "mid": (4, 12), "high": (12, None)}
#: Where the nRMSE of every parametric table is defined, for the captions.
NRMSE_SOURCE = (
    "PDEBench's metrics module defines it in metric_func: sqrt(mean_x e^2) / sqrt(mean_x u^2) "
    "per frame, averaged over test trajectories and predicted frames"
)
#: How the PDEBench-protocol table's other metrics are taken, for its captions.
PDEBENCH_METRICS_NOTE = (
    f"{NRMSE_SOURCE}; cRMSE, max error and fRMSE (bands k < 4, 4 <= k < 12, k >= 12) by the "
    "same definitions over each value's whole test split as one batch (PDEBench averages "
    "them over its loader's batches); rel_l2_pooled is ||e|| / ||u|| pooled over space and "
    "time, not PDEBench's."
)
#: Names of the per-sample metrics (:func:`nrmse`, :func:`pooled_rel_l2`, :func:`rmse`,
#: :func:`boundary_rmse`) in metrics files and tables.
SAMPLE_METRICS = ("nrmse", "rel_l2_pooled", "rmse", "brmse")
#: Names of :func:`split_metrics`' values.
SPLIT_METRICS = ("crmse", "max_error", "frmse_low", "frmse_mid", "frmse_high")


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


def _mean_frame_rms(
    pred: np.ndarray, true: np.ndarray, cells: slice | list[int] = slice(None)
) -> np.ndarray:
    """``sqrt(mean_x e^2)`` of ``e = pred - true`` over ``cells`` per frame, averaged over
    frames: ``(sample, time, x)`` to ``(sample,)`` in the units of the field."""
    pred, true = _check(pred, true)
    error = (pred - true)[..., cells]  # (sample, time, cells)
    return np.sqrt(np.mean(error**2, axis=2)).mean(axis=1)


def nrmse_per_step(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """PDEBench's normalised RMSE of each sample at each predicted frame.

    Parameters
    ----------
    pred, true : numpy.ndarray
        ``(sample, time, x)``: the predicted frames only (the context removed).

    Returns
    -------
    numpy.ndarray
        ``(sample, time)``: ``sqrt(mean_x e^2) / sqrt(mean_x true^2)`` (dimensionless).
    """
    pred, true = _check(pred, true)
    return np.linalg.norm(pred - true, axis=2) / np.linalg.norm(true, axis=2)


def nrmse(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """PDEBench's nRMSE of each sample: the per-frame ratio averaged over predicted frames.

    Parameters
    ----------
    pred, true : numpy.ndarray
        ``(sample, time, x)``: the predicted frames only.

    Returns
    -------
    numpy.ndarray
        ``(sample,)`` (dimensionless); its mean over samples is PDEBench's nRMSE.
    """
    return nrmse_per_step(pred, true).mean(axis=1)


def pooled_rel_l2(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """``||pred - true|| / ||true||`` of each sample pooled over predicted frames and space.

    Not PDEBench's nRMSE (see the module docstring); ``(sample,)``, dimensionless.
    """
    pred, true = _check(pred, true)
    diff = np.linalg.norm((pred - true).reshape(len(pred), -1), axis=1)
    return diff / np.linalg.norm(true.reshape(len(true), -1), axis=1)


def rmse(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """PDEBench's RMSE of each sample, ``(sample,)`` in the units of the field:
    ``sqrt(mean_x e^2)`` averaged over frames."""
    return _mean_frame_rms(pred, true)


def boundary_rmse(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """PDEBench's bRMSE of each sample, ``(sample,)`` in the units of the field: the RMSE
    of the first and last cell, averaged over frames."""
    return _mean_frame_rms(pred, true, [0, -1])  # the two end cells


def split_metrics(pred: np.ndarray, true: np.ndarray) -> dict[str, float]:
    """PDEBench's cRMSE, max error and fRMSE bands over a set of samples taken as one batch.

    Parameters
    ----------
    pred, true : numpy.ndarray
        ``(sample, time, x)``: the predicted frames only.

    Returns
    -------
    dict of float
        :data:`SPLIT_METRICS`, each averaged over predicted frames, in the units of the
        field (fRMSE per unit of domain length, which is 1); NaN for a band with no modes
        on the grid (``high`` below 24 cells).
    """
    pred, true = _check(pred, true)
    n = pred.shape[-1]
    error = pred - true  # (sample, time, x)
    conserved = np.sqrt(np.mean(error.sum(axis=2) ** 2, axis=0)) / n  # (time,)
    worst = np.abs(error).max(axis=(0, 2))  # (time,)
    spectrum = np.sqrt(np.mean(np.abs(np.fft.rfft(error, axis=2)) ** 2, axis=0)) / n  # (t, k)
    out = {"crmse": float(conserved.mean()), "max_error": float(worst.mean())}
    for band, (first, last) in BANDS.items():
        modes = spectrum[:, first:last]  # (time, modes in band); none on a coarse grid
        out[f"frmse_{band}"] = float(modes.mean(axis=1).mean()) if modes.size else np.nan
    return out
