"""The RaNN study end to end at the smoke preset, in the shared smoke run of every study:
the fits of every dimension, the errors table with its no-learning rows, the slopes table
and the figure; its claims need quick or paper."""

import math

import pandas as pd
import pytest

from pderepro.evaluation.rate_fits import ERRORS_COLUMNS, SLOPES_COLUMNS

pytestmark = pytest.mark.slow


def test_rann_tables_hold_every_dimension_and_a_slope_each(smoke_run):
    errors = pd.read_csv(smoke_run / "results/rann/tables/errors.csv")
    assert set(ERRORS_COLUMNS) <= set(errors.columns)  # and the dimension's label
    fitted = errors[errors["model"] == "random_features"]
    assert sorted(fitted["d"].unique()) == [1, 2, 3, 4, 5]
    assert sorted(fitted["n_features"].unique()) == [8, 16, 32]
    assert (fitted["rel_l2_mean"] > 0).all() and (errors["model"] != "random_features").any()
    slopes = pd.read_csv(smoke_run / "results/rann/tables/slopes.csv")
    assert set(SLOPES_COLUMNS) <= set(slopes.columns) and len(slopes) == 5
    assert slopes["slope"].map(math.isfinite).all() and (slopes["reference_slope"] == -0.5).all()
    assert (smoke_run / "results/rann/figures/error_vs_features.png").stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert (claims[claims["study"] == "rann"]["verdict"] == "not run").all()
