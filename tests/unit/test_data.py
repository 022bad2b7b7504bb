"""Data layer: NetCDF round trip, dask == eager, statistics from train only, seeds."""

import numpy as np
import pytest
import xarray as xr
import xarray.testing as xrt

from pderepro.data.conventions import VARIABLE_ATTRS
from pderepro.data.generate import generate_burgers
from pderepro.data.io import DataFileError, open_netcdf, write_netcdf
from pderepro.data.layouts import Layout
from pderepro.data.preprocess import normalisation_stats, subsample
from pderepro.data.provenance import provenance_attrs
from pderepro.data.seeds import sample_seeds
from pderepro.data.sharding import n_shards, shard_bounds
from tests.unit.configs import dataset

CFG = dataset("fno_burgers", t_final=0.1, base_resolution=64, seed=7)

LAYOUT = Layout(inputs=("u0",), target="u", grid="periodic")


def _dataset(n=12, nx=32, split="train", seed=0):
    rng = np.random.default_rng(seed)
    ds = xr.Dataset(
        {
            "u0": (("sample", "x"), rng.standard_normal((n, nx)).astype(np.float32)),
            "u": (("sample", "x"), rng.standard_normal((n, nx)).astype(np.float32) * 0.01),
        },
        coords={"sample": np.arange(n), "x": np.arange(nx) / nx},
    )
    ds.attrs.update(provenance_attrs(title="t", rule="test", params={"a": 1}, seed=3))
    ds.attrs["split"] = split
    return ds


def test_netcdf_round_trip_keeps_values_and_attrs(tmp_path):
    ds = _dataset()
    path = write_netcdf(ds, tmp_path / "a.nc")
    back = open_netcdf(path)
    xrt.assert_identical(back, xr.open_dataset(path).load())
    xrt.assert_allclose(back, ds)
    assert back["u0"].attrs["long_name"] == VARIABLE_ATTRS["u0"]["long_name"]
    for key in ("Conventions", "git_commit", "params", "seed", "created_utc", "history"):
        assert key in back.attrs
    assert not list(tmp_path.glob(".*tmp")), "temporary file left behind"


def test_open_netcdf_names_the_file_when_corrupt(tmp_path):
    bad = tmp_path / "bad.nc"
    bad.write_bytes(b"not a netcdf file")
    with pytest.raises(DataFileError, match="bad.nc"):
        open_netcdf(bad)
    with pytest.raises(DataFileError, match="missing variable"):
        open_netcdf(write_netcdf(_dataset(), tmp_path / "ok.nc"), required=("w",))


def test_subsample_strides_and_rejects_non_divisors():
    ds = _dataset(nx=32)
    sub = subsample(ds, resolution=8)
    np.testing.assert_array_equal(sub["x"], ds["x"][::4])
    with pytest.raises(ValueError, match="no stride"):
        subsample(ds, resolution=12)


def test_vertex_grids_keep_both_ends_in_every_dimension():
    s = 421
    grid = np.linspace(0.0, 1.0, s)
    ds = xr.Dataset(
        {"a": (("sample", "y", "x"), np.zeros((1, s, s), np.float32))},
        coords={"y": grid, "x": grid},
    )
    for res, stride in ((211, 2), (141, 3), (106, 4), (85, 5)):
        sub = subsample(ds, resolution=res, grid="vertex")
        assert sub.sizes == {"sample": 1, "y": res, "x": res}
        np.testing.assert_array_equal(sub["x"], grid[::stride])
        assert sub["x"][-1] == 1.0
    with pytest.raises(ValueError, match="no stride"):
        subsample(ds, resolution=100, grid="vertex")


@pytest.mark.filterwarnings("ignore:The specified chunks separate")
def test_dask_and_eager_preprocessing_agree(tmp_path):
    path = write_netcdf(_dataset(n=40, nx=64), tmp_path / "train.nc")
    eager = normalisation_stats(subsample(open_netcdf(path), resolution=16), LAYOUT)
    lazy_ds = subsample(open_netcdf(path, chunks={"sample": 7}), resolution=16)
    assert lazy_ds["u0"].chunks is not None
    lazy = normalisation_stats(lazy_ds, LAYOUT)
    xrt.assert_allclose(eager, lazy, rtol=1e-12)


def test_statistics_refuse_other_splits():
    with pytest.raises(ValueError, match="train split"):
        normalisation_stats(_dataset(split="test"), LAYOUT)


def test_statistics_use_train_only():
    train = _dataset(seed=1)
    stats = normalisation_stats(train, LAYOUT)
    assert float(stats["u0_mean"]) == pytest.approx(float(train["u0"].astype(float).mean()))
    assert stats.attrs["n_samples"] == train.sizes["sample"]


def test_seeds_are_per_sample_and_split():
    a = sample_seeds(1, "train", 0, 10)
    assert len(set(a)) == 10
    np.testing.assert_array_equal(sample_seeds(1, "train", 4, 3), a[4:7])
    assert not set(sample_seeds(1, "test", 0, 10)) & set(a)
    with pytest.raises(ValueError, match="unknown split"):
        sample_seeds(1, "val", 0, 1)


def test_shards_partition_the_split():
    bounds = [shard_bounds(45, 20, s) for s in range(n_shards(45, 20))]
    assert bounds == [(0, 20), (20, 20), (40, 5)]
    with pytest.raises(ValueError, match="out of range"):
        shard_bounds(45, 20, 3)


def test_generation_is_deterministic_and_independent_of_sharding():
    whole = generate_burgers(CFG, split="train", start=0, count=4, device="cpu")
    again = generate_burgers(CFG, split="train", start=0, count=4, device="cpu")
    part = generate_burgers(CFG, split="train", start=2, count=2, device="cpu")
    xrt.assert_identical(whole, again)
    np.testing.assert_array_equal(whole["u"][2:].to_numpy(), part["u"].to_numpy())
    np.testing.assert_array_equal(whole["seed"][2:].to_numpy(), part["seed"].to_numpy())
    assert whole["u0"].dtype == np.float32 and whole.attrs["solver_dtype"] == "float64"


def test_written_files_get_the_usual_permissions(tmp_path):
    """Not mkstemp's owner-only 0600: results are shared on clusters and web servers."""
    import os

    from pderepro.data.io import atomic_write

    umask = os.umask(0o022)
    try:
        path = atomic_write(tmp_path / "page.html", lambda tmp: tmp.write_text("x"))
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644
