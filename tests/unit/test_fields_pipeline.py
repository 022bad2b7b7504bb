"""Darcy and Navier-Stokes data through the stages: generation, vertex/periodic
subsampling, training, evaluation, the regimes table and super-resolution."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from pderepro.data.generate_fields import generate_darcy, generate_navier_stokes
from pderepro.data.io import open_netcdf
from pderepro.evaluation.tables import REGIME_COLUMNS, regimes_table
from pderepro.stages import (
    run_baseline,
    run_evaluate,
    run_evaluate_superresolution,
    run_generate,
    run_merge,
    run_train,
)
from pderepro.stages.regimes import SUPERRES_COLUMNS
from tests.unit.configs import dataset
from tests.unit.tiny_data import make_raw, preprocess

DARCY = dataset("fno_darcy", name="darcy", base_resolution=17, seed=5)
NS = dataset(
    "fno_navier_stokes",
    name="ns",
    viscosity=1e-3,
    t_final=14.0,
    time_step=1e-2,
    base_resolution=16,
    seed=5,
)
TRAINING = {"epochs": 2, "batch_size": 4, "scheduler": "constant", "checkpoint_every": 1}


def test_darcy_samples_do_not_depend_on_sharding():
    whole = generate_darcy(DARCY, split="train", start=0, count=3)
    part = generate_darcy(DARCY, split="train", start=2, count=1)
    xr.testing.assert_equal(whole.isel(sample=[2]), part)
    assert whole["a"].dims == ("sample", "y", "x")
    assert set(np.unique(whole["a"])) == {3.0, 12.0}
    u = whole["u"].to_numpy()
    assert np.all(u[:, 0, :] == 0) and np.all(u[:, :, -1] == 0)  # u = 0 on the boundary
    assert whole.attrs["input_variable"] == "a" and whole.attrs["grid"] == "vertex"


@pytest.mark.slow  # a Navier-Stokes solve: 11 s, out of the everyday loop
def test_navier_stokes_frames_and_finer_time_sampling():
    coarse = generate_navier_stokes(NS, split="test", start=0, count=2)
    assert coarse["w_in"].shape == (2, 10, 16, 16) and coarse["w"].shape == (2, 4, 16, 16)
    np.testing.assert_allclose(coarse["time_in"], np.arange(1, 11))
    np.testing.assert_allclose(coarse["time"], np.arange(11, 15))
    fine = generate_navier_stokes({**NS, "records_per_time": 2}, split="test", start=1, count=1)
    np.testing.assert_allclose(fine["time"], np.arange(10.5, 14.01, 0.5))
    # the same draw and steps: the unit frames of the finer record are the coarse ones
    np.testing.assert_array_equal(fine["w_in"][0], coarse["w_in"][1])
    np.testing.assert_array_equal(fine["w"][0, 1::2], coarse["w"][1])


@pytest.fixture(scope="module")
def darcy_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("darcy")
    make_raw(directory, n_train=8, n_test=4, dataset=DARCY)
    preprocess(directory, 9, "s9")  # vertex grid: 17 -> 9 keeps both ends
    return directory


def test_darcy_preprocessing_keeps_the_boundary(darcy_run):
    raw = open_netcdf(darcy_run / "train.nc")
    sub = open_netcdf(darcy_run / "s9-train.nc")
    assert sub.sizes["x"] == 9 and float(sub["x"][-1]) == 1.0
    np.testing.assert_array_equal(sub["a"], raw["a"][:, ::2, ::2])


@pytest.mark.parametrize(
    ("architecture", "hparams"),
    [
        ("fno2d", {"modes": 3, "width": 6, "layers": 2, "projection": 8, "padding": 2}),
        ("fcn", {"hidden": [16]}),
        ("pcann", {"components": 4, "hidden": [8]}),
    ],
)
def test_darcy_models_train_and_evaluate(darcy_run, architecture, hparams):
    ckpt = darcy_run / f"{architecture}.pt"
    spec = {"architecture": architecture, "hparams": hparams, "label": architecture}
    run_train(
        train_path=str(darcy_run / "s9-train.nc"), stats_path=str(darcy_run / "s9-stats.nc"),
        validation_path=str(darcy_run / "s9-validation.nc"),
        checkpoint=str(ckpt), history=str(darcy_run / f"{architecture}.csv"), study="darcy",
        model=architecture, spec=spec, training=TRAINING, seed=0, resolution=9,
    )  # fmt: skip
    metrics, predictions = darcy_run / f"{architecture}-m.csv", darcy_run / f"{architecture}-p.nc"
    run_evaluate(
        checkpoint=str(ckpt), test_path=str(darcy_run / "s9-test.nc"), metrics=str(metrics),
        predictions=str(predictions), study="darcy", model=architecture, resolution=9, seed=0,
        n_keep=2,
    )  # fmt: skip
    rows = pd.read_csv(metrics)
    assert np.isfinite(rows["rel_l2"]).all() and list(rows["sample"]) == [0, 1, 2, 3]
    assert 1 <= rows["selected_epoch"].iloc[0] <= TRAINING["epochs"]
    kept = open_netcdf(predictions)
    assert kept["prediction"].dims == ("sample", "y", "x") and kept.sizes["sample"] == 2


def test_navier_stokes_rollout_and_superresolution(tmp_path):
    make_raw(tmp_path, n_train=4, n_test=2, dataset=NS)
    preprocess(tmp_path, 8, "s8")  # periodic: 16 -> 8
    fine_shard = str(tmp_path / "fine-0.nc")
    fine_cfg = {**NS, "records_per_time": 2}
    run_generate(dataset=fine_cfg, split="test", start=0, count=2, output=fine_shard)
    run_merge(inputs=[fine_shard], output=str(tmp_path / "fine.nc"))
    hparams = {"modes": 2, "modes_time": 2, "width": 4, "layers": 1, "projection": 4}
    spec = {"architecture": "fno3d", "hparams": hparams, "label": "FNO-3D"}
    ckpt = str(tmp_path / "fno3d.pt")
    run_train(
        train_path=str(tmp_path / "s8-train.nc"), stats_path=str(tmp_path / "s8-stats.nc"),
        validation_path=str(tmp_path / "s8-validation.nc"),
        checkpoint=ckpt, history=str(tmp_path / "h.csv"), study="ns/nu1e-3", model="fno3d",
        spec=spec, training=TRAINING, seed=0, resolution=8,
    )  # fmt: skip
    run_evaluate(
        checkpoint=ckpt, test_path=str(tmp_path / "s8-test.nc"), metrics=str(tmp_path / "m.csv"),
        predictions=str(tmp_path / "p.nc"), study="ns/nu1e-3", model="fno3d", resolution=8,
        seed=0, n_keep=1,
    )  # fmt: skip
    per_frame = open_netcdf(tmp_path / "p.nc")["rel_l2_per_frame"]
    assert per_frame.dims == ("time",) and per_frame.size == 4
    for reference in ("persistence", "linear_extrapolation", "training_mean"):
        run_baseline(
            test_path=str(tmp_path / "s8-test.nc"), train_path=str(tmp_path / "s8-train.nc"),
            metrics=str(tmp_path / f"{reference}.csv"), predictions=str(tmp_path / "b.nc"),
            study="ns/nu1e-3", baseline=reference, label=reference, resolution=8,
            dataset=NS, n_keep=1,
        )  # fmt: skip
        error = pd.read_csv(tmp_path / f"{reference}.csv")["rel_l2"].mean()
        assert 0 < error < 10, (reference, error)
    run_evaluate_superresolution(
        checkpoint=ckpt, test_path=str(tmp_path / "fine.nc"), metrics=str(tmp_path / "sr.csv"),
        markdown=str(tmp_path / "sr.md"), predictions=str(tmp_path / "sr.nc"),
        regime="nu1e-3", time_factor=2, n_keep=1,
    )  # fmt: skip
    row = pd.read_csv(tmp_path / "sr.csv")
    assert list(row.columns) == SUPERRES_COLUMNS
    assert row["test_resolution"].item() == 16 and row["train_resolution"].item() == 8
    columns = ["rel_l2_as_trained", "rel_l2_space_only", "rel_l2_time_only", "rel_l2"]
    assert np.isfinite(row[columns].to_numpy()).all()
    assert open_netcdf(tmp_path / "sr.nc")["prediction"].shape == (1, 8, 16, 16)


def test_regimes_table_orders_models_and_regimes_and_keeps_published_apart():
    runs = pd.DataFrame(
        {
            "model": ["unet", "fno3d", "fno3d", "fno3d"],
            "label": ["U-Net", "FNO-3D", "FNO-3D", "FNO-3D"],
            "regime": ["a", "b", "a", "a"],
            "seed": [0, 0, 0, 1],
            "rel_l2": [0.3, 0.2, 0.1, 0.3],
            "n_params": [5, 7, 7, 7],
            "val_rel_l2": [0.4, 0.3, 0.2, 0.4],
        }
    )
    # two test samples per run, errors 0.5x and 1.5x the run's mean
    metrics = pd.concat(
        [runs.assign(sample=k, rel_l2=runs["rel_l2"] * f) for k, f in enumerate((0.5, 1.5))]
    )
    regimes = {
        "a": {"label": "nu=1e-3", "n_train": 10, "t_final": 14},
        "b": {"n_train": 20, "t_final": 12},
    }
    cell = {"value": 0.0086, "n_train": 1000, "t_final": 50.0, "verified": False}
    table = regimes_table(
        metrics, regimes=regimes, published={"fno3d": {"a": cell}}, model_order=["fno3d", "unet"]
    )
    assert list(table.columns) == REGIME_COLUMNS
    assert list(zip(table["model"], table["regime"], strict=True)) == [
        ("FNO-3D", "nu=1e-3"),
        ("FNO-3D", "b"),
        ("U-Net", "nu=1e-3"),
    ]
    first = table.iloc[0]
    assert first["rel_l2_mean"] == pytest.approx(0.2) and first["n_seeds"] == 2
    assert first["rel_l2_std"] == pytest.approx(np.std([0.1, 0.3], ddof=1))
    assert first["n_test"] == 2 and first["val_rel_l2"] == pytest.approx(0.3)
    # seed-averaged per-sample errors 0.1 and 0.3: every resampled mean lies in [0.1, 0.3]
    assert 0.1 <= first["ci_low"] < first["rel_l2_mean"] < first["ci_high"] <= 0.3
    assert first["published"] == 0.0086 and np.isnan(table.iloc[1]["published"])
    # ours and the paper's N and T side by side; the flag empty where nothing is published
    assert (first["n_train"], first["t_final"]) == (10, 14.0)
    assert (first["published_n_train"], first["published_t_final"]) == (1000, 50.0)
    assert list(table["published_verified"].fillna(True)) == [False, True, True]
    assert table.loc[1:, ["published_n_train", "published_verified"]].isna().all(axis=None)
