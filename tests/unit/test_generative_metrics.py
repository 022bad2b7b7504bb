"""Distribution distances between generated and reference fields (issue 49)."""

import re

import numpy as np
import pytest
import scipy.stats

from pderepro.evaluation import generative_metrics as gm
from pderepro.evaluation.generative_metrics import (
    distribution_metrics,
    energy_distance,
    marginal_wasserstein,
    metric_columns,
    mmd_rbf,
    moment_errors,
    noise_floor,
    normalised_energy_distance,
)
from pderepro.evaluation.uncertainty import bootstrap_interval


def _gaussian(seed: int, n: int = 300, mean: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).normal(mean, 1.0, size=(n, 2, 4, 4))


def _column(values: np.ndarray) -> np.ndarray:
    """A 1-D sample as ``(n, 1, 1, 1)`` fields."""
    return np.asarray(values, dtype=np.float64)[:, None, None, None]


def _folded_normal_mean(mu: float, sigma: float) -> float:
    """``E|Z|`` for ``Z ~ N(mu, sigma^2)``."""
    return sigma * np.sqrt(2 / np.pi) * np.exp(-(mu**2) / (2 * sigma**2)) + mu * (
        1 - 2 * scipy.stats.norm.cdf(-mu / sigma)
    )


def _exact_energy_1d(mu: float) -> float:
    """Energy distance of N(0, 1) and N(mu, 1): X - Y ~ N(-mu, 2), E|X - X'| = 2/sqrt(pi)."""
    return 2 * _folded_normal_mean(mu, np.sqrt(2)) - 2 * 2 / np.sqrt(np.pi)


def test_identical_distributions_are_near_zero_against_a_shifted_pair():
    same_a, same_b = _gaussian(0), _gaussian(1)
    shifted = _gaussian(2, mean=1.5)
    for metric in (energy_distance, normalised_energy_distance, mmd_rbf):
        noise, signal = metric(same_a, same_b), metric(shifted, same_b)
        assert signal > 0
        assert abs(noise) < 0.05 * signal, metric.__name__


def test_every_distance_grows_with_the_shift_of_the_mean():
    reference, base = _gaussian(0), _gaussian(1)
    rows = [distribution_metrics(base + s, reference) for s in (0.0, 0.25, 0.5, 1.0)]
    growing = [
        name
        for name in metric_columns()
        if not name.startswith(("n_", "std_error"))  # counts, and a shift leaves the std
    ]
    for name in growing:
        values = [row[name] for row in rows]
        assert np.all(np.diff(values) > 0), (name, values)
    for name in ("std_error_K", "std_error_p"):
        assert [row[name] for row in rows] == pytest.approx([rows[0][name]] * 4, rel=1e-12)


@pytest.mark.parametrize("mu", [2.0, 3.0])
def test_energy_distance_of_1d_gaussians_matches_the_closed_form(mu):
    rng = np.random.default_rng(5)
    a, b = _column(rng.normal(0, 1, 4000)), _column(rng.normal(mu, 1, 4000))
    assert energy_distance(a, b) == pytest.approx(_exact_energy_1d(mu), rel=0.05)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_energy_distance_of_1d_normal_quantiles_matches_the_closed_form_tightly(mu):
    # evenly spaced quantiles stand in for samples without sampling noise
    grid = scipy.stats.norm.ppf((np.arange(4000) + 0.5) / 4000)
    value = energy_distance(_column(grid), _column(grid + mu))
    assert value == pytest.approx(_exact_energy_1d(mu), rel=5e-3)


def test_energy_distance_is_the_u_statistic_of_scipys_v_statistic():
    # scipy's energy_distance is sqrt(2A - B_V - C_V) with the diagonal kept in the
    # within-set means; the U-statistic's within-set means are larger by n / (n - 1)
    rng = np.random.default_rng(1)
    x, y = rng.normal(0, 1, 300), rng.normal(0.7, 1.3, 200)
    cross = 2 * np.abs(x[:, None] - y[None]).mean()
    within_x, within_y = np.abs(x[:, None] - x).mean(), np.abs(y[:, None] - y).mean()
    u_minus_v = within_x - 300 / 299 * within_x + within_y - 200 / 199 * within_y
    expected = scipy.stats.energy_distance(x, y) ** 2 + u_minus_v
    assert energy_distance(_column(x), _column(y)) == pytest.approx(expected, rel=1e-10)
    assert normalised_energy_distance(_column(x), _column(y)) == pytest.approx(
        expected / cross, rel=1e-10
    )


def test_mmd_matches_a_direct_sum_over_pairs():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(7, 2, 3, 3)), rng.normal(0.5, 1.0, size=(5, 2, 3, 3))
    x, y, h = a.reshape(7, -1), b.reshape(5, -1), 2.5

    def k(u, v):
        return np.exp(-np.sum((u - v) ** 2) / (2 * h**2))

    xx = sum(k(x[i], x[j]) for i in range(7) for j in range(7) if i != j) / 42
    yy = sum(k(y[i], y[j]) for i in range(5) for j in range(5) if i != j) / 20
    xy = sum(k(x[i], y[j]) for i in range(7) for j in range(5)) / 35
    assert mmd_rbf(a, b, bandwidth=h) == pytest.approx(xx + yy - 2 * xy, rel=1e-12)
    # the median bandwidth of the pooled set, each distinct pair once
    pooled = np.concatenate([x, y])
    pairs = [np.linalg.norm(pooled[i] - pooled[j]) for i in range(12) for j in range(i)]
    assert mmd_rbf(a, b) == pytest.approx(mmd_rbf(a, b, bandwidth=np.median(pairs)))


def test_sums_in_blocks_equal_one_block(monkeypatch):
    a, b = _gaussian(0, n=40), _gaussian(1, n=30, mean=1.3)
    whole = (energy_distance(a, b), mmd_rbf(a, b))
    monkeypatch.setattr(gm, "BLOCK_DISTANCES", 7)  # a row or so per block
    assert (energy_distance(a, b), mmd_rbf(a, b)) == pytest.approx(whole, rel=1e-12)


def test_marginal_wasserstein_against_scipy():
    rng = np.random.default_rng(3)
    reference = rng.gamma(2.0, 1.5, size=(50, 2, 5, 5))
    samples = reference.copy()
    samples[:, 0] += 0.3  # a shift by d of every value: W1 = d
    samples[:, 1] *= 2.0
    w1 = marginal_wasserstein(samples, reference)
    std = reference.std(axis=(0, 2, 3))
    assert w1[0] == pytest.approx(0.3 / std[0], rel=1e-9)
    direct = scipy.stats.wasserstein_distance(samples[:, 1].ravel(), reference[:, 1].ravel())
    assert w1[1] == pytest.approx(direct / std[1], rel=1e-12)
    assert w1[1] == pytest.approx(reference[:, 1].mean() / std[1], rel=1e-9)  # 2x - x


def test_moment_errors_zero_for_identical_sets_and_one_for_a_doubled_set():
    reference = _gaussian(4)
    mean_error, std_error = moment_errors(reference, reference.copy())
    assert mean_error.shape == std_error.shape == (2,)
    assert np.all(mean_error == 0) and np.all(std_error == 0)
    mean_error, std_error = moment_errors(2 * reference, reference)
    assert mean_error == pytest.approx([1, 1]) and std_error == pytest.approx([1, 1])


def test_metrics_are_keyed_by_the_documented_columns_and_standardising_is_scale_free():
    samples, reference = _gaussian(0, n=60, mean=1.2), _gaussian(1, n=50)
    metrics = distribution_metrics(samples, reference)
    assert tuple(metrics) == metric_columns() and len(metrics) == 2 + 3 + 2 * 6
    assert metrics["n_samples"] == 60 and metrics["n_reference"] == 50
    assert all(np.isfinite(value) for value in metrics.values())
    assert noise_floor(samples, reference) == metrics
    scale = np.array([1.0, 1e-3])[None, :, None, None]  # a pressure-sized second channel
    rescaled = distribution_metrics(samples * scale, reference * scale)
    assert rescaled == pytest.approx(metrics, rel=1e-9)
    # raw: the joint distances follow the large channel alone
    raw = distribution_metrics(samples * scale, reference * scale, standardise=False)
    assert raw["energy_distance"] == pytest.approx(raw["energy_distance_K"], rel=1e-3)
    assert raw["energy_distance_p"] < 1e-2 * raw["energy_distance_K"]


def test_bootstrap_interval_is_the_projects_one():
    assert gm.bootstrap_interval is bootstrap_interval


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((5, 2, 4), (5, 2, 4)), ((5, 2, 4, 4), (5, 2, 4, 3)), ((1, 2, 4, 4), (5, 2, 4, 4))],
)
def test_bad_shapes_raise_naming_them(a_shape, b_shape):
    a, b = np.ones(a_shape), np.ones(b_shape)
    for metric in (energy_distance, mmd_rbf, marginal_wasserstein, moment_errors):
        with pytest.raises(ValueError, match=re.escape(str(a_shape))):
            metric(a, b)
    with pytest.raises(ValueError, match=re.escape(str(b_shape))):
        distribution_metrics(a, b)


def test_wrong_channel_names_and_non_finite_values_raise():
    a, b = _gaussian(0, n=5), _gaussian(1, n=5)
    with pytest.raises(ValueError, match=r"3 channel names .* \(5, 2, 4, 4\)"):
        distribution_metrics(a, b, channels=("K", "p", "q"))
    a[0, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        energy_distance(a, b)


def test_the_structure_distance_tells_independent_pixels_from_smooth_fields():
    """Smooth random fields and independent pixels of the same mean and std per pixel:
    the plain energy distance hardly tells them apart, the differences' distance does."""
    from pderepro.evaluation.generative_metrics import normalised_energy_distance
    from pderepro.evaluation.generative_structure import gradient_fields, structure_distance

    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 16)

    def smooth(n):
        phase, amp = rng.uniform(0, 2 * np.pi, (2, n, 1, 1, 1))
        return (
            amp
            * np.sin(2 * np.pi * x[None, None, :, None] + phase)
            * np.cos(np.pi * x[None, None, None, :])
        )

    fields, other = smooth(300), smooth(300)
    pixels = fields.mean(0) + fields.std(0) * rng.standard_normal(fields.shape)
    assert gradient_fields(fields).shape == (300, 2, 15, 15)
    plain = normalised_energy_distance(pixels, other)
    structured = structure_distance(pixels, other)
    assert structure_distance(fields, other) < 0.02 < plain < structured
    assert structured > 10 * structure_distance(fields, other)
