"""The design study end to end at the smoke preset, in the shared smoke run of every
study: every task runs every method, the uniform design is the worst of each task, the
wins table holds every method, and both figures are drawn; its claims need quick or paper."""

import pandas as pd
import pytest

pytestmark = pytest.mark.slow


def test_design_tables_hold_every_task_and_method(smoke_run):
    tasks = pd.read_csv(smoke_run / "results/hoyer_design/tables/tasks.csv")
    assert set(tasks["task"]) == {"mbb_beam_20x10_v50", "cantilever_20x10_v50"}
    methods = {"oc", "mma", "pixel_lbfgs", "cnn_lbfgs", "uniform"}
    assert set(tasks["method"]) == methods and len(tasks) == 2 * len(methods)
    worst = tasks.loc[tasks.groupby("task")["compliance_mean"].idxmax(), "method"]
    assert (worst == "uniform").all()  # ten evaluations already beat no optimisation
    assert (tasks["pct_worse_min"] >= 0).all()
    wins = pd.read_csv(smoke_run / "results/hoyer_design/tables/wins.csv")
    assert set(wins["method"]) == methods and wins["wins"].sum() >= 2  # a best per task
    for figure in ("designs", "compliance_vs_evaluation"):
        assert (smoke_run / f"results/hoyer_design/figures/{figure}.png").stat().st_size > 10_000
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert (claims[claims["study"] == "hoyer_design"]["verdict"] == "not run").all()
