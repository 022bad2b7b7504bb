"""A tiny Burgers dataset taken through the data stages, shared by stage-level tests."""

from pathlib import Path

from pderepro.stages import run_generate, run_merge, run_preprocess
from tests.unit.configs import dataset

#: Short, coarse Burgers runs of the shipped study: each stage takes well under a second.
TINY_DATASET = dataset("fno_burgers", base_resolution=64, t_final=0.05, seed=3)


#: The splits every resolution-kind dataset has.
SPLITS = ("train", "validation", "test")


def make_raw(
    directory: Path, *, n_train: int, n_test: int, n_validation: int = 3, dataset=TINY_DATASET
) -> None:
    """Write ``train.nc``/``validation.nc``/``test.nc`` (one shard each, merged) into
    ``directory``."""
    for split, n in (("train", n_train), ("validation", n_validation), ("test", n_test)):
        shard = str(directory / f"{split}-0.nc")
        run_generate(dataset=dataset, split=split, start=0, count=n, output=shard)
        run_merge(inputs=[shard], output=str(directory / f"{split}.nc"))


def preprocess(directory: Path, resolution: int, tag: str, **kwargs) -> None:
    """Preprocess the raw splits into ``{tag}-{train,validation,test,stats}.nc``."""
    run_preprocess(
        raw={split: str(directory / f"{split}.nc") for split in SPLITS},
        processed={split: str(directory / f"{tag}-{split}.nc") for split in SPLITS},
        resolution=resolution,
        out_stats=str(directory / f"{tag}-stats.nc"),
        **kwargs,
    )
