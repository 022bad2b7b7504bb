"""A tiny Burgers dataset taken through the data stages, shared by stage-level tests."""

from pathlib import Path

from pderepro.stages import run_assemble_split, run_preprocess
from tests.unit.configs import dataset

#: Short, coarse Burgers runs of the shipped study: each stage takes well under a second.
TINY_DATASET = dataset("fno_burgers", base_resolution=64, t_final=0.05, seed=3)


#: The splits every resolution-kind dataset has.
SPLITS = ("train", "validation", "test")


def make_raw(
    directory: Path, *, n_train: int, n_test: int, n_validation: int = 3, dataset=TINY_DATASET
) -> None:
    """Write ``train.nc``/``validation.nc``/``test.nc`` (each generated whole) into
    ``directory``."""
    for split, n in (("train", n_train), ("validation", n_validation), ("test", n_test)):
        output = str(directory / f"{split}.nc")
        run_assemble_split(dataset=dataset, split=split, n_samples=n, shards=[], output=output)


def preprocess(directory: Path, resolution: int, tag: str, **kwargs) -> None:
    """Preprocess the raw splits into ``{tag}-{train,validation,test,stats}.nc``."""
    run_preprocess(
        raw={split: str(directory / f"{split}.nc") for split in SPLITS},
        processed={split: str(directory / f"{tag}-{split}.nc") for split in SPLITS},
        resolution=resolution,
        out_stats=str(directory / f"{tag}-stats.nc"),
        **kwargs,
    )
