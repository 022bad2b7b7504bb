"""Parametric stages on tiny advection data: train a conditioned one-step FNO across two
speeds, roll it out on a seen and an unseen speed, score predicted frames only."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pderepro.data.io import open_netcdf
from pderepro.stages import run_generate, run_merge, run_preprocess
from pderepro.stages.parametric import (
    PARAMETRIC_METRIC_COLUMNS,
    epochs_for_steps,
    load_trajectories,
    run_evaluate_parametric,
    run_train_parametric,
)
from pderepro.training.checkpoint import load_checkpoint

SPLITS = {"train": 6, "validation": 2, "test": 3}
CELLS, FRAMES = 32, 11


def _dataset(beta):
    return {
        "name": f"adv{beta}", "solver": "pdebench_advection", "beta": beta,
        "base_resolution": CELLS, "n_frames": FRAMES, "t_final": 0.5, "seed": 3,
    }  # fmt: skip


def _reaction_dataset(value):
    nu, rho = value
    return {
        "name": f"dr{nu}_{rho}", "solver": "pdebench_diffusion_reaction", "nu": nu, "rho": rho,
        "base_resolution": CELLS, "n_frames": FRAMES, "t_final": 0.5, "steps_per_frame": 2,
        "seed": 4,
    }  # fmt: skip


def _make(root: Path, key, dataset) -> dict[str, str]:
    raw, processed = {}, {}
    for split, n in SPLITS.items():
        shard = str(root / f"{key}-{split}-0.nc")
        run_generate(dataset=dataset, split=split, start=0, count=n, output=shard)
        raw[split] = str(root / f"{key}-{split}.nc")
        run_merge(inputs=[shard], output=raw[split])
        processed[split] = str(root / f"{key}-p-{split}.nc")
    run_preprocess(
        raw=raw, processed=processed, resolution=16, out_stats=str(root / f"{key}-stats.nc")
    )
    return processed


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("parametric")
    return {beta: _make(root, beta, _dataset(beta)) for beta in (0.4, 1.0, 2.0)}


@pytest.fixture(scope="module")
def reaction_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("basic_forms")
    values = ((1.0, 2.0), (1.0, 0.0), (5.0, 10.0))
    return {v: _make(root, f"{v[0]}_{v[1]}", _reaction_dataset(v)) for v in values}


def test_trajectories_are_strided_in_time_and_carry_the_parameter(files):
    u, values = load_trajectories(
        [files[0.4]["test"], files[2.0]["test"]], split="test", parameter="beta", time_stride=5
    )
    assert u.shape == (6, 3, 16) and values.tolist() == [[0.4]] * 3 + [[2.0]] * 3


def test_train_then_evaluate_scores_predicted_frames_only(files, tmp_path):
    ckpt = str(tmp_path / "fno_cape.pt")
    spec = {
        "architecture": "fno1d_cape", "label": "FNO+CAPE", "conditioned": True,
        "hparams": {"modes": 4, "width": 8, "layers": 2, "projection": 8, "cape_modes": 2},
    }  # fmt: skip
    run_train_parametric(
        train_paths=[files[0.4]["train"], files[2.0]["train"]],
        validation_paths=[files[0.4]["validation"], files[2.0]["validation"]],
        checkpoint=ckpt, history=str(tmp_path / "h.csv"), pde="advection", model="fno_cape",
        spec=spec, training={"epochs": 3, "batch_size": 4, "learning_rate": 3e-3},
        protocol={"context": 1, "time_stride": 2, "transform": "log10"}, parameter="beta",
        seed=0,
    )  # fmt: skip
    meta = load_checkpoint(ckpt)["metadata"]
    assert meta["train_values"] == [0.4, 2.0] and 1 <= meta["selected_epoch"] <= 3
    metrics, per_step = tmp_path / "m.csv", tmp_path / "s.csv"
    run_evaluate_parametric(
        checkpoint=ckpt, test_paths=[files[0.4]["test"], files[1.0]["test"]],
        seen_values=meta["train_values"], metrics=str(metrics), per_step=str(per_step),
        predictions=str(tmp_path / "p.nc"), n_keep=2,
    )  # fmt: skip
    rows = pd.read_csv(metrics)
    assert list(rows.columns) == PARAMETRIC_METRIC_COLUMNS
    assert set(rows["model"]) == {"fno_cape", "persistence"}
    assert dict(rows.groupby("value")["split"].first()) == {0.4: "seen", 1.0: "unseen"}
    assert len(rows) == 2 * 2 * SPLITS["test"] and np.isfinite(rows["nrmse"]).all()
    steps = pd.read_csv(per_step)
    assert sorted(steps["step"].unique()) == [1, 2, 3, 4, 5]  # 11 frames, stride 2, context 1
    kept = open_netcdf(tmp_path / "p.nc")
    assert kept["prediction"].shape == (2, 2, 6, 16)  # (value, sample, time, x)
    assert np.isnan(kept["prediction"][:, :, 0]).all()  # the context is not predicted
    assert np.isfinite(kept["prediction"][:, :, 1:]).all()


def test_fractions_keep_the_first_trajectories_of_each_file(files):
    u, values = load_trajectories(
        [files[0.4]["train"], files[2.0]["train"]], split="train", parameter="beta",
        time_stride=1, fractions=[0.25, 1.0],
    )  # fmt: skip
    assert values[:, 0].tolist() == [0.4, 0.4] + [2.0] * 6  # ceil(0.25 * 6) = 2
    full, _ = load_trajectories(
        [files[0.4]["train"]], split="train", parameter="beta", time_stride=1
    )
    np.testing.assert_array_equal(u[:2], full[:2])
    with pytest.raises(ValueError, match=r"fraction 0 is not in \(0, 1\]"):
        load_trajectories([files[0.4]["train"]], split="train", parameter="beta",
                          time_stride=1, fractions=[0])  # fmt: skip


def test_a_step_budget_sets_epochs_and_keeps_the_number_of_rate_halvings():
    base = {"epochs": 20, "step_epochs": 5, "batch_size": 16, "optimizer_steps": 300}
    few = epochs_for_steps(base, n_train=8)  # one batch per epoch
    many = epochs_for_steps(base, n_train=256)  # 16 batches per epoch
    assert (few["epochs"], few["step_epochs"]) == (300, 75)
    assert (many["epochs"], many["step_epochs"]) == (19, 5)
    assert "optimizer_steps" not in few
    assert epochs_for_steps({"epochs": 3}, n_train=8) == {"epochs": 3}


def test_two_parameters_condition_the_model_and_label_the_metrics(reaction_files, tmp_path):
    ckpt = str(tmp_path / "fno.pt")
    seen = [[1.0, 2.0], [1.0, 0.0]]
    run_train_parametric(
        train_paths=[reaction_files[1.0, 2.0]["train"], reaction_files[1.0, 0.0]["train"]],
        validation_paths=[reaction_files[1.0, 2.0]["validation"]],
        checkpoint=ckpt, history=str(tmp_path / "h.csv"), pde="diffusion_reaction",
        model="target_basic-f0p5",
        spec={"architecture": "fno1d_step", "conditioned": True,
              "hparams": {"modes": 4, "width": 8, "layers": 2}},
        training={"epochs": 2, "step_epochs": 1, "batch_size": 4, "optimizer_steps": 6},
        protocol={"context": 1, "time_stride": 2, "transform": "identity"},
        parameter=["nu", "rho"], seed=0, fractions=[0.5, 1.0],
    )  # fmt: skip
    meta = load_checkpoint(ckpt)["metadata"]
    assert meta["train_values"] == [[1.0, 0.0], [1.0, 2.0]] and meta["n_train"] == 3 + 6
    assert meta["training"]["epochs"] == 2 and meta["optimizer_steps"] == 6  # 3 batches each
    metrics = tmp_path / "m.csv"
    run_evaluate_parametric(
        checkpoint=ckpt,
        test_paths=[reaction_files[1.0, 2.0]["test"], reaction_files[5.0, 10.0]["test"]],
        seen_values=seen, metrics=str(metrics), per_step=str(tmp_path / "s.csv"),
        predictions=str(tmp_path / "p.nc"),
    )  # fmt: skip
    rows = pd.read_csv(metrics)
    assert dict(rows.groupby("value")["split"].first()) == {
        "nu=1 rho=2": "seen", "nu=5 rho=10": "unseen"
    }  # fmt: skip
