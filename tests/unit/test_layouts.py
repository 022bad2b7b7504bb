"""Layouts with several input fields and scalar inputs, per-variable statistics, and the
multi-input loader; the single-input statistics stay bit-identical to the role ones."""

import numpy as np
import pytest
import xarray as xr

from pderepro.data.generate import generate_burgers
from pderepro.data.generate_fields import generate_darcy, generate_navier_stokes
from pderepro.data.io import DataFileError, open_layout_netcdf, open_netcdf, write_netcdf
from pderepro.data.layouts import Layout, layout_of
from pderepro.data.model_inputs import model_inputs
from pderepro.data.preprocess import normalisation_stats
from pderepro.data.specs import DATASET_SPECS
from pderepro.stages.learning import _load_stats
from tests.unit.tiny_data import TINY_DATASET, make_raw, preprocess

MULTI = Layout(inputs=("u0", "f"), target="u", grid="periodic", scalars=("speed",))
TRAJECTORY = Layout(
    inputs=("u",), target="u", grid="periodic", scalars=("beta",), trajectory_dim="time"
)

TINY = {
    "burgers": (generate_burgers, TINY_DATASET),
    "darcy": (
        generate_darcy,
        {
            "name": "darcy", "solver": "darcy", "psi_high": 12.0, "psi_low": 3.0,
            "forcing": 1.0, "grf": {"scale": 1.0, "shift": 9.0, "exponent": 2.0},
            "base_resolution": 9, "seed": 5, "face_mean": "arithmetic",
        },
    ),
    "navier_stokes": (
        generate_navier_stokes,
        {
            "name": "ns", "solver": "navier_stokes", "viscosity": 1e-3, "t_final": 12.0,
            "time_step": 1e-2, "base_resolution": 8, "frames_in": 10, "records_per_time": 1,
            "forcing_amplitude": 0.1, "grf": {"scale": 343.0, "shift": 49.0, "exponent": 2.5},
            "seed": 5,
        },
    ),
}  # fmt: skip


def _multi_dataset(n=5, nx=8, split="train", seed=0):
    """Two input fields ``(sample, x)`` and a scalar coordinate ``speed (sample)``."""
    rng = np.random.default_rng(seed)
    ds = xr.Dataset(
        {
            "u0": (("sample", "x"), rng.standard_normal((n, nx)).astype(np.float32)),
            "f": (("sample", "x"), (100 + 5 * rng.standard_normal((n, nx))).astype(np.float32)),
            "u": (("sample", "x"), rng.standard_normal((n, nx)).astype(np.float32)),
        },
        coords={
            "sample": np.arange(n),
            "x": np.arange(nx) / nx,
            "speed": ("sample", rng.uniform(0.1, 4.0, n)),
        },
        attrs={**MULTI.attrs(), "split": split},
    )
    return ds


def _todays_role_stats(train, input_var, target_var):
    """The statistics as preprocessing computed them before per-variable statistics."""
    stats = {}
    for prefix, var in (("input", input_var), ("target", target_var)):
        field = train[var].astype("float64")
        stats[f"{prefix}_mean"] = float(field.mean(skipna=False).compute())
        stats[f"{prefix}_std"] = float(field.std(skipna=False).compute())
    return stats


@pytest.mark.parametrize(
    "layout",
    [
        Layout(inputs=("u0",), target="u", grid="periodic"),
        Layout(inputs=("w_in",), target="w", grid="periodic", scalars=("viscosity",)),
        Layout(inputs=("a", "f"), target="u", grid="vertex"),
        MULTI,
        TRAJECTORY,
        Layout(inputs=("u", "f"), target="u", grid="periodic", trajectory_dim="time"),
    ],
)
def test_layout_attributes_round_trip(layout):
    assert layout_of(layout.attrs()) == layout
    assert ("scalar_inputs" in layout.attrs()) == bool(layout.scalars)
    assert ("trajectory_dim" in layout.attrs()) == (layout.trajectory_dim is not None)


def test_trajectory_layout_reads_its_target_as_input_and_names_it_once():
    assert TRAJECTORY.variables == ("u", "beta")
    assert TRAJECTORY.attrs() == {
        "input_variable": "u", "target_variable": "u", "grid": "periodic",
        "scalar_inputs": "beta", "trajectory_dim": "time",
    }  # fmt: skip
    # a map consumer would pair u with itself and learn the identity
    with pytest.raises(ValueError, match="trajectories of 'u' along 'time'"):
        _ = TRAJECTORY.input
    with pytest.raises(ValueError, match="target must be one of its inputs"):
        Layout(inputs=("u0",), target="u", grid="periodic", trajectory_dim="time")
    with pytest.raises(ValueError, match=r"\['u'\] named more than once \(only a trajectory"):
        Layout(inputs=("u",), target="u", grid="periodic")
    with pytest.raises(ValueError, match=r"\['u'\] named more than once"):
        Layout(inputs=("u", "u"), target="u", grid="periodic", trajectory_dim="time")
    with pytest.raises(ValueError, match=r"\['beta'\] named more than once"):
        Layout(inputs=("u", "beta"), target="u", grid="periodic", scalars=("beta",),
               trajectory_dim="time")  # fmt: skip
    for dim in ("x", "sample"):
        with pytest.raises(ValueError, match="must be a time dimension"):
            Layout(inputs=("u",), target="u", grid="periodic", trajectory_dim=dim)
    for dim in ("", "t,s"):
        with pytest.raises(ValueError, match="without commas"):
            Layout(inputs=("u",), target="u", grid="periodic", trajectory_dim=dim)


def test_single_input_attributes_are_unchanged():
    attrs = DATASET_SPECS["burgers"].layout.attrs()
    assert attrs == {"input_variable": "u0", "target_variable": "u", "grid": "periodic"}
    assert DATASET_SPECS["burgers"].layout.input == "u0"


def test_multi_input_layout_variables_and_attrs():
    assert MULTI.variables == ("u0", "f", "speed", "u")
    assert MULTI.attrs()["input_variable"] == "u0,f"
    assert MULTI.attrs()["scalar_inputs"] == "speed"
    with pytest.raises(ValueError, match=r"Layout\(inputs=\('u0', 'f'\).*2 input fields"):
        _ = MULTI.input


def test_invalid_layouts_are_rejected():
    with pytest.raises(ValueError, match=r"\['u'\] named more than once"):
        Layout(inputs=("u0", "u"), target="u", grid="periodic")
    with pytest.raises(ValueError, match=r"\['a'\] named more than once"):
        Layout(inputs=("a",), target="u", grid="vertex", scalars=("a",))
    with pytest.raises(ValueError, match="at least one input"):
        Layout(inputs=(), target="u", grid="periodic")
    with pytest.raises(ValueError, match="without commas"):
        Layout(inputs=("a,b",), target="u", grid="periodic")
    with pytest.raises(TypeError, match="tuple of names"):
        Layout(inputs="u0", target="u", grid="periodic")
    with pytest.raises(ValueError, match="old.nc: invalid layout"):
        layout_of({"input_variable": "u,u", "target_variable": "w", "grid": "x"}, "old.nc")


def test_missing_layout_attribute_names_the_file(tmp_path):
    attrs = MULTI.attrs()
    del attrs["target_variable"]
    with pytest.raises(ValueError, match=r"old\.nc: no layout attributes \['target_variable'\]"):
        layout_of(attrs, source="old.nc")
    ds = _multi_dataset()
    del ds.attrs["grid"]
    path = write_netcdf(ds, tmp_path / "nolayout.nc")
    with pytest.raises(DataFileError, match=r"nolayout\.nc: no layout attributes \['grid'\]"):
        open_layout_netcdf(path)


def test_open_layout_netcdf_checks_fields_and_scalars(tmp_path):
    ds, layout = open_layout_netcdf(write_netcdf(_multi_dataset(), tmp_path / "ok.nc"))
    assert layout == MULTI and "speed" in ds.coords
    with pytest.raises(DataFileError, match=r"lacks its layout variable\(s\) \['f', 'speed'\]"):
        open_layout_netcdf(
            write_netcdf(_multi_dataset().drop_vars(["f", "speed"]), tmp_path / "lacks.nc")
        )
    gridded = _multi_dataset().drop_vars("speed")
    gridded["speed"] = gridded["u0"]  # (sample, x): not a per-sample scalar
    with pytest.raises(DataFileError, match="single dimension sample"):
        open_layout_netcdf(write_netcdf(gridded, tmp_path / "gridded.nc"))


def test_per_variable_stats_from_the_train_split_only():
    train = _multi_dataset()
    stats = normalisation_stats(train, MULTI)
    assert set(stats.data_vars) == {f"{v}_{s}" for v in MULTI.variables for s in ("mean", "std")}
    for name in MULTI.variables:
        values = train[name].to_numpy().astype(np.float64)
        assert float(stats[f"{name}_mean"]) == np.mean(values)
        assert float(stats[f"{name}_std"]) == np.std(values)
        assert stats[f"{name}_mean"].dtype == np.float64 and stats[f"{name}_std"].shape == ()
    assert stats.attrs["split"] == "train" and stats.attrs["n_samples"] == 5
    with pytest.raises(ValueError, match="train split"):
        normalisation_stats(_multi_dataset(split="test"), MULTI)


#: Every input -> target map spec (trajectory specs have their own statistics tests).
MAP_SOLVERS = sorted(s for s, spec in DATASET_SPECS.items() if spec.layout.trajectory_dim is None)


@pytest.mark.parametrize("solver", MAP_SOLVERS)
def test_single_input_stats_are_bit_identical_to_todays(solver):
    generate, cfg = TINY[solver]
    layout = DATASET_SPECS[solver].layout
    train = generate(cfg, split="train", start=0, count=4)
    stats = normalisation_stats(train, layout)
    for var in (layout.input, layout.target):  # eager: numpy's own reductions
        values = train[var].to_numpy().astype(np.float64)
        assert float(stats[f"{var}_mean"]) == np.mean(values)
        assert float(stats[f"{var}_std"]) == np.std(values)
    # dask-backed, as preprocessing reads it: the very reductions of the role statistics
    lazy = train.chunk({"sample": 3})
    stats = normalisation_stats(lazy, layout)
    today = _todays_role_stats(lazy, layout.input, layout.target)
    assert today == {
        "input_mean": float(stats[f"{layout.input}_mean"]),
        "input_std": float(stats[f"{layout.input}_std"]),
        "target_mean": float(stats[f"{layout.target}_mean"]),
        "target_std": float(stats[f"{layout.target}_std"]),
    }


@pytest.mark.filterwarnings("ignore:The specified chunks separate")
def test_training_reads_the_role_stats_from_the_per_variable_ones(tmp_path):
    make_raw(tmp_path, n_train=6, n_test=2)
    preprocess(tmp_path, 32, "s32", chunk=4)  # two chunks along sample
    train = open_netcdf(tmp_path / "s32-train.nc")
    roles = _load_stats(str(tmp_path / "s32-stats.nc"), train)
    lazy = open_netcdf(tmp_path / "s32-train.nc", chunks={"sample": 4})
    assert roles == _todays_role_stats(lazy, "u0", "u")
    assert set(open_netcdf(tmp_path / "s32-stats.nc").data_vars) == {
        "u0_mean", "u0_std", "u_mean", "u_std",
    }  # fmt: skip
    old = open_netcdf(tmp_path / "s32-stats.nc").rename(
        {"u0_mean": "input_mean", "u0_std": "input_std"}
    )
    write_netcdf(old, tmp_path / "old-stats.nc")
    with pytest.raises(DataFileError, match=r"old-stats\.nc: lacks the statistics.*forcerun"):
        _load_stats(str(tmp_path / "old-stats.nc"), train)


def test_model_inputs_stack_channels_and_normalise_each_variable():
    train = _multi_dataset(n=6, nx=8)
    stats = normalisation_stats(train, MULTI)
    got = model_inputs(train, MULTI, stats)
    assert got.fields.shape == (6, 2, 8) and got.fields.dtype == np.float32
    np.testing.assert_array_equal(got.fields[:, 1], train["f"].to_numpy())
    assert got.scalars.shape == (6, 1) and got.scalars.dtype == np.float32
    np.testing.assert_array_equal(got.scalars[:, 0], train["speed"].to_numpy().astype(np.float32))
    assert got.field_mean.tolist() == [float(stats["u0_mean"]), float(stats["f_mean"])]
    assert got.scalar_std.tolist() == [float(stats["speed_std"])]
    fields, scalars = got.normalised()
    assert fields.dtype == np.float32 and scalars.dtype == np.float32
    # every channel and scalar standardised by its own statistics: mean 0, std 1 each
    np.testing.assert_allclose(fields.mean(axis=(0, 2)), 0.0, atol=1e-5)
    np.testing.assert_allclose(fields.std(axis=(0, 2)), 1.0, rtol=1e-5)
    np.testing.assert_allclose(scalars.mean(axis=0), 0.0, atol=1e-6)
    np.testing.assert_allclose(scalars.std(axis=0), 1.0, rtol=1e-6)
    # the test split is normalised with the train statistics, not its own
    test = _multi_dataset(n=3, split="test", seed=1)
    fields, _ = model_inputs(test, MULTI, stats).normalised()
    f = test["f"].to_numpy().astype(np.float64)
    expected = (f - float(stats["f_mean"])) / float(stats["f_std"])
    np.testing.assert_allclose(fields[:, 1], expected, rtol=1e-6)


def test_model_inputs_refuse_what_cannot_be_stacked():
    train = _multi_dataset()
    stats = normalisation_stats(train, MULTI)
    single = Layout(inputs=("u0",), target="u", grid="periodic")
    assert model_inputs(train, single, stats).scalars.shape == (5, 0)
    bad = train.assign(f=(("sample", "y"), np.zeros((5, 4), np.float32)))
    with pytest.raises(ValueError, match="cannot be stacked"):
        model_inputs(bad, MULTI, stats)
    with pytest.raises(ValueError, match=r"lack \['f_mean', 'f_std'\]"):
        model_inputs(train, MULTI, stats.drop_vars(["f_mean", "f_std"]))
    with pytest.raises(ValueError, match="train split"):
        model_inputs(train, MULTI, stats.assign_attrs(split="test"))
