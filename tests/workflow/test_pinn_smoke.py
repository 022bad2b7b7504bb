"""The physics-informed study (r3_sampling) end to end at the smoke preset, in the shared
smoke run of every study: both references, every method's run, the errors table with its
no-learning rows, the figures, and the reference verification rows."""

import math

import pandas as pd
import pytest
import xarray as xr

from pderepro.evaluation.pinn_tables import ERRORS_COLUMNS, NO_LEARNING

pytestmark = pytest.mark.slow
STUDY = "results/r3_sampling"
METHODS = {"pinn_fixed", "pinn_uniform", "causal_pinn", "rar_g", "rad", "r3", "causal_r3"}


def test_errors_table_scores_every_method_beside_the_held_initial_condition(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/errors.csv")
    assert list(table.columns) == ERRORS_COLUMNS
    assert set(table["problem"]) == {"convection", "allen_cahn"}
    assert set(table["method"]) == METHODS | {NO_LEARNING}
    assert len(table) == 2 * (len(METHODS) + 1)
    assert table["rel_l2_mean"].map(math.isfinite).all() and (table["rel_l2_mean"] > 0).all()
    learned = table[table["method"] != NO_LEARNING]
    assert (learned["adam_iterations"] == learned["problem"].map(
        {"convection": 200, "allen_cahn": 100})).all()  # fmt: skip
    assert (learned["s_per_iteration"] > 0).all()


def test_references_are_cf_data_with_their_method(smoke_run):
    ds = xr.open_dataset(smoke_run / "data/reference/r3_sampling/convection.nc")
    assert ds["u"].dims == ("t", "x") and ds["u"].shape == (51, 128)
    assert "exact" in ds.attrs["reference_method"] and ds.attrs["rule"] == "pinn_reference"
    ac = xr.open_dataset(smoke_run / "data/reference/r3_sampling/allen_cahn.nc")
    assert "ETDRK4" in ac.attrs["reference_method"]
    validation = pd.read_csv(smoke_run / "results/validation/solvers.csv")
    assert validation["solver"].str.contains("allen_cahn").any()


def test_figures_and_claims(smoke_run):
    for name in ("error_vs_iteration", "propagation_failure", "predictions"):
        assert (smoke_run / f"{STUDY}/figures/{name}.png").stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    ours = claims[claims["study"] == "r3_sampling"]
    assert len(ours) == 6 and (ours["verdict"] == "not run").all()  # quick and paper only
