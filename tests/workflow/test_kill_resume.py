"""Jobs killed with SIGKILL leave nothing that looks complete; a rerun finishes the work
and ends with the same data and weights as an uninterrupted run."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import xarray as xr

from tests.workflow.helpers import copy_workflow, replace_in_file, snakemake

pytestmark = pytest.mark.slow
TARGET = "results/fno_burgers/models/fno/res256/seed0/checkpoint.pt"
ARGS = ("--cores", "1", "--config", "preset=smoke")
SMOKE_BURGERS_EPOCHS = "epochs: 20, batch_size: 10"


def _longer_training(workdir: Path) -> Path:
    """Smoke sizes with 40 Burgers epochs, so that training is long enough to be killed in."""
    longer = "epochs: 40, batch_size: 10"
    replace_in_file(workdir / "config/presets/smoke.yaml", SMOKE_BURGERS_EPOCHS, longer)
    return workdir


def _run_until(workdir: Path, ready, timeout: float = 300) -> None:
    """Start Snakemake and SIGKILL its whole process group once ``ready()`` holds."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", TARGET, *ARGS],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "condition to kill never came"
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _log_has(path: Path, text: str):
    return lambda: path.exists() and text in path.read_text(errors="replace")


def test_killed_jobs_resume_to_the_uninterrupted_result(tmp_path):
    reference = _longer_training(copy_workflow(tmp_path / "reference"))
    result = snakemake(TARGET, *ARGS, cwd=reference, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]

    work = _longer_training(copy_workflow(tmp_path / "killed"))
    shard_log = work / "results/logs/generate_shard/burgers/train-0.log"
    resume = work / "results/fno_burgers/models/fno/res256/seed0/resume.pt"
    # 1: killed while the solver runs, before its NetCDF file exists
    _run_until(work, _log_has(shard_log, "solving"))
    assert not (work / "data/raw/burgers/shards/train-0.nc").exists()
    # 2: killed mid-training, after a resumable checkpoint was written
    assert snakemake("--unlock", *ARGS, cwd=work).returncode == 0
    _run_until(work, resume.exists)
    assert not (work / TARGET).exists()
    assert snakemake("--unlock", *ARGS, cwd=work).returncode == 0
    result = snakemake(TARGET, "--rerun-incomplete", *ARGS, cwd=work, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]

    train_log = work / "results/logs/train_model/fno_burgers/fno/res256/seed0.log"
    assert "resuming from" in train_log.read_text(errors="replace")
    assert not resume.exists()
    for split in ("train", "test"):
        xr.testing.assert_equal(
            xr.open_dataset(reference / f"data/raw/burgers/{split}.nc"),
            xr.open_dataset(work / f"data/raw/burgers/{split}.nc"),
        )
    ours = torch.load(work / TARGET, weights_only=True)["model"]
    theirs = torch.load(reference / TARGET, weights_only=True)["model"]
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert torch.equal(ours[name], theirs[name]), name
    assert not list(work.rglob(".*.tmp")), "temporary files left behind"
