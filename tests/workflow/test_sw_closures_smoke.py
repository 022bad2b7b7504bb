"""The shallow-water closure study (sw_closures) end to end at the smoke preset, in the shared
smoke run of every study: fine truth runs, exact flux pairs, every closure fitted and run in
the coarse scheme, the noise floor, the tables with their columns and the figures."""

import math

import pandas as pd
import pytest

from pderepro.stages.shallow_water_online import OFFLINE_COLUMNS, ONLINE_COLUMNS
from tests.workflow.helpers import planned_after_edit

pytestmark = pytest.mark.slow
STUDY = "results/sw_closures"
CLOSURES = {"none", "diffusion", "mlp_limited", "mlp"}
SETUPS = {"forced", "strong", "decaying"}


def test_online_table_scores_every_closure_beside_the_noise_floor(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/online.csv")
    assert list(table.columns) == ONLINE_COLUMNS
    assert set(table["closure"]) == CLOSURES | {"truth"} and set(table["setup"]) == SETUPS
    assert len(table) == len(SETUPS) * (len(CLOSURES) + 1)
    scored = table[table["blowups"] == 0]
    for column in ("h_error", "hu_error", "energy_bias"):
        assert scored[column].map(math.isfinite).all(), column
    assert (scored["mass_drift"] < 1e-12).all()  # flux form: mass to round-off
    floor = table[table["closure"] == "truth"]
    assert (floor["cost_ratio"] == 1.0).all() and (floor["blowups"] == 0).all()
    assert (floor["h_error"] < table[table["closure"] == "none"]["h_error"].max()).all()


def test_offline_table_and_figures(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/offline.csv")
    assert list(table.columns) == OFFLINE_COLUMNS and set(table["closure"]) == CLOSURES
    none = table["closure"] == "none"
    assert table.loc[none, "mass_flux_correlation"].isna().all()
    assert (table.loc[none, "step_error_ratio"] == 1.0).all()
    assert table.loc[~none, "momentum_flux_correlation"].map(math.isfinite).all()
    for name in ("sw_solutions", "sw_error_energy", "sw_out_of_regime", "sw_offline_fit"):
        assert (smoke_run / f"{STUDY}/figures/{name}.png").stat().st_size > 10_000
    assert "sw_closures" in (smoke_run / "results/summary.md").read_text()


def test_changing_the_network_reruns_only_the_networks_jobs(smoke_run):
    old = "mlp: {kind: stencil_mlp, seeds: 8, hparams: {hidden: [64, 64]}"
    jobs = planned_after_edit(smoke_run, "sw_closures", old, old.replace("[64, 64]", "[32, 32]"))
    assert jobs["fit_closure"] == 1 and jobs["evaluate_online"] == 1
    assert "generate_truth" not in jobs and "coarse_grain" not in jobs
