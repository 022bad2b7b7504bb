"""CF attributes of every variable pderepro writes (FNO-paper fields, Lorenz-96 truth and
closure pairs), defined once.

xarray drops attributes on arithmetic, so every writer calls :func:`apply_conventions`
just before saving; the attributes below are the single source of truth. Time is model
time in the papers' dimensionless units: CF has no encoding for a dimensionless time
coordinate (it wants "<unit> since <date>"), so a CF checker flags ``time`` and
``time_in`` and nothing else (``tests/unit/test_cf_compliance.py``).
"""

from __future__ import annotations

import xarray as xr

#: CF attributes of coordinates and data variables, by variable name.
VARIABLE_ATTRS: dict[str, dict[str, str]] = {
    "sample": {"long_name": "sample index within the split", "units": "1"},
    "x": {"long_name": "position on the unit interval", "units": "1", "axis": "X"},
    "y": {"long_name": "position on the unit interval (second axis)", "units": "1", "axis": "Y"},
    "time": {"long_name": "time", "units": "1", "axis": "T"},
    "seed": {"long_name": "seed of the random draw for this sample", "units": "1"},
    "viscosity": {"long_name": "kinematic viscosity nu", "units": "1"},
    "time_in": {"long_name": "time of an input frame", "units": "1", "axis": "T"},
    "u0": {"long_name": "initial condition u(x, t=0)", "units": "1"},
    "u": {"long_name": "solution u (Burgers: at t=t_final; Darcy: pressure)", "units": "1"},
    "a": {"long_name": "Darcy permeability coefficient a(x, y)", "units": "1"},
    "w_in": {"long_name": "vorticity, input frames", "units": "1"},
    "w": {"long_name": "vorticity, target frames", "units": "1"},
    "prediction": {"long_name": "model prediction of the target variable", "units": "1"},
    # two-scale Lorenz-96 truth runs and closure pairs
    "X": {"long_name": "slow variable X_k of two-scale Lorenz-96", "units": "1"},
    "Y": {"long_name": "fast variable Y_j,k of two-scale Lorenz-96", "units": "1"},
    "k": {"long_name": "index of the slow variable on the ring", "units": "1"},
    "j": {"long_name": "index of the fast variable within its slow variable", "units": "1"},
    "ensemble": {"long_name": "truth ensemble (0: reference, 1: noise floor)", "units": "1"},
    "subgrid_tendency": {"long_name": "subgrid tendency -(h c / b) sum_j Y_j,k", "units": "1"},
    "coarse_grained_tendency": {
        "long_name": "coarse-grained tendency (X(t + dt) - Phi_dt(X(t))) / dt",
        "units": "1",
    },
    "rel_l2_per_frame": {
        "long_name": "relative L2 error of each target frame, mean over the test split",
        "units": "1",
    },
}


def apply_conventions(ds: xr.Dataset) -> xr.Dataset:
    """Return ``ds`` with the CF attributes of every known variable (re-)applied.

    Parameters
    ----------
    ds : xarray.Dataset
        Any pderepro dataset; unknown variables keep their attributes.

    Returns
    -------
    xarray.Dataset
        A shallow copy with attributes set; the data are not copied.
    """
    ds = ds.copy()
    for name in list(ds.variables):
        ds[name].attrs.update(VARIABLE_ATTRS.get(str(name), {}))
    return ds
