"""The Neural Spectral Methods study end to end at the smoke preset, in the shared smoke
run of every study: each problem's test inputs and reference, every method's run, the
errors and speed tables, the figure and the claims (not run at smoke)."""

import math

import pandas as pd
import pytest
import xarray as xr

from pderepro.evaluation.nsm_tables import ERRORS_COLUMNS, NO_LEARNING, SOLVER, SPEED_COLUMNS

pytestmark = pytest.mark.slow

METHODS = {"nsm", "pinn64", "pinn128", "pinn256", "supervised"}


def test_nsm_data_holds_test_inputs_reference_and_pairs(smoke_run):
    poisson = xr.open_dataset(smoke_run / "data/reference/nsm/poisson.nc")
    assert poisson["inputs"].shape == (4, 16, 16) and poisson["u"].shape == (4, 32, 32)
    assert poisson["train_u_supervised"].sizes["pair_supervised"] == 8
    rd = xr.open_dataset(smoke_run / "data/reference/nsm/rd_nu0005.nc")
    assert rd["u"].dims == ("sample", "t", "x") and rd["u"].shape == (4, 33, 32)
    assert rd.attrs["rule"] == "nsm_data"
    assert not (smoke_run / "data/reference/nsm/rd_nu001.nc").exists()  # quick only


def test_nsm_tables_hold_every_method_and_the_solver_ladder(smoke_run):
    errors = pd.read_csv(smoke_run / "results/nsm/tables/errors.csv")
    assert list(errors.columns) == ERRORS_COLUMNS
    ran = errors[errors["method"].isin(METHODS)]
    assert len(ran) == 2 * len(METHODS)
    trained = ran[ran["n_seeds"] > 0]
    assert trained["rel_l2_pct_mean"].map(math.isfinite).all()
    assert (ran["s_per_iteration"] > 0).all()
    no_learning = errors[errors["method"] == NO_LEARNING].set_index("problem")
    assert no_learning.loc["poisson", "rel_l2_pct_mean"] == pytest.approx(100.0)
    speed = pd.read_csv(smoke_run / "results/nsm/tables/speed.csv")
    assert list(speed.columns) == SPEED_COLUMNS
    assert (speed["method"] == SOLVER).sum() == 4  # two rungs per problem
    assert speed[speed["method"] == "nsm"]["speedup"].map(math.isfinite).all()
    assert (smoke_run / "results/nsm/figures/error_vs_time.png").stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert (claims[claims["study"] == "nsm"]["verdict"] == "not run").all()
