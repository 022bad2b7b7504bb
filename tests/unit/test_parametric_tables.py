"""Parametric tables: seeds and samples aggregated, persistence once, published beside."""

import numpy as np
import pandas as pd
import pytest

from pderepro.evaluation.parametric_tables import (
    BASIC_FORMS_COLUMNS,
    CAPE_GAINS_COLUMNS,
    PARAMETERS_COLUMNS,
    PDEBENCH_COLUMNS,
    PDEBENCH_METRICS,
    basic_forms_table,
    cape_gains_table,
    parameters_table,
    pdebench_table,
)


def _rows(model, label, value, split, seed, errors):
    # PDEBench's other metrics: each a fixed multiple of nRMSE, so their table means are known
    others = {name: (i + 2.0) * np.asarray(errors) for i, name in enumerate(PDEBENCH_METRICS)}
    return pd.DataFrame(
        {
            "pde": "advection", "model": model, "label": label, "value": value,
            "split": split, "seed": seed, "sample": np.arange(len(errors)), "nrmse": errors,
            **others,
        }
    )  # fmt: skip


def _metrics():
    frames = []
    for seed, scale in ((0, 1.0), (1, 3.0)):
        for model, label in (("fno_cape", "FNO+CAPE"), ("fno", "FNO")):
            for value, split in ((0.4, "seen"), (1.0, "unseen")):
                frames.append(_rows(model, label, value, split, seed, scale * np.array([0.1, 0.2])))
                # every evaluation job scores persistence again: the same numbers
                frames.append(_rows("persistence", "persistence (no learning)", value, split,
                                    0, np.array([0.5, 0.7])))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def test_parameters_table_orders_models_and_counts_persistence_once():
    table = parameters_table(_metrics(), model_order=["fno", "fno_cape"])
    assert list(table.columns) == PARAMETERS_COLUMNS
    assert list(table["model"][:3]) == ["FNO", "FNO+CAPE", "persistence (no learning)"]
    fno = table.iloc[0]
    assert fno["nrmse_mean"] == pytest.approx((0.15 + 0.45) / 2) and fno["n_seeds"] == 2
    ref = table.iloc[2]
    assert ref["nrmse_mean"] == pytest.approx(0.6) and ref["n_seeds"] == 1
    assert ref["n_test"] == 2 and list(table["split"]) == ["seen"] * 3 + ["unseen"] * 3


def test_pdebench_table_puts_published_values_beside_ours_only():
    metrics = _metrics()
    metrics = metrics[metrics["model"].isin(["fno", "persistence"])]
    table = pdebench_table(
        metrics, published={"advection": {0.4: 0.01}}, version="arXiv v7",
        sizes={"advection": {"n_train": 32, "cells": 128, "epochs": 50, "t_final": 2.0}},
        published_sizes={"n_samples": 10000, "cells": 256, "epochs": 500, "t_final": 2.0},
    )  # fmt: skip
    assert list(table.columns) == PDEBENCH_COLUMNS
    model_rows = table[table["model"] == "FNO"]
    assert (model_rows["n_train"] == 32).all() and (model_rows["cells"] == 128).all()
    # the paper's sizes stand beside its values only (none at 1.0)
    published_epochs = model_rows.set_index("parameter")["published_epochs"].fillna(0)
    assert published_epochs.to_dict() == {0.4: 500, 1.0: 0}
    assert table[table["model"] != "FNO"][["n_train", "published_cells"]].isna().all().all()
    fno = table[(table["model"] == "FNO") & (table["parameter"] == 0.4)].iloc[0]
    assert fno["published"] == 0.01 and fno["published_version"] == "arXiv v7"
    assert table[table["model"] != "FNO"]["published"].isna().all()
    assert table[(table["model"] == "FNO") & (table["parameter"] == 1.0)]["published"].isna().all()
    # PDEBench's other metrics: the mean over seeds and trajectories of their columns
    for i, name in enumerate(PDEBENCH_METRICS):
        assert fno[name] == pytest.approx((i + 2.0) * fno["nrmse_mean"]), name


def test_cape_gains_average_values_per_seed_then_compare():
    """CAPE's nRMSE is each value's mean over trajectories, averaged over the split's
    values and then over seeds; the change is relative to its base model's."""
    frames = [_metrics()]
    # a second unseen value where CAPE is far better: seed means over values differ
    for seed in (0, 1):
        frames.append(_rows("fno_cape", "FNO+CAPE", 7.0, "unseen", seed, np.array([0.1, 0.1])))
        frames.append(_rows("fno", "FNO", 7.0, "unseen", seed, np.array([0.9, 0.7])))
    metrics = pd.concat(frames, ignore_index=True)
    labels = {"fno": "FNO", "fno_cape": "FNO+CAPE"}
    table = cape_gains_table(metrics, pairs={"fno_cape": "fno"}, labels=labels)
    assert list(table.columns) == CAPE_GAINS_COLUMNS
    # each split: the pair, then persistence, the no-learning row a base model must beat
    assert list(table["model"]) == ["FNO+CAPE", "persistence"] * 2
    held = table[table["model"] == "persistence"]
    assert held["baseline_nrmse"].isna().all() and (held["nrmse"] > 0).all()
    table = table[table["model"] != "persistence"].reset_index(drop=True)
    assert list(table["split"]) == ["seen", "unseen"]
    unseen = table.iloc[1]
    # seed 0: CAPE (0.15 + 0.1) / 2, FNO (0.15 + 0.8) / 2
    # seed 1: CAPE (0.45 + 0.1) / 2, FNO (0.45 + 0.8) / 2
    cape, fno = (0.125 + 0.275) / 2, (0.475 + 0.625) / 2
    assert unseen["nrmse"] == pytest.approx(cape) and unseen["baseline_nrmse"] == pytest.approx(fno)
    assert unseen["change"] == pytest.approx(cape / fno - 1) and unseen["n_values"] == 2
    assert unseen["seed_std"] == pytest.approx(np.std([0.125, 0.275], ddof=1))
    assert table.iloc[0]["change"] == pytest.approx(0.0) and unseen["model"] == "FNO+CAPE"
    with pytest.raises(ValueError, match="no metrics"):
        cape_gains_table(metrics, pairs={"fno_cape": "unet"}, labels=labels)


def test_basic_forms_table_pools_values_per_split_and_keeps_persistence_apart():
    runs = {
        "target-f0p5": {"training": "target", "target_fraction": 0.5},
        "target_basic-f0p5": {"training": "target+basic", "target_fraction": 0.5},
    }
    frames = []
    for seed in (0, 1):
        for model, scale in (("target-f0p5", 2.0), ("target_basic-f0p5", 1.0)):
            for value, split in (("nu=1 rho=1", "seen"), ("nu=1 rho=2", "seen"),
                                 ("nu=5 rho=10", "unseen")):  # fmt: skip
                frames.append(_rows(model, "FNO", value, split, seed, scale * np.array([0.1, 0.3])))
                frames.append(_rows("persistence", "persistence (no learning)", value, split,
                                    0, np.array([0.5, 0.7])))  # fmt: skip
    table = basic_forms_table(pd.concat(frames, ignore_index=True), runs=runs)
    assert list(table.columns) == BASIC_FORMS_COLUMNS
    assert table[["training", "split"]].values.tolist() == [
        ["target", "id"], ["target+basic", "id"], ["persistence", "id"],
        ["target", "ood"], ["target+basic", "ood"], ["persistence", "ood"],
    ]  # fmt: skip
    by = table.set_index(["training", "split"])
    # two values x two trajectories pooled into one id row of 4 test samples
    assert by.loc[("target", "id"), "n_test"] == 4 and by.loc[("target", "ood"), "n_test"] == 2
    assert by.loc[("target", "id"), "nrmse_mean"] == pytest.approx(0.4)
    assert by.loc[("target+basic", "id"), "nrmse_mean"] == pytest.approx(0.2)
    assert by.loc[("persistence", "id"), "n_seeds"] == 1
    assert np.isnan(by.loc[("persistence", "ood"), "target_fraction"])
    with pytest.raises(ValueError, match="not basic-forms runs"):
        basic_forms_table(pd.concat(frames, ignore_index=True), runs={})


def test_each_table_keeps_the_persistence_of_its_own_protocol(tmp_path):
    """pdebench runs see 10 true frames, cape runs 1: their persistence rows at the same
    value differ and must not be mixed (they were, by value, before)."""
    from pderepro.stages.parametric_reports import run_parametric_tables

    def file(name, model, persistence):
        rows = pd.concat([
            _rows(model, model, 0.4, "seen", 0, np.array([0.1, 0.2])),
            _rows("persistence", "persistence (no learning)", 0.4, "seen", 0, persistence),
        ])  # fmt: skip
        rows.to_csv(tmp_path / name, index=False)
        return str(tmp_path / name)

    cape = file("cape.csv", "fno", np.array([1.0, 1.0]))
    per_value = file("pdebench.csv", "pdebench-0p4", np.array([0.3, 0.3]))
    tables = ("parameters", "cape_gains", "pdebench")
    outputs = {f"{t}_{e}": str(tmp_path / f"{t}.{e}") for t in tables for e in ("csv", "md")}
    run_parametric_tables(
        metrics=[per_value, cape], outputs=outputs, model_order=["fno"], published={},
        version="", cape_pairs={},
    )  # fmt: skip
    for table, expected in (("parameters", 1.0), ("pdebench", 0.3)):
        rows = pd.read_csv(outputs[f"{table}_csv"])
        reference = rows[rows["model"] == "persistence (no learning)"]
        assert reference["nrmse_mean"].tolist() == [pytest.approx(expected)], table
