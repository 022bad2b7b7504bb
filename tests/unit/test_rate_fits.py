"""Rate fits: the slope of exact power laws is recovered, the bootstrap interval over
seeds contains it (and collapses to it without noise), and the tables."""

import numpy as np
import pandas as pd
import pytest

from pderepro.evaluation.rate_fits import (
    bootstrap_slope,
    errors_table,
    fit_slope,
    fit_window,
    gap_to,
    slopes_table,
)

SIZES = np.array([16, 32, 64, 128, 256, 512])


@pytest.mark.parametrize("slope", [-0.5, -1.0, -0.27])
def test_the_slope_of_an_exact_power_law_is_recovered(slope):
    fitted, intercept = fit_slope(SIZES, 3.0 * SIZES**slope)
    assert fitted == pytest.approx(slope, abs=1e-12)
    assert intercept == pytest.approx(np.log(3.0))


def _noisy(rng, seeds=10, slope=-0.5):
    """Each seed: its own constant and a little noise around ``N^slope``."""
    noise = rng.normal(0, 0.3, (seeds, 1)) + rng.normal(0, 0.05, (seeds, len(SIZES)))
    return np.exp(noise) * SIZES**slope


def test_the_bootstrap_interval_contains_the_slope_of_noisy_seeds_about_95_percent():
    """Coverage over independent experiments (the percentile bootstrap over 10 seeds
    undercovers a little), each interval around its own slope, reproducible by seed."""
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):
        slope, low, high = bootstrap_slope(SIZES, _noisy(rng), resamples=500, seed=1)
        assert low <= slope <= high and high - low < 0.1
        covered += low <= -0.5 <= high
    assert 0.85 <= covered / 200 <= 1.0
    errors = _noisy(rng)
    assert bootstrap_slope(SIZES, errors, seed=3) == bootstrap_slope(SIZES, errors, seed=3)


def test_without_noise_the_interval_collapses_onto_the_exact_slope():
    errors = np.outer([1.0, 2.0, 0.5], SIZES**-0.75)  # seeds differ by a constant only
    slope, low, high = bootstrap_slope(SIZES, errors)
    assert slope == pytest.approx(-0.75) and low == pytest.approx(-0.75)
    assert high == pytest.approx(-0.75)
    one = bootstrap_slope(SIZES, errors[:1])
    assert one == pytest.approx((-0.75, -0.75, -0.75))


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="two distinct"):
        fit_slope([4, 4], [1.0, 0.5])
    with pytest.raises(ValueError, match="positive"):
        bootstrap_slope(SIZES, np.zeros((2, len(SIZES))))
    with pytest.raises(ValueError, match="seeds"):
        bootstrap_slope(SIZES, np.ones(len(SIZES)))


def test_gap_to_an_interval():
    assert gap_to(-0.5, -0.6, -0.4) == 0.0
    assert gap_to(-0.5, -0.3, -0.2) == pytest.approx(0.2)
    assert gap_to(-0.5, -0.9, -0.7) == pytest.approx(0.2)


def _runs(slopes, seeds=4):
    rows = []
    rng = np.random.default_rng(0)
    for key, (d, slope) in slopes.items():
        for seed in range(seeds):
            scale = np.exp(rng.normal(0, 0.1))
            for n in SIZES:
                rows.append({"dimension": key, "d": d, "model": "random_features",
                             "n_features": n, "n_samples": 8 * n, "seed": seed,
                             "rel_l2": scale * n**slope, "train_rel_l2": 0.5 * n**slope,
                             "fit_s": 0.1, "rank": n, "singular_ratio": 10.0})  # fmt: skip
            rows.append({"dimension": key, "d": d, "model": "no_learning", "n_features": 0,
                         "n_samples": 8 * SIZES[-1], "seed": seed, "rel_l2": 0.9,
                         "train_rel_l2": 0.9, "fit_s": 0.0, "rank": 1,
                         "singular_ratio": 1.0})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_slopes_table_reads_each_dimension_over_its_window():
    runs = _runs({"d1": (1, -0.5), "d3": (3, -0.25)})
    table = slopes_table(runs[runs["model"] == "random_features"], ["d3", "d1"],
                         sizes=4, reference=-0.5)  # fmt: skip
    assert list(table["dimension"]) == ["d3", "d1"]
    d1, d3 = table.set_index("dimension").loc["d1"], table.set_index("dimension").loc["d3"]
    assert d1["slope"] == pytest.approx(-0.5) and d1["reference_inside"]
    assert d1["gap_to_reference"] == 0.0
    assert d3["slope"] == pytest.approx(-0.25) and not d3["reference_inside"]
    assert d3["gap_to_reference"] == pytest.approx(0.25)
    assert d3["rate"] == pytest.approx(0.25) and d3["rate_low"] <= 0.25 <= d3["rate_high"]
    assert (d1["n_min"], d1["n_max"], d1["n_sizes"], d1["n_seeds"]) == (64, 512, 4, 4)
    assert np.isnan(d1["rank_limit"])


def test_the_window_stops_below_the_first_rank_deficient_size():
    """Past the rank limit the error stalls at a floor: those sizes are left out."""
    runs = _runs({"d1": (1, -0.8)})
    stalled = runs["n_features"] >= 256
    runs.loc[stalled, "rel_l2"] = 128.0**-0.8  # a float64 floor: no decay past 128
    runs.loc[stalled & (runs["seed"] == 2), "rank"] = 200
    rows = runs[runs["model"] == "random_features"]
    window, limit = fit_window(rows, 3)
    assert list(window) == [32, 64, 128] and limit == 256
    (row,) = slopes_table(rows, ["d1"], sizes=3, reference=-0.5).to_dict("records")
    assert row["slope"] == pytest.approx(-0.8) and row["rank_limit"] == 256
    assert (row["n_min"], row["n_max"]) == (32, 128) and row["slope_all"] > -0.8
    runs.loc[runs["seed"] == 0, "rank"] = 1  # deficient from the first size on
    (row,) = slopes_table(runs[runs["model"] == "random_features"], ["d1"], sizes=3,
                          reference=-0.5).to_dict("records")  # fmt: skip
    assert np.isnan(row["slope"]) and row["n_sizes"] == 0 and not row["reference_inside"]


def test_the_errors_table_averages_seeds_and_puts_no_learning_last():
    runs = _runs({"d2": (2, -0.5)})
    table = errors_table(runs, ["d2"])
    assert list(table["model"]) == ["random_features"] * len(SIZES) + ["no_learning"]
    assert list(table["n_features"][:-1]) == list(SIZES)
    assert (table["n_seeds"] == 4).all()
    first = runs[(runs["n_features"] == 16)]["rel_l2"]
    assert table["rel_l2_mean"].iloc[0] == pytest.approx(first.mean())
    assert table["rel_l2_geomean"].iloc[0] == pytest.approx(np.exp(np.log(first).mean()))
    assert table["rel_l2_min"].iloc[0] <= table["rel_l2_geomean"].iloc[0]
