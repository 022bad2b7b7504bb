"""The 2-D turbulence closure study (les_turbulence) end to end at the smoke preset, in the shared
smoke run of every study: the DNS truth, LES pairs, every closure fitted and run, the noise floor,
the tables with the issue's columns and the figures."""

import math

import pandas as pd
import pytest

from pderepro.stages.turbulence_online import OFFLINE_COLUMNS, ONLINE_COLUMNS
from tests.workflow.helpers import planned_after_edit

pytestmark = pytest.mark.slow
STUDY = "results/les_turbulence"
CLOSURES = {"none", "smagorinsky", "leith", "dynamic", "cnn", "smarl"}


def test_online_table_scores_every_closure_beside_the_noise_floor(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/online.csv")
    assert list(table.columns) == ONLINE_COLUMNS
    assert set(table["closure"]) == CLOSURES | {"truth"}
    assert set(table["case"]) == {"kf4", "beta20"} and len(table) == 2 * (len(CLOSURES) + 1)
    scored = table[table["blowups"] == 0]
    for column in ("enstrophy_spectrum_log_error", "energy_spectrum_log_error", "pdf_hellinger"):
        assert scored[column].map(math.isfinite).all(), column
    assert (table["cost_ratio"] > 0).all()
    floor = table[table["closure"] == "truth"]
    assert (floor["cost_ratio"] == 1.0).all() and (floor["blowups"] == 0).all()


def test_offline_table_and_figures(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/offline.csv")
    assert list(table.columns) == OFFLINE_COLUMNS and set(table["closure"]) == CLOSURES
    assert len(table) == 2 * len(CLOSURES)  # both cases
    none = table["closure"] == "none"
    assert table.loc[none, "pi_correlation"].isna().all()  # Pi = 0 correlates with nothing
    # (so may dynamic Smagorinsky: its coefficient is clipped at 0, all of it at smoke's kf4)
    active = table["closure"].isin(["smagorinsky", "leith", "cnn", "smarl"])
    assert table.loc[active, "pi_correlation"].map(math.isfinite).all()
    for name in ("spectra", "vorticity_pdfs", "rl_training", "vorticity_fields"):
        assert (smoke_run / f"{STUDY}/figures/{name}.png").stat().st_size > 10_000
    assert "les_turbulence" in (smoke_run / "results/summary.md").read_text()


def test_changing_the_cnn_reruns_only_the_cnn(smoke_run):
    old = "hparams: {channels: 32, layers: 5, kernel: 5}"
    new = "hparams: {channels: 16, layers: 5, kernel: 5}"
    assert planned_after_edit(smoke_run, "les_turbulence", old, new) == {
        "fit_closure": 1, "evaluate_offline": 1, "evaluate_online": 1, "closure_tables": 1,
        "plot_closures_turbulence2d": 1, "summary": 1, "results_page": 1, "all": 1,
        "claims": 1,  # SMARL's stability claim reads the online table at every preset
    }  # fmt: skip
