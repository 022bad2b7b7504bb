"""A training run as two jobs (rule train_segment, then train_model resuming from it), as
a cluster with a short job limit runs it, gives the unsegmented run's table exactly."""

import shutil

import pandas as pd
import pytest

from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.slow
TABLE = "results/fno_burgers/tables/resolution.csv"


def test_segmented_training_gives_the_unsegmented_table(smoke_run, tmp_path):
    workdir = tmp_path / "copy"
    shutil.copytree(smoke_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    config = ("preset=smoke", "studies=[fno_burgers]", "cluster={min_segments: 2}")
    result = snakemake("--cores", "2", "--config", *config, cwd=workdir, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    segments = sorted((workdir / "results/fno_burgers/models").rglob("segment0.pt"))
    assert len(segments) == 6  # 3 models x 2 resolutions, seed 0
    pd.testing.assert_frame_equal(pd.read_csv(workdir / TABLE), pd.read_csv(smoke_run / TABLE))
