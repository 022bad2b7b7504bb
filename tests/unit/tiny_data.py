"""A tiny Burgers dataset taken through the data stages, shared by stage-level tests."""

from pathlib import Path

from pderepro.stages import run_generate, run_merge, run_preprocess
from tests.unit.configs import dataset

#: Short, coarse Burgers runs of the shipped study: each stage takes well under a second.
TINY_DATASET = dataset("fno_burgers", base_resolution=64, t_final=0.05, seed=3)


def make_raw(directory: Path, *, n_train: int, n_test: int, dataset=TINY_DATASET) -> None:
    """Write ``train.nc``/``test.nc`` (one shard each, merged) into ``directory``."""
    for split, n in (("train", n_train), ("test", n_test)):
        shard = str(directory / f"{split}-0.nc")
        run_generate(dataset=dataset, split=split, start=0, count=n, output=shard)
        run_merge(inputs=[shard], output=str(directory / f"{split}.nc"))


def preprocess(directory: Path, resolution: int, tag: str, **kwargs) -> None:
    """Preprocess ``train.nc``/``test.nc`` into ``{tag}-{train,test,stats}.nc``."""
    run_preprocess(
        raw_train=str(directory / "train.nc"),
        raw_test=str(directory / "test.nc"),
        resolution=resolution,
        out_train=str(directory / f"{tag}-train.nc"),
        out_test=str(directory / f"{tag}-test.nc"),
        out_stats=str(directory / f"{tag}-stats.nc"),
        **kwargs,
    )
