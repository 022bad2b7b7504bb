"""Bootstrap intervals of the tables' errors."""

import numpy as np
import pandas as pd
import pytest

from pderepro.evaluation.tables import error_summary
from pderepro.evaluation.uncertainty import bootstrap_interval


def test_interval_covers_the_mean_and_narrows_with_more_samples():
    rng = np.random.default_rng(3)
    small, large = rng.normal(1.0, 0.3, size=20), rng.normal(1.0, 0.3, size=2000)
    widths = []
    for values in (small, large):
        low, high = bootstrap_interval(values)
        assert low < values.mean() < high
        widths.append(high - low)
    # the width of a mean's interval falls as 1/sqrt(n): 10x for 100x the samples
    assert 5 < widths[0] / widths[1] < 20


def test_interval_matches_the_normal_approximation_for_many_samples():
    values = np.random.default_rng(4).normal(1.0, 0.5, size=4000)
    low, high = bootstrap_interval(values)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    assert (high - low) / 2 == pytest.approx(half, rel=0.1)


def test_interval_is_reproducible_and_degenerate_cases_are_plain():
    values = np.array([0.1, 0.4, 0.2, 0.7])
    assert bootstrap_interval(values) == bootstrap_interval(values)
    assert bootstrap_interval(np.full(3, 0.2)) == (0.2, 0.2)
    assert all(np.isnan(bootstrap_interval(np.array([0.3]))))
    with pytest.raises(ValueError, match="one-dimensional"):
        bootstrap_interval(np.ones((2, 2)))


def test_seeds_scored_on_different_samples_are_refused():
    rows = pd.DataFrame({"seed": [0, 0, 1, 1], "sample": [0, 1, 0, 2], "rel_l2": [1.0] * 4})
    with pytest.raises(ValueError, match="fno at s=64: .*different test samples"):
        error_summary(rows, "fno at s=64")


def test_interval_resamples_samples_jointly_over_seeds():
    # two seeds whose per-sample errors are anti-correlated: the seed average is flat, so
    # resampling samples jointly leaves no spread, where pooling the rows would show one
    rows = pd.DataFrame(
        {"seed": [0, 0, 1, 1], "sample": [0, 1, 0, 1], "rel_l2": [0.1, 0.3, 0.3, 0.1]}
    )
    summary = error_summary(rows, "x")
    assert summary["ci_low"] == summary["ci_high"] == pytest.approx(0.2)
    assert summary["rel_l2_std"] == 0 and summary["n_seeds"] == 2 and summary["n_test"] == 2
