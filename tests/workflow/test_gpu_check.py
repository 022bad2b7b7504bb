"""benchmarks/gpu_check.sh runs on a CPU with --dry-run and writes its one JSON."""

import json
import os
import subprocess
import sys

import pytest

from tests.workflow.helpers import ROOT

pytestmark = pytest.mark.slow


def test_gpu_check_dry_run_writes_every_section(tmp_path):
    result = subprocess.run(
        ["bash", str(ROOT / "benchmarks/gpu_check.sh"), "--dry-run", "--out", str(tmp_path)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["dry_run"] is True
    # 10 train shards, 3 assemble_split (the train merge; validation and test, one shard
    # each, generated whole), preprocess, train, evaluate
    assert report["burgers_fno_s1024"]["planned_jobs"] == 16
    cases = report["timings"]["cases"]
    assert {(c["device"], c["bf16_autocast"]) for c in cases} >= {("cpu", False), ("cpu", True)}
    assert all(c["fno_epoch_s"] > 0 and c["ns_step_s"] > 0 for c in cases)
