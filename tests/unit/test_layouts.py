"""Layouts with several input fields and scalar inputs: attributes, validation, files."""

import numpy as np
import pytest
import xarray as xr

from pderepro.data.io import DataFileError, open_layout_netcdf, write_netcdf
from pderepro.data.layouts import Layout, layout_of
from pderepro.data.specs import DATASET_SPECS

MULTI = Layout(inputs=("u0", "f"), target="u", grid="periodic", scalars=("speed",))


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


@pytest.mark.parametrize(
    "layout",
    [
        Layout(inputs=("u0",), target="u", grid="periodic"),
        Layout(inputs=("w_in",), target="w", grid="periodic", scalars=("viscosity",)),
        Layout(inputs=("a", "f"), target="u", grid="vertex"),
        MULTI,
    ],
)
def test_layout_attributes_round_trip(layout):
    assert layout_of(layout.attrs()) == layout
    assert ("scalar_inputs" in layout.attrs()) == bool(layout.scalars)


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
