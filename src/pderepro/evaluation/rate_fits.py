"""Convergence rates: the fitted slope of log(error) against log(size), its bootstrap
interval over seeds, and the two tables of a rate study (errors per size, slopes).

A seed is one independent draw of everything random in a run (features, sample and test
points); its errors at every size form one curve. The slope of a set of seeds is the
least-squares slope of the mean over seeds of log(error) against log(size); its interval
resamples whole seeds (curves) with replacement, refits the slope on each resample's mean
log-error and takes percentiles. The interval therefore says how much the slope could
move with other seeds, not with another choice of sizes. The sizes are the largest ones at
which every fit kept full numerical rank (:func:`fit_window`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Coverage of the slope intervals.
CONFIDENCE = 0.95
#: Bootstrap resamples per interval.
RESAMPLES = 2000
#: Seed of the resampling, so that a table is reproduced exactly.
BOOTSTRAP_SEED = 0


def fit_slope(sizes: Sequence[float] | np.ndarray, errors: np.ndarray) -> tuple[float, float]:
    """Least-squares fit of ``log(error) = intercept + slope * log(size)``.

    Parameters
    ----------
    sizes : array_like
        ``(K,)`` positive sizes (e.g. the number of features N), at least two distinct.
    errors : numpy.ndarray
        ``(K,)`` positive errors at those sizes (dimensionless).

    Returns
    -------
    tuple of float
        ``(slope, intercept)``: the error behaves like ``exp(intercept) * size^slope``.
    """
    x = np.log(np.asarray(sizes, dtype=np.float64))
    y = np.log(np.asarray(errors, dtype=np.float64))
    if x.shape != y.shape or x.ndim != 1 or np.ptp(x) == 0:
        raise ValueError(f"need matching 1-D sizes (two distinct at least): {x.shape}, {y.shape}")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def _slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares slopes of each row of ``y`` (``(B, K)``) against ``x`` (``(K,)``)."""
    xc = x - x.mean()
    return (y - y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)  # (B,)


def bootstrap_slope(
    sizes: Sequence[float] | np.ndarray,
    errors: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float, float]:
    """The slope of the seeds' mean log-error against log(size), with a percentile
    bootstrap interval over seeds.

    Parameters
    ----------
    sizes : array_like
        ``(K,)`` positive sizes, at least two distinct.
    errors : numpy.ndarray
        ``(S, K)`` positive errors of each seed (row) at each size.
    resamples : int
        Bootstrap resamples (each draws ``S`` seeds with replacement).
    confidence : float
        Coverage of the interval, in (0, 1).
    seed : int
        Seed of the resampling.

    Returns
    -------
    tuple of float
        ``(slope, low, high)``; with one seed the interval is the point itself.
    """
    errors = np.asarray(errors, dtype=np.float64)
    x = np.log(np.asarray(sizes, dtype=np.float64))
    if errors.ndim != 2 or errors.shape[1] != len(x):
        raise ValueError(f"need errors (seeds, {len(x)}), got {errors.shape}")
    if not np.all(np.isfinite(errors) & (errors > 0)):
        raise ValueError("errors must be positive and finite")
    log_errors = np.log(errors)  # (S, K)
    (slope,) = _slopes(x, log_errors.mean(axis=0, keepdims=True))
    n_seeds = len(log_errors)
    if n_seeds < 2:
        return float(slope), float(slope), float(slope)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n_seeds, size=(resamples, n_seeds))  # (B, S)
    means = log_errors[picks].mean(axis=1)  # (B, K)
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(_slopes(x, means), [tail, 100 - tail])
    return float(slope), float(low), float(high)


def gap_to(value: float, low: float, high: float) -> float:
    """Distance from ``value`` to the interval ``[low, high]`` (0 when inside)."""
    return float(max(low - value, value - high, 0.0))


#: Columns of the errors table, the reader's first.
ERRORS_COLUMNS = [
    "dimension", "d", "model", "n_features", "n_samples", "rel_l2_mean", "rel_l2_std",
    "rel_l2_min", "rel_l2_max", "rel_l2_geomean", "train_rel_l2_mean", "fit_s_mean",
    "rank_min", "singular_ratio_max", "n_seeds",
]  # fmt: skip


def errors_table(runs: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Per dimension, model and size: the test error's mean, std (over seeds), range and
    geometric mean (what the slope fits), and the fits' bookkeeping.

    Parameters
    ----------
    runs : pandas.DataFrame
        Every seed's rows: ``dimension, d, model, n_features, n_samples, seed, rel_l2,
        train_rel_l2, fit_s, rank, singular_ratio``.
    order : sequence of str
        The dimension keys in table order.
    """
    grouped = runs.groupby(["dimension", "d", "model", "n_features", "n_samples"], sort=False)
    table = grouped.agg(
        rel_l2_mean=("rel_l2", "mean"),
        rel_l2_std=("rel_l2", lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0),
        rel_l2_min=("rel_l2", "min"),
        rel_l2_max=("rel_l2", "max"),
        rel_l2_geomean=("rel_l2", lambda v: float(np.exp(np.log(v).mean()))),
        train_rel_l2_mean=("train_rel_l2", "mean"),
        fit_s_mean=("fit_s", "mean"),
        rank_min=("rank", "min"),
        singular_ratio_max=("singular_ratio", "max"),
        n_seeds=("seed", "nunique"),
    ).reset_index()
    table["dimension"] = pd.Categorical(table["dimension"], categories=list(order), ordered=True)
    # the no-learning row last in each dimension
    table["_last"] = table["model"] != "random_features"
    table = table.sort_values(["dimension", "_last", "n_features"]).drop(columns="_last")
    table["dimension"] = table["dimension"].astype(str)
    return table[ERRORS_COLUMNS].reset_index(drop=True)


#: Columns of the slopes table, the reader's first.
SLOPES_COLUMNS = [
    "dimension", "d", "slope", "slope_low", "slope_high", "reference_slope",
    "reference_inside", "gap_to_reference", "rate", "rate_low", "rate_high", "slope_all",
    "n_min", "n_max", "n_sizes", "rank_limit", "n_seeds", "confidence", "resamples",
]  # fmt: skip


def fit_window(data: pd.DataFrame, sizes: int) -> tuple[np.ndarray, float]:
    """The sizes a slope is fitted over: the ``sizes`` largest N below the first N at
    which some seed's feature matrix lost numerical rank (rank < N).

    Past that N the features are numerically dependent in float64, the least-squares fit
    uses fewer than N of them and the error stalls at a precision floor that says nothing
    about the rate in N.

    Parameters
    ----------
    data : pandas.DataFrame
        One dimension's rows: ``n_features``, ``rank`` (every seed).
    sizes : int
        How many sizes to keep at most.

    Returns
    -------
    window : numpy.ndarray
        The sizes, ascending (fewer than ``sizes`` if fewer are full rank).
    rank_limit : float
        The first rank-deficient N (NaN if every fit had full rank).
    """
    ranks = data.groupby("n_features")["rank"].min()  # the worst seed's, per N
    n = ranks.index.to_numpy(dtype=float)
    deficient = n[ranks.to_numpy() < n]
    if not len(deficient):
        return np.sort(n)[-sizes:], float("nan")
    limit = float(deficient.min())
    return np.sort(n[n < limit])[-sizes:], limit


def slopes_table(
    runs: pd.DataFrame,
    order: Sequence[str],
    *,
    sizes: int,
    reference: float,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = BOOTSTRAP_SEED,
) -> pd.DataFrame:
    """Per dimension: the fitted slope over its :func:`fit_window` with its bootstrap
    interval over seeds (:func:`bootstrap_slope`), whether ``reference`` lies inside and
    how far outside it is, the rate (minus the slope) and, for comparison, the slope over
    every size (no interval). A dimension with fewer than two full-rank sizes gets NaN.

    Parameters
    ----------
    runs : pandas.DataFrame
        The random-feature rows (``model == "random_features"``) of every seed:
        ``dimension, d, n_features, seed, rel_l2, rank``; every seed must have every size.
    order : sequence of str
        The dimension keys in table order.
    sizes : int
        Sizes in each fit (the largest full-rank ones).
    reference : float
        The claimed slope (-1/2).
    """
    rows = []
    for key in order:
        data = runs[runs["dimension"] == key]
        errors = data.pivot(index="seed", columns="n_features", values="rel_l2")  # (S, K)
        if errors.isna().any().any():
            raise ValueError(f"{key}: some seed lacks some size:\n{errors}")
        all_sizes = errors.columns.to_numpy(dtype=float)
        window, limit = fit_window(data, sizes)
        slope = low = high = float("nan")
        if len(window) >= 2:
            slope, low, high = bootstrap_slope(
                window, errors[window.astype(int)].to_numpy(), resamples=resamples,
                confidence=confidence, seed=seed,
            )  # fmt: skip
        slope_all, _ = fit_slope(all_sizes, np.exp(np.log(errors.to_numpy()).mean(axis=0)))
        rows.append({
            "dimension": key, "d": int(data["d"].iloc[0]), "slope": slope, "slope_low": low,
            "slope_high": high, "reference_slope": reference,
            "reference_inside": bool(low <= reference <= high),
            "gap_to_reference": gap_to(reference, low, high) if len(window) >= 2 else np.nan,
            "rate": -slope, "rate_low": -high, "rate_high": -low, "slope_all": slope_all,
            "n_min": int(window.min()) if len(window) else 0,
            "n_max": int(window.max()) if len(window) else 0, "n_sizes": len(window),
            "rank_limit": limit, "n_seeds": len(errors), "confidence": confidence,
            "resamples": resamples,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=SLOPES_COLUMNS)
