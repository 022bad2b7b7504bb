"""The SDGD study end to end at the smoke preset, in the shared smoke run of every study:
references on scattered test points of the ball, both methods at each smoke dimension,
the errors and scaling tables, the figures and the claims."""

import math

import pandas as pd
import pytest
import xarray as xr

from pderepro.evaluation.pinn_tables import NO_LEARNING, SCALING_COLUMNS

pytestmark = pytest.mark.slow


def test_sdgd_references_are_scattered_points_with_their_seed(smoke_run):
    ds = xr.open_dataset(smoke_run / "data/reference/sdgd/poisson_d100.nc")
    assert ds["u"].dims == ("point",) and ds.sizes["point"] == 200
    assert ds.attrs["dimension"] == 100 and "test_points_checksum" in ds.attrs
    assert not (smoke_run / "data/reference/sdgd/poisson_d1000.nc").exists()  # quick only


def test_sdgd_tables_hold_both_methods_and_their_cost(smoke_run):
    errors = pd.read_csv(smoke_run / "results/sdgd/tables/errors.csv")
    ran = errors[errors["method"].isin(["pinn", "sdgd"])]
    assert len(ran) == 2 * 2 * 2  # two equations, two dimensions, two methods
    assert ran["rel_l2_mean"].map(math.isfinite).all() and (ran["peak_memory_mb"] >= 0).all()
    # the best constant multiple of the trial envelope: better than zero (1), never exact
    held = errors[errors["method"] == NO_LEARNING]
    assert ((held["rel_l2_mean"] > 0) & (held["rel_l2_mean"] < 1)).all()
    assert held["label"].str.startswith("best constant multiple").all()
    scaling = pd.read_csv(smoke_run / "results/sdgd/tables/scaling.csv")
    assert list(scaling.columns) == SCALING_COLUMNS and len(scaling) == 4
    assert set(scaling["values"]) == {"10, 100"} and scaling["time_slope"].map(math.isfinite).all()
    for name in ("error_vs_iteration", "scaling"):
        assert (smoke_run / f"results/sdgd/figures/{name}.png").stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert (claims[claims["study"] == "sdgd"]["verdict"] == "not run").all()
