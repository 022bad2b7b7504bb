"""DistributedDataParallel on 2 CPU processes (gloo) follows single-process training."""

import pandas as pd
import pytest
import torch

from pderepro.evaluation.predict import load_trained_model
from pderepro.stages import run_train
from tests.unit.tiny_data import make_raw, preprocess

SPEC = {
    "architecture": "fno1d",
    "label": "FNO",
    "hparams": {"modes": 8, "width": 16, "layers": 2, "projection": 32},
}


@pytest.mark.slow  # two processes: 17 s, out of the everyday loop
@pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed missing")
def test_two_gloo_processes_match_one_process(tmp_path):
    make_raw(tmp_path, n_train=24, n_test=4)
    preprocess(tmp_path, 64, "p")
    histories = {}
    for devices in (1, 2):
        out = tmp_path / f"devices{devices}"
        run_train(
            train_path=str(tmp_path / "p-train.nc"),
            validation_path=str(tmp_path / "p-validation.nc"),
            stats_path=str(tmp_path / "p-stats.nc"),
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
