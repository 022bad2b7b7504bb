"""A generated file truncated after a run: the next run names it and removes it, and the
one after makes it again, reruns every job that reads it (Snakemake alone would ignore
the deleted intermediate file) and brings the results back to the clean run's."""

import shutil

import pandas as pd
import pytest

from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.slow
CORRUPT = "data/processed/burgers/res128/test.nc"
TABLE = "results/fno_burgers/tables/resolution.csv"
#: What is compared: the errors (the cost table and the timings are measurements).
ERRORS = ["model", "resolution", "rel_l2_mean", "rel_l2_std", "ci_low", "ci_high"]


def test_a_truncated_input_heals_in_two_runs(smoke_run, tmp_path):
    workdir = tmp_path / "copy"
    shutil.copytree(smoke_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    clean = pd.read_csv(workdir / TABLE)[ERRORS]
    target = workdir / CORRUPT
    data = target.read_bytes()
    target.write_bytes(data[: len(data) // 2])

    args = ("--cores", "2", "--config", "preset=smoke", "studies=[fno_burgers]")
    first = snakemake(*args, cwd=workdir, timeout=1200)
    console = first.stdout + first.stderr
    assert first.returncode != 0
    assert f"{CORRUPT} is corrupt (truncated or damaged) and has been removed" in console
    assert "pderepro: rule " in console and "log: results/logs/" in console
    assert not target.exists()

    second = snakemake(*args, cwd=workdir, timeout=1200)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "pderepro: remaking 1 file(s) an earlier run removed as corrupt" in second.stderr
    assert target.exists()
    pd.testing.assert_frame_equal(pd.read_csv(workdir / TABLE)[ERRORS], clean)
