"""Cost tables: break-even queries, the table's rows, and the solver timing stage."""

import math

import pandas as pd
import pytest

from pderepro.evaluation.cost import COST_COLUMNS, SOLVER_LABEL, breakeven_queries, cost_table
from pderepro.stages import run_time_solver
from tests.unit.tiny_data import TINY_DATASET


def test_breakeven_is_build_cost_over_the_saving_per_query():
    # 100 s to build, the solver takes 2 s and the surrogate 0.5 s: 1.5 s saved per query
    assert breakeven_queries(100.0, 2.0, 0.5) == math.ceil(100 / 1.5)
    assert breakeven_queries(100.0, 0.5, 0.5) == math.inf  # no saving, never pays
    assert breakeven_queries(100.0, 0.1, 0.5) == math.inf


def test_cost_table_rows_and_reference():
    runs = pd.DataFrame(
        {
            "unit": ["s"] * 3,
            "model": ["fno", "fno", "fcn"],
            "label": ["FNO", "FNO", "FCN"],
            "resolution": [64, 64, 64],
            "train_s": [10.0, 14.0, 5.0],
            "inference_s_per_sample": [0.001, 0.003, 0.0005],
            "train_device": ["CPU"] * 3,
            "inference_device": ["CPU x 1"] * 3,
        }
    )
    data = pd.DataFrame({"unit": ["s"], "data_s_per_sample": [0.5], "n_build_samples": [20]})
    solver = pd.DataFrame(
        {"unit": ["s"], "resolution": [64], "solver_s_per_sample": [0.1], "solver_device": ["C"]}
    )
    table = cost_table(runs, data, solver, model_order=["fno", "fcn"])
    assert list(table.columns) == COST_COLUMNS
    assert list(table["model"]) == ["FNO", "FCN", SOLVER_LABEL]
    fno = table.iloc[0]
    assert fno["train_s"] == 12.0 and fno["inference_s_per_sample"] == pytest.approx(0.002)
    assert fno["speedup"] == pytest.approx(50.0)
    # build: 20 samples x 0.5 s + 12 s of training = 22 s; saving 0.098 s per query
    assert fno["breakeven_queries"] == math.ceil(22.0 / 0.098)
    reference = table.iloc[2]
    assert reference["speedup"] == 1.0 and math.isnan(reference["breakeven_queries"])


def test_solver_timing_writes_seconds_per_sample(tmp_path):
    out = tmp_path / "solver.csv"
    run_time_solver(dataset=TINY_DATASET, resolution=32, output=str(out))
    row = pd.read_csv(out).iloc[0]
    assert row["resolution"] == 32 and row["n_samples"] > 0
    assert 0 < row["solver_s_per_sample"] < 10 and row["solver_device"].startswith("CPU")
