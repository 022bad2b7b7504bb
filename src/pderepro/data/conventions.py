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
    # forced 2-D turbulence truth (pderepro.data.turbulence): snapshots and LES pairs
    "member": {"long_name": "index of the independent turbulence run", "units": "1"},
    "series_time": {"long_name": "time of an energy and enstrophy record", "units": "1"},
    "energy": {"long_name": "domain-mean kinetic energy 1/2 <|u|^2>", "units": "1"},
    "enstrophy": {"long_name": "domain-mean enstrophy 1/2 <w^2>", "units": "1"},
    "w_bar": {"long_name": "filtered vorticity on the LES grid", "units": "1"},
    "psi_bar": {
        "long_name": "streamfunction of the filtered vorticity (-Lap psi_bar = w_bar)",
        "units": "1",
    },
    "Pi": {
        "long_name": "exact subgrid term filter(u . grad w) - u_bar . grad w_bar",
        "units": "1",
    },
    "rel_l2_per_frame": {
        "long_name": "relative L2 error of each target frame, mean over the test split",
        "units": "1",
    },
    # PDEBench 1-D trajectories: the PDE parameter and each sample's drawn initial condition
    "beta": {"long_name": "advection speed beta in u_t + beta u_x = 0", "units": "1"},
    "nu": {
        "long_name": "PDEBench Burgers viscosity nu in u_t + (u^2/2)_x = (nu/pi) u_xx",
        "units": "1",
    },
    "sine": {
        "long_name": "index i of the sine terms of the initial condition (candidate mode k)",
        "units": "1",
    },
    "ic_mode": {
        "long_name": "mode number n_i of sine i of u0 (wavenumber 2 pi n_i / ic_wavelength; "
        "0: a constant offset)",
        "units": "1",
    },
    "ic_amplitude": {"long_name": "amplitude A_i of sine i of u0", "units": "1"},
    "ic_phase": {"long_name": "phase phi_i of sine i of u0", "units": "radian"},
    "ic_absolute": {"long_name": "1 where |u0| was taken, else 0", "units": "1"},
    "ic_sign": {"long_name": "sign (+1 or -1) multiplying u0", "units": "1"},
    "ic_windowed": {
        "long_name": "1 where u0 was multiplied by the tanh window, else 0",
        "units": "1",
    },
    "ic_window_left": {
        "long_name": "left edge x_L of the u0 window (used where windowed)",
        "units": "1",
    },
    "ic_window_right": {
        "long_name": "right edge x_R of the u0 window (used where windowed)",
        "units": "1",
    },
    "ic_wavelength": {
        "long_name": "divisor L of the sine arguments of u0 (1 - 1/1024 under PDEBench's law)",
        "units": "1",
    },
    "spectral_tail": {
        "long_name": "largest Fourier coefficient of the top fifth of retained modes over the "
        "frames, relative to the largest initial one (resolution indicator)",
        "units": "1",
    },
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
