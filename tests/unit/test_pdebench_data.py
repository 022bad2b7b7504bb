"""PDEBench 1-D datasets: trajectories u(sample, time, x) with the parameter as a coordinate,
per-sample seeds and initial-condition records, the trajectory layout through files, and
the dataset schemas and cost models. Tiny grids (64 cells, 11 frames), Burgers at nu = 0.1."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import pderepro.data.generate_pdebench as gp
from pderepro.config import ConfigError, validate
from pderepro.data.io import DataFileError, open_layout_netcdf, write_netcdf
from pderepro.data.preprocess import normalisation_stats, subsample
from pderepro.data.seeds import sample_seeds
from pderepro.data.specs import DATASET_SPECS
from pderepro.solvers.burgers.viscous_burgers import PDEBenchBurgersProblem, burgers_frames
from pderepro.solvers.common.pdebench_ic import (
    N_CELLS,
    N_FRAMES,
    T_FINAL,
    cell_centres,
    draw_initial_condition,
    evaluate_initial_conditions,
    frame_times,
)
from pderepro.solvers.transport.advection import advection_frames
from pderepro.studies import config_schema
from pderepro.studies.resolution import DATASET_SIZES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
GENERATORS = {
    "pdebench_advection": (gp.generate_pdebench_advection, "beta", 0.7),
    "pdebench_burgers": (gp.generate_pdebench_burgers, "nu", 0.1),
}
SOLVERS = sorted(GENERATORS)
SIZES = {"n_train": 4, "n_validation": 2, "n_test": 2, "shard_size": 4}
SEED = {"seed": 0}


@cache
def _defs() -> dict:
    return config_schema(SCHEMA)["$defs"]


def checked(node: dict) -> dict:
    """``node`` validated (defaults filled) against the dataset schema."""
    validate(node, {"$ref": "#/$defs/dataset", "$defs": _defs()})
    return node


def dataset(solver: str, **overrides) -> dict:
    """A tiny valid dataset config, without its sizes (as the generate rule receives it)."""
    _, name, value = GENERATORS[solver]
    node = {"name": "tiny", "solver": solver, name: value, "base_resolution": 64, "n_frames": 11}
    cfg = checked({**node, **SIZES, "seed": 7, **overrides})
    return {k: v for k, v in cfg.items() if k not in DATASET_SIZES}


def generate(solver: str, *, start: int = 0, count: int = 4, split: str = "train", **overrides):
    return GENERATORS[solver][0](
        dataset(solver, **overrides), split=split, start=start, count=count, device="cpu"
    )


@pytest.fixture(scope="module")
def tiny() -> dict[str, xr.Dataset]:
    """Samples 0..3 of the train split of each solver."""
    return {solver: generate(solver) for solver in SOLVERS}


@pytest.mark.parametrize("solver", SOLVERS)
def test_shapes_coordinates_and_parameter(tiny, solver):
    ds = tiny[solver]
    _, name, value = GENERATORS[solver]
    assert ds["u"].dims == ("sample", "time", "x") and ds["u"].shape == (4, 11, 64)
    assert ds["u"].dtype == np.float32 and np.all(np.isfinite(ds["u"].values))
    np.testing.assert_array_equal(ds["x"], cell_centres(64))
    np.testing.assert_array_equal(ds["time"], frame_times(2.0, 11))
    assert ds["time"].values[0] == 0.0 and ds["time"].values[-1] == 2.0
    np.testing.assert_array_equal(ds["sample"], np.arange(4))
    np.testing.assert_array_equal(ds["seed"], sample_seeds(7, "train", 0, 4))
    # the parameter: a per-sample coordinate, constant within a dataset
    assert name in ds.coords and ds[name].dims == ("sample",)
    np.testing.assert_array_equal(ds[name], np.full(4, value))
    assert ds.attrs["split"] == "train" and ds.attrs["t_final"] == 2.0
    assert {k: ds.attrs[k] for k in DATASET_SPECS[solver].layout.attrs()} == (
        DATASET_SPECS[solver].layout.attrs()
    )


@pytest.mark.parametrize("solver", SOLVERS)
def test_recorded_seeds_and_initial_conditions_reproduce_each_sample(tiny, solver):
    ds = tiny[solver]
    assert ds["ic_mode"].dims == ("sample", "sine") and ds["ic_mode"].shape == (4, 4)
    assert ds["ic_phase"].dims == ("sample", "sine") and ds["ic_windowed"].dims == ("sample",)
    np.testing.assert_array_equal(ds["sine"], [1, 2, 3, 4])  # candidate modes k
    recorded = gp.recorded_initial_conditions(ds)
    drawn = [draw_initial_condition(np.random.default_rng(int(s))) for s in ds["seed"].values]
    assert recorded == drawn  # the seed alone reproduces every drawn parameter
    u0 = evaluate_initial_conditions(recorded, ds["x"].values)  # (sample, x)
    np.testing.assert_array_equal(ds["u"].values[:, 0], u0.astype(np.float32))
    # one sample regenerated alone from its seed by the solver itself
    cfg = dataset(solver)
    one = [drawn[2]]
    if solver == "pdebench_advection":
        alone = advection_frames(one, cfg["beta"], n_cells=64, t_final=2.0, n_frames=11)
    else:
        alone = burgers_frames(one, gp.burgers_problem(cfg), device="cpu").frames
    np.testing.assert_array_equal(ds["u"].values[2], alone[0].astype(np.float32))


@pytest.mark.parametrize("solver", SOLVERS)
def test_samples_do_not_depend_on_sharding(tiny, solver, monkeypatch):
    # batches of 3 put samples 2 and 3 in different Burgers batches of the 0..3 shard
    monkeypatch.setitem(gp.BURGERS_BATCH, "cpu", 3)
    monkeypatch.setattr(gp, "ADVECTION_BATCH", 3)
    whole = generate(solver, start=0, count=4)
    xr.testing.assert_identical(whole, tiny[solver])  # nor on the batch size
    part = generate(solver, start=2, count=2)
    xr.testing.assert_identical(part, whole.isel(sample=slice(2, 4)))


def test_splits_and_base_seeds_draw_different_samples(tiny):
    other = generate("pdebench_advection", split="test", count=2)
    assert not np.array_equal(other["seed"], tiny["pdebench_advection"]["seed"][:2])
    reseeded = generate("pdebench_advection", seed=8, count=2)
    assert not np.array_equal(reseeded["u"], tiny["pdebench_advection"]["u"][:2])


def test_burgers_records_its_resolution_and_refuses_an_under_resolved_sample(tiny, monkeypatch):
    ds = tiny["pdebench_burgers"]
    assert ds["spectral_tail"].dims == ("sample",)
    assert np.all(ds["spectral_tail"].values < 1e-7)
    problem = PDEBenchBurgersProblem(0.1, n_cells=64, n_frames=11)
    assert ds.attrs["internal_resolution"] == problem.resolution == 512
    assert ds.attrs["time_step"] == problem.time_step
    monkeypatch.setattr(gp, "MAX_SPECTRAL_TAIL", 0.0)
    with pytest.raises(gp.UnderResolvedError, match=r"samples \[5, 6\].*points_per_front"):
        generate("pdebench_burgers", start=5, count=2)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_dataset_without_its_parameter_is_refused_by_name(solver):
    _, name, _ = GENERATORS[solver]
    cfg = dataset(solver)
    del cfg[name]
    with pytest.raises(ValueError, match=f"{name} is not set"):
        GENERATORS[solver][0](cfg, split="train", start=0, count=1)


@pytest.mark.parametrize("solver", SOLVERS)
def test_layout_and_cf_attributes_round_trip_through_a_file(tiny, solver, tmp_path):
    path = write_netcdf(tiny[solver], tmp_path / "raw.nc")
    ds, layout = open_layout_netcdf(path, expect_attrs={"split": "train"})
    assert layout == DATASET_SPECS[solver].layout
    assert layout.trajectory_dim == "time" and layout.variables == ("u", GENERATORS[solver][1])
    xr.testing.assert_equal(ds["u"], tiny[solver]["u"])
    for name in ("u", "x", "time", "sample", "seed", "sine", GENERATORS[solver][1]):
        assert {"units", "long_name"} <= set(ds[name].attrs), name
    assert "every saved time" in ds["u"].attrs["long_name"]  # not the FNO-Burgers one
    for name in [v for v in ds.data_vars if str(v).startswith("ic_")]:
        assert {"units", "long_name"} <= set(ds[name].attrs), name
    assert ds["ic_phase"].attrs["units"] == "radian"
    # a file whose target lost its time axis is not a trajectory file
    flat = tiny[solver].isel(time=0)
    with pytest.raises(DataFileError, match="lacks its trajectory dimension 'time'"):
        open_layout_netcdf(write_netcdf(flat, tmp_path / "flat.nc"))


def test_cf_checker_finds_no_errors(tiny, tmp_path):
    pytest.importorskip("compliance_checker.runner")
    from tests.unit.test_cf_compliance import cf_errors

    for solver in SOLVERS:
        path = write_netcdf(tiny[solver], tmp_path / f"{solver}.nc")
        assert cf_errors(path, tmp_path) == [], solver


def test_statistics_of_several_parameter_values_and_spatial_subsampling(tiny):
    layout = DATASET_SPECS["pdebench_advection"].layout
    fast = generate("pdebench_advection", beta=4.0, count=2)
    train = xr.concat([tiny["pdebench_advection"], fast], dim="sample")  # (6, time, x)
    stats = normalisation_stats(train.chunk({"sample": 4}), layout)
    assert set(stats.data_vars) == {"u_mean", "u_std", "beta_mean", "beta_std"}
    u = train["u"].to_numpy().astype(np.float64)
    assert float(stats["u_mean"]) == pytest.approx(np.mean(u), rel=1e-12)
    assert float(stats["u_std"]) == pytest.approx(np.std(u), rel=1e-12)
    beta = np.array([0.7] * 4 + [4.0] * 2)
    assert float(stats["beta_mean"]) == pytest.approx(np.mean(beta), rel=1e-12)
    assert float(stats["beta_std"]) == pytest.approx(np.std(beta), rel=1e-12)
    coarse = subsample(train, resolution=16, grid=layout.grid)  # stride 4 in x only
    assert coarse["u"].dims == ("sample", "time", "x") and coarse["u"].shape == (6, 11, 16)
    np.testing.assert_array_equal(coarse["x"], train["x"][::4])
    np.testing.assert_array_equal(coarse["u"], train["u"][:, :, ::4])
    with pytest.raises(ValueError, match="no stride"):
        subsample(train, resolution=24, grid=layout.grid)


@pytest.mark.parametrize("solver", SOLVERS)
def test_schema_defaults_match_the_solvers_and_unknown_keys_are_refused(solver):
    _, name, value = GENERATORS[solver]
    cfg = checked({"name": "full", "solver": solver, name: value, **SIZES, **SEED})
    assert cfg["base_resolution"] == N_CELLS and cfg["n_frames"] == N_FRAMES
    assert cfg["t_final"] == T_FINAL
    if solver == "pdebench_burgers":
        assert cfg["points_per_front"] == PDEBenchBurgersProblem(1.0).points_per_front
    for key, bad in (("viscosity", 0.1), ("time_step", 1e-3), ("base_resolution", 100)):
        with pytest.raises(ConfigError, match=key):
            checked({**cfg, key: bad})
    with pytest.raises(ConfigError, match=name):
        checked({**cfg, name: -1.0})


def test_cost_models_follow_the_stored_values_and_the_burgers_grid():
    adv, burgers = DATASET_SPECS["pdebench_advection"], DATASET_SPECS["pdebench_burgers"]
    cfg = checked({"name": "full", "solver": "pdebench_burgers", "nu": 1.0, **SIZES, **SEED})
    assert burgers.values_per_sample(cfg) == adv.values_per_sample(cfg) == 201 * 1024
    assert adv.seconds_per_sample(cfg) == pytest.approx(201 * 1024 * 1e-7)
    # nu = 1e-3: 32 times the points and 687 / 22 the steps of nu = 1 (solver's own rule)
    ratio = burgers.seconds_per_sample({**cfg, "nu": 1e-3}) / burgers.seconds_per_sample(cfg)
    assert ratio == pytest.approx(32 * 687 / 22)
    assert 80 < burgers.seconds_per_sample({**cfg, "nu": 1e-3}) < 400
