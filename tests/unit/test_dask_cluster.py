"""Preprocessing gives identical outputs on the threaded scheduler and on a dask cluster."""

import logging

import pytest
import xarray as xr

from pderepro.data.scheduler import DASK_SCHEDULER_ENV
from tests.unit.tiny_data import make_raw, preprocess


@pytest.mark.slow  # a local dask cluster: 7 s, out of the everyday loop
@pytest.mark.filterwarnings("ignore:The specified chunks separate")
def test_local_cluster_and_threads_agree(tmp_path, monkeypatch, caplog):
    distributed = pytest.importorskip("distributed")
    make_raw(tmp_path, n_train=12, n_test=6)
    preprocess(tmp_path, 32, "threads", threads=2, chunk=4)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv(DASK_SCHEDULER_ENV, cluster.scheduler_address)
        with caplog.at_level(logging.INFO, logger="pderepro.data.scheduler"):
            preprocess(tmp_path, 32, "cluster", threads=2, chunk=4)
    assert "dask.distributed scheduler at tcp://" in caplog.text
    for name in ("train", "test", "stats"):
        a = xr.open_dataset(tmp_path / f"threads-{name}.nc")
        b = xr.open_dataset(tmp_path / f"cluster-{name}.nc")
        xr.testing.assert_equal(a, b)
