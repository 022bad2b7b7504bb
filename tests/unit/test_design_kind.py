"""The design kind: the shipped study's suite at every preset, a bad family refused naming
its key, one task job on a tiny grid, and the tasks and wins tables."""

import numpy as np
import pandas as pd
import pytest

from pderepro.config import ConfigError
from pderepro.evaluation.design_tables import design_tables, perimeter
from pderepro.solvers.elasticity.tasks import FAMILIES, build_task
from pderepro.stages.design import OPTIMISERS, run_design_task
from pderepro.studies import KINDS, repository_plan
from pderepro.studies.design import FAMILIES as KIND_FAMILIES
from pderepro.studies.design import tasks
from tests.unit.configs import ROOT, study


@pytest.mark.parametrize(("preset", "count"), [("smoke", 2), ("quick", 12), ("paper", 112)])
def test_suite_sizes_and_job_counts(preset, count):
    cfg = study("hoyer_design", preset)
    assert len(tasks(cfg)) == count
    plan = repository_plan(ROOT, preset, ["hoyer_design"])
    counts = plan.job_counts()
    assert counts["design_task"] == count and counts["design_tables"] == 1


def test_the_kind_knows_the_task_builders_families():
    assert set(KIND_FAMILIES) == set(FAMILIES)


def test_unknown_family_is_refused_naming_the_key():
    cfg = study("hoyer_design", "smoke")
    cfg["suite"]["families"] = ["mbb_bean"]
    with pytest.raises(ConfigError, match=r"study.x.suite.families.*mbb_bean"):
        KINDS["design"].check("study.x", cfg)


def test_one_task_job_runs_every_method_and_meets_the_volume(tmp_path):
    methods = {k: {"optimiser": k, "iterations": 5, "seeded": k == "cnn_lbfgs"}
               for k in OPTIMISERS}  # fmt: skip
    task = {"family": "cantilever", "nelx": 12, "nely": 6, "volume": 0.4, "filter_radius": 1.5}
    metrics, histories = tmp_path / "m.csv", tmp_path / "h.csv"
    run_design_task(metrics=str(metrics), designs=str(tmp_path / "d.nc"),
                    histories=str(histories), task_key="t", task=task, methods=methods,
                    seeds=2, network={"latent": 8, "channels": [8, 8, 4, 4, 1]})  # fmt: skip
    runs = pd.read_csv(metrics)
    # the histories: every evaluation of every run, the last one the final design's own
    curves = pd.read_csv(histories)
    per_run = curves.groupby(["method", "seed"])
    counts = per_run.size().reset_index(name="n").merge(runs, on=["method", "seed"])
    assert (counts["n"] == counts["evaluations"].clip(lower=1)).all()
    assert (per_run["evaluation"].min() == 0).all()
    assert sorted(runs["method"].value_counts().items()) == sorted(
        {**{k: 1 for k in OPTIMISERS}, "cnn_lbfgs": 2}.items()
    )
    assert (runs.loc[runs["method"] != "mma", "volume_error"] < 1e-9).all()
    # MMA keeps an inequality to its tolerance, reached over its iterations (at 100: 3e-5)
    assert (runs.loc[runs["method"] == "mma", "volume_error"] < 1e-2).all()
    uniform = build_task("cantilever", 12, 6).compliance(np.full((6, 12), 0.4))[0]
    assert runs.loc[runs["method"] == "uniform", "compliance"].item() == pytest.approx(uniform)
    optimised = runs[runs["method"] != "uniform"]
    assert (optimised["compliance"] < uniform).all()  # five steps already improve on it


def _runs(rows):
    out = []
    for task, values in rows.items():
        for method, per_seed in values.items():
            for seed, c in enumerate(per_seed):
                out.append({"task": task, "family": "f", "nelx": 4, "nely": 2, "volume": 0.5,
                            "method": method, "seed": seed, "compliance": c,
                            "volume_error": 0.0, "evaluations": 10, "wall_s": 1.0})  # fmt: skip
    return pd.DataFrame(out)


def test_wins_count_trials_and_the_best_other_method():
    runs = _runs({
        "a": {"oc": [10.0], "cnn": [9.0, 11.0], "uniform": [50.0]},
        "b": {"oc": [10.0], "cnn": [9.5, 9.0], "uniform": [50.0]},
        "c": {"oc": [10.0], "cnn": [10.005, 12.0], "uniform": [50.0]},
    })  # fmt: skip
    tables = design_tables(runs, ["oc", "cnn", "uniform"], reference="uniform", tolerance=1e-3)
    wins = tables["wins"].set_index("method")
    # trial 0: cnn best on a, b (c within 0.1%: both); trial 1: cnn b, oc a and c
    assert wins.loc["cnn", ["wins", "wins_low", "wins_high"]].tolist() == [2.0, 1.0, 3.0]
    assert wins.loc["oc", ["wins", "wins_low", "wins_high"]].tolist() == [1.5, 1.0, 2.0]
    assert wins.loc["cnn", "best_other_wins"] == 1.5 and wins.loc["uniform", "wins"] == 0
    assert list(wins.index) == ["oc", "cnn", "uniform"]
    per_task = tables["tasks"].set_index(["task", "method"])
    # the best of task a over every run is cnn's 9.0: oc is 11.1% worse
    assert per_task.loc[("a", "oc"), "pct_worse_mean"] == pytest.approx(100 / 9)
    assert per_task.loc[("a", "cnn"), "pct_worse_max"] == pytest.approx(100 * 2 / 9)


def test_perimeter_counts_the_edges_between_solid_and_void():
    bar = np.zeros((4, 6))
    bar[1:3, 1:5] = 1.0  # a 2 x 4 block inside the domain: 2 (4 + 2) edges
    assert perimeter(bar) == 12
    split = bar.copy()
    split[1:3, 3] = 0.2  # cut in two: 4 more edges across the rows, 2 fewer along a column
    assert perimeter(split) == 14
    assert perimeter(np.full((4, 6), 0.4)) == 0
