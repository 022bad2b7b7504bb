"""The parametric studies (pdebench_cape and basic_forms) end to end at the smoke preset, in
the shared smoke run of every study: datasets per parameter value, every run trained and
rolled out, the tables and the figures."""

import math

import pandas as pd
import pytest

from pderepro.evaluation.parametric_tables import (
    BASIC_FORMS_COLUMNS,
    PARAMETERS_COLUMNS,
    PDEBENCH_COLUMNS,
)

pytestmark = pytest.mark.slow
STUDY = "results/pdebench_cape"


def test_parameters_table_scores_seen_and_unseen_values_beside_persistence(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/parameters.csv")
    assert list(table.columns) == PARAMETERS_COLUMNS
    assert set(table["model"]) == {
        "FNO", "FNO + CAPE", "FNO + CAPE, teacher forcing", "U-Net", "U-Net + CAPE",
        "persistence (no learning)",
    }  # fmt: skip
    assert set(table["split"]) == {"seen", "unseen"}
    assert table["nrmse_mean"].map(math.isfinite).all() and (table["nrmse_mean"] > 0).all()
    assert (table["ci_low"] <= table["nrmse_mean"]).all()


def test_pdebench_table_and_figures(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/pdebench.csv")
    assert list(table.columns) == PDEBENCH_COLUMNS
    ours = table[table["model"] == "FNO (PDEBench protocol)"]
    pairs = sorted(zip(ours["pde"], ours["parameter"], strict=True))
    assert pairs == [("advection", 0.4), ("burgers", 1.0)]
    assert ours.set_index("pde")["published"].to_dict() == {"advection": 0.01, "burgers": 0.004}
    for name in ("error_vs_parameter", "error_vs_step", "rollouts"):
        assert (smoke_run / f"{STUDY}/figures/{name}.png").stat().st_size > 10_000


def test_basic_forms_table_and_figure(smoke_run):
    table = pd.read_csv(smoke_run / "results/basic_forms/tables/basic_forms.csv")
    assert list(table.columns) == BASIC_FORMS_COLUMNS
    learned = table[table["training"] != "persistence"]
    cells = learned[["training", "target_fraction", "split"]].itertuples(index=False)
    assert sorted(map(tuple, cells)) == [
        (t, f, s) for t in ("target", "target+basic") for f in (0.25, 1.0) for s in ("id", "ood")
    ]  # fmt: skip
    assert sorted(table.loc[table["training"] == "persistence", "split"]) == ["id", "ood"]
    assert table["nrmse_mean"].map(math.isfinite).all()
    figure = smoke_run / "results/basic_forms/figures/basic_forms.png"
    assert figure.stat().st_size > 10_000
