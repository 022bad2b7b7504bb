"""Preprocessing gives identical outputs on the threaded scheduler and on a dask cluster."""

import logging

import pytest
import xarray as xr

from pderepro.stages import run_generate, run_merge, run_preprocess
from pderepro.stages.data import DASK_SCHEDULER_ENV

DATASET = {
    "name": "burgers",
    "solver": "burgers",
    "viscosity": 0.1,
    "t_final": 0.02,
    "time_step": 1e-3,
    "base_resolution": 64,
    "seed": 5,
    "grf": {"scale": 625.0, "shift": 25.0, "exponent": 2.0},
}


def _preprocess(d, tag):
    run_preprocess(
        raw_train=str(d / "train.nc"),
        raw_test=str(d / "test.nc"),
        resolution=32,
        out_train=str(d / f"{tag}-train.nc"),
        out_test=str(d / f"{tag}-test.nc"),
        out_stats=str(d / f"{tag}-stats.nc"),
        threads=2,
        chunk=4,
    )


@pytest.mark.filterwarnings("ignore:The specified chunks separate")
def test_local_cluster_and_threads_agree(tmp_path, monkeypatch, caplog):
    distributed = pytest.importorskip("distributed")
    for split, n in (("train", 12), ("test", 6)):
        run_generate(
            dataset=DATASET, split=split, start=0, count=n, output=str(tmp_path / f"{split}-0.nc")
        )
        run_merge(inputs=[str(tmp_path / f"{split}-0.nc")], output=str(tmp_path / f"{split}.nc"))
    _preprocess(tmp_path, "threads")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv(DASK_SCHEDULER_ENV, cluster.scheduler_address)
        with caplog.at_level(logging.INFO, logger="pderepro.stages.data"):
            _preprocess(tmp_path, "cluster")
    assert "dask.distributed scheduler at tcp://" in caplog.text
    for name in ("train", "test", "stats"):
        a = xr.open_dataset(tmp_path / f"threads-{name}.nc")
        b = xr.open_dataset(tmp_path / f"cluster-{name}.nc")
        xr.testing.assert_equal(a, b)
