"""A tiny Burgers dataset taken through the data stages, shared by stage-level tests."""

from pathlib import Path

from pderepro.stages import run_generate, run_merge, run_preprocess

#: Short, coarse Burgers runs: each stage takes well under a second.
TINY_DATASET = {
    "name": "burgers",
    "solver": "burgers",
    "viscosity": 0.1,
    "t_final": 0.05,
    "time_step": 1e-3,
    "base_resolution": 64,
    "seed": 3,
    "grf": {"scale": 625.0, "shift": 25.0, "exponent": 2.0},
}


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
