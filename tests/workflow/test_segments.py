"""A training run as two jobs (rule train_segment, then train_model resuming from it; the
step-by-step kinds' train_pinn_segment and train_nsm_segment alike), as a cluster with a
short job limit runs it, gives the unsegmented run's table and weights exactly."""

import shutil

import pandas as pd
import pytest
import torch
import xarray as xr

from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.slow
TABLE = "results/fno_burgers/tables/resolution.csv"
#: What differs between two runs of the same DNS: its timings and when it was written.
TIMING_ATTRS = ("wall_seconds", "wall_s_per_member_time", "created_utc", "history")


def test_segmented_training_gives_the_unsegmented_table(smoke_run, tmp_path):
    workdir = tmp_path / "copy"
    shutil.copytree(smoke_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    config = ("preset=smoke", "studies=[fno_burgers]", "cluster={min_segments: 2}")
    result = snakemake("--cores", "2", "--config", *config, cwd=workdir, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    segments = sorted((workdir / "results/fno_burgers/models").rglob("segment0.pt"))
    assert len(segments) == 6  # 3 models x 2 resolutions, seed 0
    pd.testing.assert_frame_equal(pd.read_csv(workdir / TABLE), pd.read_csv(smoke_run / TABLE))


@pytest.mark.parametrize("study", ["pig", "nsm"])
def test_segmented_step_runs_end_with_the_unsegmented_weights(smoke_run, tmp_path, study):
    """PIG's and NSM's runs (rules train_pinn_segment and train_nsm_segment, then the run's
    own job resuming from it) end with the one-job runs' weights and errors, bit for bit."""
    workdir = tmp_path / "copy"
    shutil.copytree(smoke_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    config = ("preset=smoke", f"studies=[{study}]", "cluster={min_segments: 2}")
    result = snakemake("--cores", "2", "--config", *config, cwd=workdir, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    runs = sorted((smoke_run / "results" / study).rglob("runs/*/seed*/checkpoint.pt"))
    mine = [workdir / p.relative_to(smoke_run) for p in runs]
    assert any(p.with_name("segment0.pt").exists() for p in mine), f"no {study} run was segmented"
    for path, segmented in zip(runs, mine, strict=True):
        weights = torch.load(segmented, weights_only=True)["model"]
        reference = torch.load(path, weights_only=True)["model"]
        assert weights.keys() == reference.keys()
        assert all(torch.equal(weights[k], reference[k]) for k in weights), segmented
        metrics = pd.read_csv(segmented.with_name("metrics.csv"))
        expected = pd.read_csv(path.with_name("metrics.csv"))
        pd.testing.assert_series_equal(metrics["rel_l2"], expected["rel_l2"])


def test_segmented_dns_truth_gives_the_one_job_file(smoke_run, tmp_path):
    """The LES study's DNS truth runs as generate_truth_segment jobs, then generate_truth
    gathering them, write the one-job truth files' values (only timings and dates differ)."""
    workdir = tmp_path / "copy"
    shutil.copytree(smoke_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    truth = sorted((smoke_run / "data/raw/les_turbulence").rglob("*.nc"))
    assert truth, "the smoke run wrote no DNS truth"
    targets = [str(p.relative_to(smoke_run)) for p in truth]
    config = ("preset=smoke", "studies=[les_turbulence]", "cluster={min_segments: 3}")
    result = snakemake("--cores", "2", "--config", *config, "--", *targets, cwd=workdir,
                       timeout=1200)  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert len(list((workdir / "data/interim/les_turbulence").rglob("segment1.pt"))) == len(truth)
    for path in truth:
        one = xr.load_dataset(path)
        cut = xr.load_dataset(workdir / path.relative_to(smoke_run))
        for ds in (one, cut):
            for key in TIMING_ATTRS:
                ds.attrs.pop(key)
        xr.testing.assert_identical(one, cut)
