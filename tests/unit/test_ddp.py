"""DistributedDataParallel on 2 CPU processes (gloo) follows single-process training."""

import pandas as pd
import pytest
import torch

from pderepro.evaluation.predict import load_trained_model
from pderepro.stages import run_generate, run_merge, run_preprocess, run_train

DATASET = {
    "name": "burgers",
    "solver": "burgers",
    "viscosity": 0.1,
    "t_final": 0.05,
    "time_step": 1e-3,
    "base_resolution": 64,
    "seed": 11,
    "grf": {"scale": 625.0, "shift": 25.0, "exponent": 2.0},
}
SPEC = {
    "architecture": "fno1d",
    "label": "FNO",
    "hparams": {"modes": 8, "width": 16, "layers": 2, "projection": 32},
}


@pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed missing")
def test_two_gloo_processes_match_one_process(tmp_path):
    for split, n in (("train", 24), ("test", 4)):
        run_generate(
            dataset=DATASET, split=split, start=0, count=n, output=str(tmp_path / f"{split}-0.nc")
        )
        run_merge(inputs=[str(tmp_path / f"{split}-0.nc")], output=str(tmp_path / f"{split}.nc"))
    run_preprocess(
        raw_train=str(tmp_path / "train.nc"),
        raw_test=str(tmp_path / "test.nc"),
        resolution=64,
        out_train=str(tmp_path / "p-train.nc"),
        out_test=str(tmp_path / "p-test.nc"),
        out_stats=str(tmp_path / "stats.nc"),
    )
    histories = {}
    for devices in (1, 2):
        out = tmp_path / f"devices{devices}"
        run_train(
            train_path=str(tmp_path / "p-train.nc"),
            stats_path=str(tmp_path / "stats.nc"),
            checkpoint=str(out / "checkpoint.pt"),
            history=str(out / "history.csv"),
            study="s",
            model="fno",
            spec=SPEC,
            training={"epochs": 5, "batch_size": 8, "devices": devices, "checkpoint_every": 2},
            seed=0,
            resolution=64,
            threads=2,
        )
        histories[devices] = pd.read_csv(out / "history.csv")["train_rel_l2"]
        model, meta = load_trained_model(out / "checkpoint.pt")  # same checkpoint format
        assert meta["epoch"] == 5 and not (out / "resume.pt").exists()
        assert meta["device"].endswith(" x 2") == (devices == 2)  # really ran on 2 ranks
    assert len(histories[2]) == 5
    assert (histories[1] - histories[2]).abs().max() <= 1e-5, (histories[1], histories[2])
    assert histories[2].iloc[-1] < histories[2].iloc[0]
