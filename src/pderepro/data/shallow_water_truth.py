"""Truth runs of forced 1-D shallow water for closure studies, filtered to the coarse grid.

The ``shallow_water1d`` closure system (:mod:`pderepro.data.closure_systems`). A truth run
is an ensemble of fine runs (:mod:`pderepro.solvers.shallow_water.shallow_water`) from smooth random
states (:func:`~pderepro.solvers.shallow_water.forcing.random_initial_states`), kicked
every coarse step ``system.time_step`` by the large-scale stochastic forcing of amplitude
``A`` (the setup's value) and the linear drag
(:mod:`pderepro.solvers.shallow_water.forcing`). A forced run discards ``spinup_time``; an
unforced one (``A = 0``, the decaying setup) starts at once, since a spin-up would leave it
at rest. What is kept is on the coarse grid only:

* ``pairs``: block averages ``state`` at every ``save_interval`` and the fine run's
  time-averaged flux ``flux`` through the coarse faces over the coarse step that starts
  there (:func:`~pderepro.solvers.shallow_water.coarse.advance_interval`): the closure
  pairs' inputs and exact targets;
* ``climate``: two ensembles recorded every ``record_interval`` from the end of the
  spin-up: ``ensemble`` 0, the reference; ``ensemble`` 1 runs from the reference's block
  averages with the sub-grid detail dropped (piecewise constant) under the same forcing,
  the noise floor: the spread a closure that sees only the coarse state must accept. The
  forcing coefficients of every kick from the first record on are kept, so that coarse
  runs see the same forcing, and member 0's fine depth for the figures.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from pderepro.solvers.lorenz96.lorenz96 import whole_steps
from pderepro.solvers.shallow_water.coarse import (
    advance_interval,
    block_average,
    coarse_face_values,
)
from pderepro.solvers.shallow_water.forcing import (
    forcing_cell_averages,
    kick,
    ou_coefficients,
    random_initial_states,
)
from pderepro.solvers.shallow_water.problem import ShallowWaterProblem

log = logging.getLogger(__name__)


def fine_problem(system: Mapping[str, Any]) -> ShallowWaterProblem:
    """The truth's grid and scheme (periodic)."""
    return ShallowWaterProblem(
        resolution=system["resolution"], length=system["length"], gravity=system["gravity"],
        flux=system["flux"], limiter=system["limiter"], cfl=system["cfl"],
    )  # fmt: skip


def coarse_problem(system: Mapping[str, Any]) -> ShallowWaterProblem:
    """The coarse model's grid, with the truth's scheme."""
    return ShallowWaterProblem(
        resolution=system["coarse_resolution"], length=system["length"],
        gravity=system["gravity"], flux=system["flux"], limiter=system["limiter"],
        cfl=system["cfl"],
    )  # fmt: skip


def coarse_factor(system: Mapping[str, Any]) -> int:
    """Fine cells per coarse cell."""
    return system["resolution"] // system["coarse_resolution"]


def truth_run(
    system: Mapping[str, Any], amplitude: float, *, members: int, spinup_time: float,
    run_time: float, record_interval: float, seed: int, role: str,
) -> xr.Dataset:  # fmt: skip
    """One truth run of a setup (``role`` ``pairs`` or ``climate``; see the module).

    Parameters
    ----------
    system : mapping
        The study's ``system`` settings.
    amplitude : float
        Forcing amplitude ``A`` (0: unforced, no spin-up).
    members : int
        Runs (``climate``: of each ensemble).
    spinup_time, run_time, record_interval : float
        Time units; records at ``0, record_interval, ..., run_time`` after the spin-up.
    seed : int
        Seeds the initial states and the forcing.
    role : str
        ``pairs`` or ``climate``.

    Returns
    -------
    xarray.Dataset
        ``state`` ``(member, time, var, x)`` (and ``flux`` for pairs) on the coarse grid,
        float64 (mass to round-off; the exact correction is a difference of fluxes);
        ``forcing`` ``(member, kick, coefficient)`` and float32 ``h_fine`` ``(time, x_fine)``
        for climate; the wall time per member and simulated time unit in attrs.
    """
    dt = system["time_step"]
    spinup_time = spinup_time if amplitude else 0.0
    spin_steps = whole_steps(spinup_time, dt, what="truth.spinup_time") if spinup_time else 0
    every = whole_steps(record_interval, dt, what="the record interval")
    n_records = whole_steps(run_time, record_interval, what="the run time") + 1
    last = spin_steps + (n_records - 1) * every  # the kick index of the last record
    rng = np.random.default_rng(seed)
    fine, r = fine_problem(system), coarse_factor(system)
    n_f, n_c, length = fine.resolution, system["coarse_resolution"], system["length"]
    initial = system["initial"]
    state = random_initial_states(
        rng, members, n_f, depth_amplitude=initial["depth_amplitude"],
        velocity_amplitude=initial["velocity_amplitude"], modes=initial["modes"],
    )  # fmt: skip
    coefficients = ou_coefficients(rng, members, last + 1, system["forcing_modes"], dt=dt,
                                   correlation_time=system["correlation_time"])  # fmt: skip
    climate = role == "climate"
    states = np.empty((n_records, 2 * members if climate else members, 2, n_c))
    fluxes = None if climate else np.empty_like(states)
    h_fine = np.empty((n_records, n_f), np.float32)
    clock, substeps = time.perf_counter(), 0
    for n in range(last + 1):
        if climate and n == spin_steps:  # the floor ensemble: the sub-grid detail dropped
            blocks = np.repeat(block_average(state, r), r, axis=-1)
            state = np.concatenate([state, blocks])
            coefficients = np.concatenate([coefficients, coefficients])
        record, offset = divmod(n - spin_steps, every)
        at_record = n >= spin_steps and offset == 0
        if at_record:
            states[record] = block_average(state, r)
            h_fine[record] = state[0, 0]
        if climate and n == last:  # nothing after the last record is needed
            break
        state, flux, k = advance_interval(state, dt, fine)
        substeps += k
        if at_record and fluxes is not None:
            fluxes[record] = coarse_face_values(flux, r)
        force = forcing_cell_averages(coefficients[:, n], n_f, length, amplitude)
        state = kick(state, force if amplitude else None, dt, system["drag"])
    wall = time.perf_counter() - clock
    simulated = spinup_time + run_time
    log.info("%s run A=%g: %d members, %.0f fine steps per coarse step, %.1f s", role,
             amplitude, state.shape[0], substeps / max(last, 1), wall)  # fmt: skip
    grid = (np.arange(n_c) + 0.5) * length / n_c
    times = spinup_time + record_interval * np.arange(n_records)
    coords = {"time": times, "var": ["h", "hu"], "x": grid}
    dims = ("time", "member", "var", "x")
    ds = xr.Dataset({"state": (dims, states)}, coords=coords)
    if fluxes is not None:
        ds["flux"] = (("time", "member", "var", "face"), fluxes)
        ds = ds.assign_coords(face=np.arange(n_c) * length / n_c)
    else:
        ds["forcing"] = (("member", "kick", "coefficient"), coefficients[:, spin_steps:])
        ds["h_fine"] = (("time", "x_fine"), h_fine)
        ds = ds.assign_coords(
            ensemble=("member", np.repeat([0, 1], members)),
            x_fine=(np.arange(n_f) + 0.5) * length / n_f,
        )  # fmt: skip
    ds = ds.transpose("member", "time", ...)
    ds.attrs.update(
        amplitude=float(amplitude), save_interval=float(record_interval),
        coarse_time_step=float(dt), wall_seconds=wall,
        wall_s_per_member_time=wall / (state.shape[0] * max(simulated, record_interval)),
    )  # fmt: skip
    return ds
