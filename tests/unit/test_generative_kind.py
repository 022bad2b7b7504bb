"""The generative-surrogate kind: the shipped study at every preset, bad methods refused
naming their key, the data, reference and training stages on a tiny grid, and the
samples table."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from pderepro.config import ConfigError
from pderepro.stages.generative import (
    run_generative_data,
    run_generative_references,
    run_train_generative,
    samples_table,
)
from pderepro.studies import KINDS, repository_plan
from pderepro.studies.generative import RUN_FILES, labels, train_params
from tests.unit.configs import ROOT, study

STUDY = "pbfm_darcy"


@pytest.mark.parametrize(("preset", "seeds"), [("smoke", 1), ("quick", 2), ("paper", 3)])
def test_job_counts_are_methods_times_seeds(preset, seeds):
    cfg = study(STUDY, preset)
    assert cfg["seeds"] == seeds
    counts = repository_plan(ROOT, preset, [STUDY]).job_counts()
    assert counts["train_generative"] == len(cfg["methods"]) * seeds
    assert counts["generative_data"] == counts["generative_tables"] == 1


def test_a_weight_outside_a_weighted_method_is_refused_naming_the_key():
    cfg = study(STUDY, "smoke")
    cfg["methods"]["fm"]["weight"] = 0.1
    with pytest.raises(ConfigError, match=r"study.x.methods.fm.*weight"):
        KINDS["generative_surrogate"].check("study.x", cfg)
    cfg = study(STUDY, "smoke")
    cfg["methods"]["gaussian"] = {"kind": "fm"}
    with pytest.raises(ConfigError, match="no-learning row"):
        KINDS["generative_surrogate"].check("study.x", cfg)


@pytest.fixture(scope="module")
def darcy(tmp_path_factory):
    path = tmp_path_factory.mktemp("gen") / "samples.nc"
    sizes = {"resolution": 9, "n_train": 8, "n_validation": 6, "n_test": 6}
    run_generative_data(output=str(path), seed=0, title="t", data=sizes)
    return path


def test_the_references_score_the_solver_at_round_off_and_the_gaussian_not(darcy, tmp_path):
    with xr.open_dataset(darcy) as ds:
        assert list(np.unique(ds["split"].values)) == ["test", "train", "validation"]
        assert ds.sizes["sample"] == 20 and ds.sizes["x"] == 9
    out = tmp_path / "refs.csv"
    run_generative_references(data=str(darcy), output=str(out), n_samples=6, seed=0, forcing=1.0)
    refs = pd.read_csv(out).set_index("method")
    assert refs.loc["solver", "residual"] < 1e-10  # our solver's samples solve the scheme
    assert refs.loc["gaussian", "residual"] > 0.1  # independent pixels do not
    assert refs.loc["gaussian", "structure"] > refs.loc["solver", "structure"]


def test_a_training_job_writes_its_outputs_and_is_seeded(darcy, tmp_path):
    settings = train_params(repository_plan(ROOT, "smoke", [STUDY]), STUDY, "pbfm")
    settings["training"] = {**settings["training"], "iterations": 3, "batch_size": 4}
    settings["sampling"] = {"n_samples": 6, "steps": 3}
    settings["network"] = {"width": 4, "levels": 1, "time_features": 8}
    rows = []
    for attempt in range(2):
        outputs = {k: str(tmp_path / f"{attempt}_{k}") for k in RUN_FILES}
        run_train_generative(data=str(darcy), outputs=outputs, method_key="pbfm", seed=1,
                             **settings)  # fmt: skip
        timings = ["s_per_iteration", "sample_s"]  # measured, so not seeded
        rows.append(pd.read_csv(outputs["metrics"]).drop(columns=timings))
        with xr.open_dataset(outputs["samples"]) as drawn:
            assert drawn["K"].shape == (6, 9, 9) and np.isfinite(drawn["p"]).all()
    pd.testing.assert_frame_equal(rows[0], rows[1])


def test_the_samples_table_takes_the_seeds_mean_and_range():
    runs = pd.DataFrame({
        "method": ["fm", "fm", "pbfm", "solver"], "residual": [2.0, 4.0, 1.0, 0.0],
        "energy": [0.1, 0.3, 0.2, 0.0], "structure": [0.5, 0.7, 0.6, 0.0],
        "statistics": [0.0] * 4,
        **{k: [0.0] * 4 for k in ("mmd", "sample_s", "w1_K", "w1_p", "mean_error_K",
                                   "mean_error_p", "std_error_K", "std_error_p")},
    })  # fmt: skip
    table = samples_table(runs, labels(study(STUDY, "smoke"))).set_index("method")
    assert list(table.index) == ["fm", "pbfm", "solver"]  # the study's order, absent left out
    assert table.loc["fm", ["residual_mean", "residual_low", "residual_high"]].tolist() == [
        3.0, 2.0, 4.0
    ]  # fmt: skip
    assert table.loc["fm", "n_seeds"] == 2 and table.loc["pbfm", "energy_high"] == 0.2
    assert table.loc["fm", "structure_low"] == 0.5


@pytest.mark.parametrize(
    ("sections", "key"),
    [({"sigma_min": 0.0}, "sigma_min"), ({"sampling": {"steps": 0}}, "steps"),
     ({"system": "kolmogorov"}, "system")],
)  # fmt: skip
def test_bad_settings_are_refused_at_dry_run_naming_the_key(sections, key):
    with pytest.raises(ConfigError, match=key):
        study(STUDY, "smoke", **sections)
