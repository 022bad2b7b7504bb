"""Distances between generated fields and held-out solver fields, as distributions.

A generative model of Darcy fields (issue 49, Physics-Based Flow Matching) is judged by
how close the distribution of its samples is to that of independent solver samples, not
sample by sample. Both sets are ``(n, C, H, W)`` float arrays (``C`` channels, e.g.
permeability ``K`` and pressure ``p``); the sets may differ in ``n``. The distances:

* :func:`energy_distance`: ``2 E|X - Y| - E|X - X'| - E|Y - Y'|`` between whole samples
  flattened to vectors (Euclidean norms), zero exactly when the distributions agree;
  :func:`normalised_energy_distance` divides it by ``2 E|X - Y|`` (dimensionless, in
  [0, 1]).
* :func:`mmd_rbf`: squared maximum mean discrepancy with a Gaussian kernel.
* :func:`marginal_wasserstein`: per channel, Wasserstein-1 of the pooled pixel values in
  units of the reference's pixel std.
* :func:`moment_errors`: per channel, relative L2 errors of the mean and std fields.

The within-set terms of the energy distance and the MMD are unbiased U-statistics (the
diagonal ``i = j`` is left out), so both fluctuate around 0, and may be slightly negative,
when the distributions agree. Marginal Wasserstein and moment errors are positive for any
two finite sets. Either way a value means something only against :func:`noise_floor`,
the same metrics between two independent reference sets of the same sizes.

Pairwise distances are :func:`scipy.spatial.distance.cdist` in float64 (it takes the
differences directly, without the cancellation of the ``|x|^2 + |y|^2 - 2 x.y`` form),
summed a block of rows at a time (:data:`BLOCK_DISTANCES`), so their memory does not
grow with ``n^2``. For 1000 samples of 2x33x33 per set (17 MB each) the pairwise metrics
need an 8 MB block plus ~70 MB for the median bandwidth (the pooled set and its 2e6
distances; :data:`MEDIAN_SAMPLES` caps them), and scipy's 1-D Wasserstein, sorting 2.2e6
pixel values per channel, ~170 MB: :func:`distribution_metrics` peaks about 210 MB above
its inputs. Time grows as ``n^2 C H W``: about 10 s at that size.

Intervals over training seeds use :func:`pderepro.evaluation.uncertainty.bootstrap_interval`
(re-exported here), the project's one percentile bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.stats
from scipy.spatial.distance import cdist, pdist

# re-exported (see above): the project already has its one percentile bootstrap
from pderepro.evaluation.uncertainty import bootstrap_interval as bootstrap_interval

#: Distances held at once while summing (8 MB of float64; the kernel reuses the block).
BLOCK_DISTANCES = 2**20
#: Most pooled samples whose pairwise distances give the median bandwidth (2e6 pairs,
#: 16 MB); a fixed-seed subset of this many is drawn from larger pooled sets.
MEDIAN_SAMPLES = 2000
#: Seed of that subset, so that a bandwidth is reproduced exactly.
MEDIAN_SEED = 0


def _check_sets(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both sets as float64 ``(n, C, H, W)`` with equal ``C, H, W``, ``n >= 2``, finite."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 4 or b.ndim != 4 or a.shape[1:] != b.shape[1:] or min(len(a), len(b)) < 2:
        raise ValueError(
            f"samples {a.shape} and reference {b.shape} must both be (n, C, H, W) with "
            "equal C, H, W and n >= 2"
        )
    # a diverged model's NaNs would otherwise pass silently through medians and sorts
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"samples {a.shape} or reference {b.shape} hold non-finite values")
    return a, b


def _median_bandwidth(x: np.ndarray, y: np.ndarray) -> float:
    """Median distance over distinct pairs of the pooled flattened set, each pair once;
    over a fixed-seed subset of :data:`MEDIAN_SAMPLES` pooled samples for larger sets."""
    pooled = np.concatenate([x, y])
    if len(pooled) > MEDIAN_SAMPLES:  # the median of 2e6 pairs is already stable
        keep = np.random.default_rng(MEDIAN_SEED).choice(len(pooled), MEDIAN_SAMPLES, False)
        pooled = pooled[np.sort(keep)]
    return float(np.median(pdist(pooled)))


def _block_sums(x: np.ndarray, y: np.ndarray, h: float | None) -> tuple[float, float]:
    """``(sum d_ij, sum k(d_ij))`` over all rows of ``x`` against all of ``y`` (kernel sum
    0 when ``h`` is None), a block of rows at a time so memory stays bounded."""
    rows = max(1, BLOCK_DISTANCES // max(len(y), 1))
    total_d = total_k = 0.0
    for start in range(0, len(x), rows):
        d = cdist(x[start : start + rows], y)
        total_d += float(d.sum())
        if h is not None:  # in place: the block is the only large temporary
            np.square(d, out=d)
            d *= -0.5 / h**2
            total_k += float(np.exp(d, out=d).sum())
    return total_d, total_k


def _pairwise(
    a: np.ndarray, b: np.ndarray, kernel: bool, bandwidth: float | None = None
) -> tuple[float, float, float | None]:
    """``(energy distance, 2 E|X - Y|, squared MMD or None)`` of two checked sets.

    The diagonal of a within-set sum is exactly 0 for distances (cdist subtracts a row
    from itself) and 1 for the kernel, so the U-statistics drop it by subtraction.
    """
    x, y = a.reshape(len(a), -1), b.reshape(len(b), -1)
    h = None
    if kernel:
        h = _median_bandwidth(x, y) if bandwidth is None else float(bandwidth)
        if not (np.isfinite(h) and h > 0):
            raise ValueError(f"the kernel bandwidth must be positive and finite, got {h}")
    n, m = len(x), len(y)
    d_xx, k_xx = _block_sums(x, x, h)
    d_yy, k_yy = _block_sums(y, y, h)
    d_xy, k_xy = _block_sums(x, y, h)
    cross = 2.0 * d_xy / (n * m)
    energy = cross - d_xx / (n * (n - 1)) - d_yy / (m * (m - 1))
    if not kernel:
        return energy, cross, None
    mmd = (k_xx - n) / (n * (n - 1)) + (k_yy - m) / (m * (m - 1)) - 2.0 * k_xy / (n * m)
    return energy, cross, mmd


def energy_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Energy distance ``2 E|X - Y| - E|X - X'| - E|Y - Y'|`` of two sets of fields.

    Parameters
    ----------
    a, b : numpy.ndarray
        ``(n_a, C, H, W)`` and ``(n_b, C, H, W)`` samples (e.g. generated and reference),
        ``n >= 2`` each, in the fields' units; each sample is one vector of ``C H W``.

    Returns
    -------
    float
        The squared form (no square root), in the fields' units (a mean of Euclidean
        norms); within-set means are U-statistics, so the estimate is unbiased and
        scatters around 0 when the distributions agree.

    Raises
    ------
    ValueError
        On shapes other than the above (the message names them), or non-finite values.
    """
    return _pairwise(*_check_sets(a, b), kernel=False)[0]


def normalised_energy_distance(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`energy_distance` divided by ``2 E|X - Y|``.

    Parameters
    ----------
    a, b : numpy.ndarray
        As :func:`energy_distance`.

    Returns
    -------
    float
        Dimensionless; the population value lies in [0, 1] (0: same distribution, 1: the
        sets' spreads are negligible against their separation). The estimate can be
        slightly negative from sampling noise; 0 when every sample of both sets coincides.
    """
    value, cross, _ = _pairwise(*_check_sets(a, b), kernel=False)
    return value / cross if cross > 0 else 0.0


def mmd_rbf(a: np.ndarray, b: np.ndarray, bandwidth: float | None = None) -> float:
    """Unbiased squared maximum mean discrepancy with a Gaussian kernel.

    The kernel is ``k(x, y) = exp(-|x - y|^2 / (2 h^2))`` on flattened samples, and the
    estimate ``mean_{i != j} k(a_i, a_j) + mean_{i != j} k(b_i, b_j) - 2 mean k(a_i, b_j)``.

    Parameters
    ----------
    a, b : numpy.ndarray
        As :func:`energy_distance`.
    bandwidth : float, optional
        ``h``, in the fields' units. When None, the median distance between distinct
        pairs of the pooled set (the median heuristic), which makes the MMD invariant to
        a common rescaling of both sets.

    Returns
    -------
    float
        Dimensionless (kernel values lie in (0, 1]); at most 2, and scattering around 0
        when the distributions agree.

    Raises
    ------
    ValueError
        On bad shapes or non-finite values (as :func:`energy_distance`), or a bandwidth
        that is not positive (the median one is 0 when most samples coincide).
    """
    return _pairwise(*_check_sets(a, b), kernel=True, bandwidth=bandwidth)[2]


def _pixel_std(b: np.ndarray) -> np.ndarray:
    """``(C,)`` std of each channel's pixel values pooled over samples and pixels."""
    std = b.std(axis=(0, 2, 3))
    if not np.all(std > 0):
        raise ValueError(f"reference channels must vary; pixel std per channel {std}")
    return std


def marginal_wasserstein(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per channel, the Wasserstein-1 distance of the pooled pixel values.

    Each channel's ``n H W`` values of a set are one 1-D empirical distribution
    (:func:`scipy.stats.wasserstein_distance`); positions are ignored, so this scores the
    histogram of values, not the fields' structure.

    Parameters
    ----------
    a, b : numpy.ndarray
        ``(n_a, C, H, W)`` samples and ``(n_b, C, H, W)`` reference.

    Returns
    -------
    numpy.ndarray
        ``(C,)`` distances divided by the reference's pixel std of that channel
        (dimensionless, so channels compare): a shift of every value by ``d`` gives
        ``d / std``.

    Raises
    ------
    ValueError
        On bad shapes, non-finite values, or a constant reference channel.
    """
    a, b = _check_sets(a, b)
    std = _pixel_std(b)
    w1 = [
        scipy.stats.wasserstein_distance(a[:, c].ravel(), b[:, c].ravel())
        for c in range(a.shape[1])
    ]
    return np.asarray(w1) / std


def _relative_l2(field: np.ndarray, truth: np.ndarray) -> float:
    """``|field - truth|_2 / |truth|_2`` over pixels; 0 for two zero fields, inf for one."""
    error, norm = np.linalg.norm(field - truth), np.linalg.norm(truth)
    if norm == 0:
        return 0.0 if error == 0 else float("inf")
    return float(error / norm)


def moment_errors(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel, relative L2 errors of the mean field and the pixelwise std field.

    Parameters
    ----------
    a, b : numpy.ndarray
        ``(n_a, C, H, W)`` samples and ``(n_b, C, H, W)`` reference.

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean_error, std_error)``, each ``(C,)`` and dimensionless:
        ``|mean_a - mean_b|_2 / |mean_b|_2`` over the ``H W`` pixels, and the same for the
        std over samples at each pixel (``ddof=1``). Both are 0 for identical sets; a set
        twice the reference gives 1 for both. A reference mean field of zero (a centred
        channel) makes its mean error inf (0 only if the samples' is zero too).

    Raises
    ------
    ValueError
        On bad shapes or non-finite values.
    """
    a, b = _check_sets(a, b)
    mean_a, mean_b = a.mean(axis=0), b.mean(axis=0)  # (C, H, W)
    std_a, std_b = a.std(axis=0, ddof=1), b.std(axis=0, ddof=1)
    channels = range(a.shape[1])
    mean_error = np.array([_relative_l2(mean_a[c], mean_b[c]) for c in channels])
    std_error = np.array([_relative_l2(std_a[c], std_b[c]) for c in channels])
    return mean_error, std_error


def metric_columns(channels: Sequence[str] = ("K", "p")) -> tuple[str, ...]:
    """Names of :func:`distribution_metrics`' values, in the order of a metrics table.

    Parameters
    ----------
    channels : sequence of str
        Names of the channels, in array order.

    Returns
    -------
    tuple of str
        ``n_samples``, ``n_reference``; then over all channels jointly ``energy_distance``,
        ``normalised_energy_distance``, ``mmd``; then for each channel ``c`` the same three
        suffixed ``_c`` (that channel alone), ``w1_c``, ``mean_error_c``, ``std_error_c``.
    """
    joint = ("energy_distance", "normalised_energy_distance", "mmd")
    per_channel = (*joint, "w1", "mean_error", "std_error")
    names = ["n_samples", "n_reference", *joint]
    names += [f"{name}_{c}" for c in channels for name in per_channel]
    return tuple(names)


def distribution_metrics(
    samples: np.ndarray,
    reference: np.ndarray,
    channels: Sequence[str] = ("K", "p"),
    *,
    standardise: bool = True,
) -> dict[str, float]:
    """Every distance of this module between generated samples and a reference set.

    Parameters
    ----------
    samples : numpy.ndarray
        ``(n_samples, C, H, W)`` generated fields.
    reference : numpy.ndarray
        ``(n_reference, C, H, W)`` held-out solver fields.
    channels : sequence of str
        ``C`` channel names for the keys.
    standardise : bool
        Divide each channel of both sets by the reference's pixel std of that channel
        before the energy distances and MMD. Without it the joint distances are dominated
        by whichever channel has the larger values (permeability against a pressure of
        order 1e-2, say); with it ``energy_distance`` is dimensionless. The other values
        do not change (the median bandwidth, ``w1`` and the relative errors are
        scale-free).

    Returns
    -------
    dict
        Keyed by :func:`metric_columns` ``(channels)``: the two set sizes (int) and the
        metrics (float), joint ones on the whole ``(C, H, W)`` sample, per-channel ones on
        that channel's ``(H, W)`` field.

    Raises
    ------
    ValueError
        On bad shapes, non-finite values, a constant reference channel, or a number of
        channel names other than ``C``.
    """
    samples, reference = _check_sets(samples, reference)
    if len(channels) != samples.shape[1]:
        raise ValueError(
            f"{len(channels)} channel names {tuple(channels)} for samples {samples.shape}"
        )
    std = _pixel_std(reference)
    if standardise:
        scale = std[None, :, None, None]
        samples, reference = samples / scale, reference / scale
    metrics: dict[str, float] = {"n_samples": len(samples), "n_reference": len(reference)}

    def pairwise(a: np.ndarray, b: np.ndarray, suffix: str) -> None:
        value, cross, mmd = _pairwise(a, b, kernel=True)  # one pass of cdist for both
        metrics[f"energy_distance{suffix}"] = value
        metrics[f"normalised_energy_distance{suffix}"] = value / cross if cross > 0 else 0.0
        metrics[f"mmd{suffix}"] = mmd

    pairwise(samples, reference, "")
    w1 = marginal_wasserstein(samples, reference)
    mean_error, std_error = moment_errors(samples, reference)
    for c, name in enumerate(channels):
        pairwise(samples[:, c : c + 1], reference[:, c : c + 1], f"_{name}")
        metrics[f"w1_{name}"] = float(w1[c])
        metrics[f"mean_error_{name}"] = float(mean_error[c])
        metrics[f"std_error_{name}"] = float(std_error[c])
    return {key: metrics[key] for key in metric_columns(channels)}


def noise_floor(
    reference_a: np.ndarray,
    reference_b: np.ndarray,
    channels: Sequence[str] = ("K", "p"),
    *,
    standardise: bool = True,
) -> dict[str, float]:
    """:func:`distribution_metrics` between two independent sets of solver samples.

    Two sets drawn from the same distribution (e.g. the validation and test splits) are
    as close as finite sets can be, so their distances are the level below which a
    model's distances are indistinguishable from sampling noise: report the model's
    ``distribution_metrics(samples, test)`` beside ``noise_floor(validation, test)``.
    Every estimate's noise depends on the set sizes, so ``reference_a`` should have as
    many samples as the model's set, and ``reference_b`` should be the same reference
    (it also sets the standardising scale). The energy distance and MMD here are unbiased,
    so their floor is a draw around 0: its magnitude, not its sign, is the noise scale.
    Marginal Wasserstein and moment errors are biased upward, and their floor is positive.

    Parameters
    ----------
    reference_a, reference_b : numpy.ndarray
        ``(n_a, C, H, W)`` and ``(n_b, C, H, W)`` independent solver samples.
    channels : sequence of str
        ``C`` channel names for the keys.
    standardise : bool
        As :func:`distribution_metrics`; use the same choice as for the model.

    Returns
    -------
    dict
        Keyed as :func:`distribution_metrics`.
    """
    return distribution_metrics(reference_a, reference_b, channels, standardise=standardise)
