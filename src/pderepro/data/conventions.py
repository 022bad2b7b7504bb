"""CF attributes of every variable pderepro writes (FNO-paper fields, PDEBench trajectories,
Lorenz-96 truth and closure pairs, 2-D turbulence truth and LES pairs), defined once.

xarray drops attributes on arithmetic, so every writer calls :func:`apply_conventions`
just before saving; the attributes below are the single source of truth. Time is model
time in the papers' dimensionless units: CF has no encoding for a dimensionless time
coordinate (it wants "<unit> since <date>"), so a CF checker flags ``time`` and
``time_in`` and nothing else (``tests/unit/test_cf_compliance.py``).
"""

from __future__ import annotations

import xarray as xr


def _cf(long_name: str, *, units: str = "1", axis: str | None = None) -> dict[str, str]:
    """CF attributes of one variable: ``long_name``, ``units`` (by default ``"1"``: the papers'
    variables, time included, are dimensionless) and, on a coordinate axis, ``axis``."""
    return {"long_name": long_name, "units": units} | ({"axis": axis} if axis else {})


#: CF attributes of coordinates and data variables, by variable name.
VARIABLE_ATTRS: dict[str, dict[str, str]] = {
    "sample": _cf("sample index within the split"),
    "x": _cf("position on the unit interval", axis="X"),
    "y": _cf("position on the unit interval (second axis)", axis="Y"),
    "time": _cf("time", axis="T"),
    "seed": _cf("seed of the random draw for this sample"),
    "viscosity": _cf("kinematic viscosity nu"),
    "time_in": _cf("time of an input frame", axis="T"),
    "u0": _cf("initial condition u(x, t=0)"),
    "u": _cf("solution u (Burgers: at t=t_final; Darcy: pressure)"),
    "a": _cf("Darcy permeability coefficient a(x, y)"),
    "w_in": _cf("vorticity, input frames"),
    "w": _cf("vorticity, target frames"),
    "prediction": _cf("model prediction of the target variable"),
    # two-scale Lorenz-96 truth runs and closure pairs
    "X": _cf("slow variable X_k of two-scale Lorenz-96"),
    "Y": _cf("fast variable Y_j,k of two-scale Lorenz-96"),
    "k": _cf("index of the slow variable on the ring"),
    "j": _cf("index of the fast variable within its slow variable"),
    "ensemble": _cf("truth ensemble (0: reference, 1: noise floor)"),
    "subgrid_tendency": _cf("subgrid tendency -(h c / b) sum_j Y_j,k"),
    "coarse_grained_tendency": _cf("coarse-grained tendency (X(t + dt) - Phi_dt(X(t))) / dt"),
    # forced 2-D turbulence truth (pderepro.data.turbulence): snapshots and LES pairs
    "member": _cf("index of the independent turbulence run"),
    "series_time": _cf("time of an energy and enstrophy record"),
    "energy": _cf("domain-mean kinetic energy 1/2 <|u|^2>"),
    "enstrophy": _cf("domain-mean enstrophy 1/2 <w^2>"),
    "w_bar": _cf("filtered vorticity on the LES grid"),
    "psi_bar": _cf("streamfunction of the filtered vorticity (-Lap psi_bar = w_bar)"),
    "Pi": _cf("exact subgrid term filter(u . grad w) - u_bar . grad w_bar"),
    "rel_l2_per_frame": _cf("relative L2 error of each target frame, mean over the test split"),
    # PDEBench 1-D trajectories: the PDE parameter and each sample's drawn initial condition
    "beta": _cf("advection speed beta in u_t + beta u_x = 0"),
    "nu": _cf("PDEBench Burgers viscosity nu in u_t + (u^2/2)_x = (nu/pi) u_xx"),
    "sine": _cf("index i of the sine terms of the initial condition (candidate mode k)"),
    "ic_mode": _cf(
        "mode number n_i of sine i of u0 (wavenumber 2 pi n_i / ic_wavelength; 0: a constant "
        "offset)"
    ),
    "ic_amplitude": _cf("amplitude A_i of sine i of u0"),
    "ic_phase": _cf("phase phi_i of sine i of u0", units="radian"),
    "ic_absolute": _cf("1 where |u0| was taken, else 0"),
    "ic_sign": _cf("sign (+1 or -1) multiplying u0"),
    "ic_windowed": _cf("1 where u0 was multiplied by the tanh window, else 0"),
    "ic_window_left": _cf("left edge x_L of the u0 window (used where windowed)"),
    "ic_window_right": _cf("right edge x_R of the u0 window (used where windowed)"),
    "ic_wavelength": _cf("divisor L of the sine arguments of u0 (1 - 1/1024 under PDEBench's law)"),
    "spectral_tail": _cf(
        "largest Fourier coefficient of the top fifth of retained modes over the frames, "
        "relative to the largest initial one (resolution indicator)"
    ),
}

#: Attributes that differ by solver (the file's global ``solver`` attribute), applied after
#: :data:`VARIABLE_ATTRS`: ``u`` of a trajectory file is the solution at every saved time.
SOLVER_VARIABLE_ATTRS: dict[str, dict[str, dict[str, str]]] = {
    "pdebench_advection_exact": {
        "u": {"long_name": "solution u(x, t) of 1-D advection at every saved time (t=0: u0)"},
    },
    "navier_stokes_turbulence_ab2cn": {
        "x": {"long_name": "position on the periodic box [0, box_size)"},
        "y": {"long_name": "position on the periodic box [0, box_size) (second axis)"},
        "w": {"long_name": "vorticity of forced 2-D turbulence at each snapshot time"},
    },
    "pdebench_burgers_spectral": {
        "u": {"long_name": "solution u(x, t) of 1-D viscous Burgers at every saved time (t=0: u0)"},
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
    by_solver = SOLVER_VARIABLE_ATTRS.get(str(ds.attrs.get("solver")), {})
    for name in list(ds.variables):
        ds[name].attrs.update(VARIABLE_ATTRS.get(str(name), {}))
        ds[name].attrs.update(by_solver.get(str(name), {}))
    return ds
