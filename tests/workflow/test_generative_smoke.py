"""The generative-surrogate study end to end at the smoke preset, in the shared smoke run
of every study: every method and both no-learning rows in the samples table, our solver's
samples at round-off residual, the figure drawn; its claims need quick or paper."""

import pandas as pd
import pytest

pytestmark = pytest.mark.slow


def test_samples_table_holds_every_method_and_the_references(smoke_run):
    table = pd.read_csv(smoke_run / "results/pbfm_darcy/tables/samples.csv").set_index("method")
    methods = {"fm", "pbfm", "pbfm_one_step", "weighted_low", "weighted_high"}
    assert set(table.index) == methods | {"gaussian", "solver"}
    assert table.loc["solver", "residual_mean"] < 1e-10  # the solver's own samples
    assert (table.loc[sorted(methods), "residual_mean"] > 0).all()
    assert (table["residual_low"] <= table["residual_high"]).all()
    figure = smoke_run / "results/pbfm_darcy/figures/generated_samples.png"
    assert figure.stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert (claims[claims["study"] == "pbfm_darcy"]["verdict"] == "not run").all()
