"""Bad files fail the consuming stage with a message naming the file and the problem."""

import shutil

import numpy as np
import pytest
import torch

from pderepro.data.io import DataFileError, ensure_free_space, open_netcdf
from pderepro.stages import run_evaluate, run_generate, run_merge, run_preprocess, run_train
from pderepro.training.checkpoint import CheckpointError
from tests.unit.tiny_data import TINY_DATASET, make_raw, preprocess

SPEC = {
    "architecture": "fno1d",
    "label": "FNO",
    "hparams": {"modes": 4, "width": 4, "layers": 1, "projection": 8},
}
TRAINING = {"epochs": 1, "batch_size": 4, "checkpoint_every": 1}


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """A tiny dataset taken through generation, merging and preprocessing at s=32 and 16."""
    d = tmp_path_factory.mktemp("pipe")
    make_raw(d, n_train=8, n_test=4)
    for res in (32, 16):
        preprocess(d, res, f"res{res}")
    return d


def _train(
    d,
    *,
    train="res32-train.nc",
    validation="res32-validation.nc",
    stats="res32-stats.nc",
    resolution=32,
    out="ckpt.pt",
):
    run_train(
        train_path=str(d / train),
        validation_path=str(d / validation),
        stats_path=str(d / stats),
        checkpoint=str(d / out),
        history=str(d / "history.csv"),
        study="s",
        model="fno",
        spec=SPEC,
        training=TRAINING,
        seed=0,
        resolution=resolution,
    )


def test_truncated_netcdf_is_named(pipeline, tmp_path):
    data = (pipeline / "train.nc").read_bytes()
    bad = tmp_path / "train.nc"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFileError, match="train.nc"):
        open_netcdf(bad)
    with pytest.raises(DataFileError, match="train.nc"):
        run_preprocess(
            raw={"train": str(bad), "test": str(pipeline / "test.nc")},
            processed={"train": str(tmp_path / "a.nc"), "test": str(tmp_path / "b.nc")},
            resolution=32,
            out_stats=str(tmp_path / "c.nc"),
        )
    assert not (tmp_path / "a.nc").exists()


def test_corrupted_netcdf_is_named(pipeline, tmp_path):
    data = bytearray((pipeline / "res32-test.nc").read_bytes())
    data[100:4000] = bytes(3900)  # zero a block inside the HDF5 structures
    bad = tmp_path / "res32-test.nc"
    bad.write_bytes(bytes(data))
    with pytest.raises(DataFileError, match="res32-test.nc"):
        open_netcdf(bad)


def test_splits_swapped_are_refused(pipeline, tmp_path):
    with pytest.raises(DataFileError, match="split"):
        run_preprocess(
            raw={"train": str(pipeline / "test.nc"), "test": str(pipeline / "train.nc")},
            processed={"train": str(tmp_path / "a.nc"), "test": str(tmp_path / "b.nc")},
            resolution=32,
            out_stats=str(tmp_path / "c.nc"),
        )
    with pytest.raises(DataFileError, match="res32-test.nc.*split"):
        _train(pipeline, train="res32-test.nc")
    with pytest.raises(DataFileError, match="res32-test.nc.*split"):
        _train(pipeline, validation="res32-test.nc")  # the test split never selects
    with pytest.raises(DataFileError, match="resolution 16, expected 32"):
        _train(pipeline, validation="res16-validation.nc")


def test_stats_from_other_data_are_refused(pipeline):
    with pytest.raises(DataFileError, match="res16-stats.nc.*other data"):
        _train(pipeline, stats="res16-stats.nc")
    with pytest.raises(DataFileError, match="resolution 16, expected 32"):
        _train(pipeline, train="res16-train.nc")


def test_stats_from_the_test_split_are_refused(pipeline, tmp_path):
    stats = open_netcdf(pipeline / "res32-stats.nc")
    stats.attrs["split"] = "test"
    stats.to_netcdf(tmp_path / "stats.nc")
    for split in ("train", "validation"):
        shutil.copy(pipeline / f"res32-{split}.nc", tmp_path / f"res32-{split}.nc")
    with pytest.raises(DataFileError, match="stats.nc.*split='test'"):
        _train(tmp_path, stats="stats.nc")


def test_shards_of_different_datasets_do_not_merge(pipeline, tmp_path):
    other = {**TINY_DATASET, "viscosity": 0.2}
    first = str(tmp_path / "a.nc")
    run_generate(dataset=TINY_DATASET, split="train", start=0, count=8, output=first)
    run_generate(dataset=other, split="train", start=8, count=2, output=str(tmp_path / "x.nc"))
    with pytest.raises(DataFileError, match="x.nc: made with other dataset parameters"):
        run_merge(
            inputs=[first, str(tmp_path / "x.nc")],
            output=str(tmp_path / "m.nc"),
        )


def _evaluate(d, checkpoint, *, model):
    run_evaluate(
        checkpoint=str(d / checkpoint),
        test_path=str(d / "res32-test.nc"),
        metrics=str(d / "m.csv"),
        predictions=str(d / "p.nc"),
        study="s",
        model=model,
        resolution=32,
        seed=0,
        n_keep=2,
    )


def test_checkpoint_of_another_model_is_refused(pipeline):
    _train(pipeline)
    with pytest.raises(CheckpointError, match="ckpt.pt.*model='fno', expected 'fcn'"):
        _evaluate(pipeline, "ckpt.pt", model="fcn")
    (pipeline / "garbage.pt").write_bytes(b"\x00" * 100)
    with pytest.raises(CheckpointError, match="garbage.pt"):
        _evaluate(pipeline, "garbage.pt", model="fno")


def test_checkpoints_load_without_unpickling_code(pipeline):
    _train(pipeline, out="safe.pt")
    payload = torch.load(pipeline / "safe.pt", weights_only=True)  # raises if code is pickled
    assert isinstance(payload["metadata_json"], str)


def test_disk_space_is_checked_with_numbers(tmp_path):
    with pytest.raises(OSError, match=r"need 1000000000000000.0 MB, [0-9.]+ MB free"):
        ensure_free_space(tmp_path / "sub/out.nc", 1e21, what="a huge dataset")
    ensure_free_space(tmp_path / "out.nc", 1.0, what="a byte")


def test_generated_data_are_finite_and_seeded(pipeline):
    ds = open_netcdf(pipeline / "train.nc")
    assert np.isfinite(ds["u"]).all()
    assert ds["seed"].size == 8 and len(set(ds["seed"].to_numpy())) == 8
