"""A split generated whole holds the samples its shards, merged, hold (issue 44 replaced
the one-shard merges by whole-split generation)."""

import numpy as np
import xarray as xr

from pderepro.data.provenance import dataset_params
from pderepro.stages import run_assemble_split, run_generate
from tests.unit.tiny_data import TINY_DATASET


def test_whole_split_equals_merged_shards(tmp_path):
    shards = []
    for start, count in ((0, 2), (2, 3)):
        shards.append(str(tmp_path / f"train-{start}.nc"))
        run_generate(dataset=TINY_DATASET, split="train", start=start, count=count,
                     output=shards[-1])  # fmt: skip
    merged, whole = str(tmp_path / "merged.nc"), str(tmp_path / "whole.nc")
    run_assemble_split(dataset=TINY_DATASET, split="train", n_samples=5, shards=shards,
                       output=merged)  # fmt: skip
    run_assemble_split(dataset=TINY_DATASET, split="train", n_samples=5, shards=[],
                       output=whole)  # fmt: skip
    with xr.open_dataset(merged) as a, xr.open_dataset(whole) as b:
        assert list(a.data_vars) == list(b.data_vars)
        for name in a.data_vars:
            np.testing.assert_array_equal(a[name].values, b[name].values)
        np.testing.assert_array_equal(a["sample"].values, np.arange(5))
        assert dataset_params(a.attrs) == dataset_params(b.attrs)
        assert a.attrs["title"] == b.attrs["title"] and a.attrs["split"] == b.attrs["split"]
