"""The Slurm profile against a real one-node Slurm cluster (started by local_slurm.sh).

Runs only as root where apt-get (or an installed Slurm) is available, as on CI.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr
import yaml

from tests.workflow.helpers import ROOT, copy_workflow, declared_resources

CLUSTER_SCRIPT = Path(__file__).with_name("local_slurm.sh")
can_run = os.geteuid() == 0 and (shutil.which("apt-get") or shutil.which("slurmctld"))
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not can_run, reason="needs root and apt-get (or Slurm)"),
]
# bound every Snakemake call: the slurm executor can wait forever on failed status checks
TIMEOUT = ["timeout", "-k", "15"]


@pytest.fixture(scope="module")
def cluster():
    subprocess.run(["bash", str(CLUSTER_SCRIPT), "start"], check=True, timeout=600)
    yield
    subprocess.run(["bash", str(CLUSTER_SCRIPT), "stop"], check=False, timeout=120)


def _site_profile(workdir: Path) -> None:
    """The project's Slurm profile with this test cluster's site settings filled in."""
    profile = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
    profile["default-resources"]["slurm_partition"] = "debug"
    profile["slurm-no-account"] = True
    profile["slurm-init-seconds-before-status-checks"] = 2  # MinJobAge=600 >= 3 x 2
    profile["latency-wait"] = 5
    (workdir / "profiles/slurm").mkdir(parents=True)
    (workdir / "profiles/slurm/config.yaml").write_text(yaml.safe_dump(profile))


def _snakemake(workdir: Path, *args: str, seconds: int, env=None) -> subprocess.CompletedProcess:
    cmd = [*TIMEOUT, str(seconds), sys.executable, "-m", "snakemake", *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=env)


def _job_records() -> list[dict[str, str]]:
    out = subprocess.run(
        ["scontrol", "show", "job", "-o"], capture_output=True, text=True, check=True
    ).stdout
    return [dict(re.findall(r"(\w+)=(\S*)", line)) for line in out.splitlines() if line.strip()]


# The executor is what is under test; the Burgers study exercises every resource kind
# (CPU jobs, GPU training) and keeps the run short.
CONFIG = ("--config", "preset=smoke", "studies=[fno_burgers]")
#: Every training as two cluster jobs (a train_segment, then train_model resuming from it):
#: the segmented run must give the local unsegmented run's table to the last digit.
SEGMENTED = (*CONFIG, "cluster={min_segments: 2}")
TRAINING_RULES = ("train_model", "train_segment")


def _declared_resources(workdir: Path) -> list[dict[str, int]]:
    """mem_mb and runtime of each training job, as the rules declare them (dry run)."""
    dry = _snakemake(workdir, "-n", "--forceall", *SEGMENTED, seconds=120)
    declared = declared_resources(dry.stdout)
    return [job for rule in TRAINING_RULES for job in declared[rule]]


def test_segmented_smoke_preset_through_slurm_matches_a_local_run(cluster, smoke_run, tmp_path):
    workdir = copy_workflow(tmp_path)
    _site_profile(workdir)
    result = _snakemake(workdir, "--profile", "profiles/slurm", *SEGMENTED, seconds=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]

    table = "results/fno_burgers/tables/resolution.csv"
    pd.testing.assert_frame_equal(pd.read_csv(workdir / table), pd.read_csv(smoke_run / table))
    for split in ("train", "test"):
        xr.testing.assert_equal(
            xr.open_dataset(workdir / f"data/raw/burgers/{split}.nc"),
            xr.open_dataset(smoke_run / f"data/raw/burgers/{split}.nc"),
        )

    # the job records: every training job asked for a GPU and the declared memory and time
    declared = _declared_resources(workdir)
    training = [
        r
        for r in _job_records()
        if r.get("Comment", "").startswith(tuple(f"rule_{rule}_" for rule in TRAINING_RULES))
        and r.get("WorkDir") == str(workdir)
    ]
    assert len(training) == len(declared) == 12  # 6 trainings, each of 2 segments
    for record in training:
        assert "gpu:1" in record.get("TresPerJob", "") + record.get("TresPerNode", ""), record
        assert record["JobState"] == "COMPLETED", record
    asked = sorted((int(r["MinMemoryNode"].rstrip("M")), r["TimeLimit"]) for r in training)
    expected = sorted(
        (d["mem_mb"], f"{d['runtime'] // 60:02d}:{d['runtime'] % 60:02d}:00") for d in declared
    )
    assert asked == expected


def test_a_failing_cluster_job_fails_the_run(cluster, smoke_run, tmp_path):
    workdir = copy_workflow(tmp_path)
    _site_profile(workdir)
    for sub in ("data", "results"):
        shutil.copytree(smoke_run / sub, workdir / sub)
    target = "results/fno_burgers/models/fno/res128/seed0/checkpoint.pt"
    # a job asked to train on a GPU that does not exist fails on the node
    env = {**os.environ, "PDEREPRO_DEVICE": "cuda:7"}
    result = _snakemake(
        workdir,
        target,
        "--forcerun",
        "train_model",
        "--profile",
        "profiles/slurm",
        *CONFIG,
        seconds=600,
        env=env,
    )
    assert result.returncode not in (0, 124, 137), result.stderr[-3000:]
    assert "train_model" in result.stdout + result.stderr
