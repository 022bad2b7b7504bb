"""1-D shallow-water equations: a positivity-preserving, well-balanced finite-volume scheme.

Solves, in dimensionless units (lengths in units of a reference depth ``H``, times in
units of ``sqrt(H / g_ref)``; ``g`` is then a given dimensionless number, 1 by default),

    h_t + (h u)_x = 0,
    (h u)_t + (h u^2 + g h^2 / 2)_x = -g h b_x,

for the depth ``h >= 0`` and discharge ``hu`` over the bathymetry ``b(x)`` on
``[0, length)``, in conservative variables ``(h, hu)`` on ``n`` uniform cells:

* MUSCL reconstruction (minmod or MC limiter) of ``h``, ``u`` and the free surface
  ``eta = h + b``; the limited face values of ``h`` lie between the neighbouring cell
  averages, so they are non-negative;
* the hydrostatic reconstruction of Audusse, Bouchut, Bristeau, Klein & Perthame (2004,
  SIAM J. Sci. Comput. 25:2050), with its second-order centred source term: the scheme is
  positivity preserving and well balanced (the lake at rest ``u = 0, eta = const``,
  with dry cells where ``b > eta``, is kept to round-off);
* the HLL flux (Harten, Lax & van Leer 1983) with the simple wave-speed bounds
  ``min/max(u -+ c)`` and Toro's dry-bed speeds ``u -+ 2 c`` (Toro 2001, *Shock-capturing
  methods for free-surface shallow flows*, sec. 10.5), or the Rusanov (local Lax-Friedrichs)
  flux;
* SSP-RK2 (Heun) or SSP-RK3 (Shu & Osher 1988) in time, with one CFL-limited step for the
  whole batch, ``dt = cfl dx / max(|u| + sqrt(g h))``.

Cells with ``h < dry_tolerance`` are dry: their velocity is taken as 0 (their stored ``hu``
is ignored, not changed). The cell averages are never clipped, so the update is exactly a
difference of face fluxes (plus a momentum source with bathymetry): mass is conserved to
round-off on a periodic or reflective domain. Boundaries: ``periodic``; ``reflective``
(a wall: mirrored ghost cells with ``u -> -u``, zero mass flux); ``transmissive``
(zero-gradient ghost cells, waves leave the domain).

The grid, gravity and scheme choices are a
:class:`~pderepro.solvers.shallow_water.problem.ShallowWaterProblem`. States are float64 arrays of
shape ``(S, 2, n)`` (``[:, 0]`` = ``h``, ``[:, 1]`` = ``hu``) so an ensemble runs together;
``(2, n)`` is accepted for one state. The exact dam-break solutions (Stoker, Ritter) that verify the
scheme are in :mod:`pderepro.verification.shallow_water`.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.shallow_water.fluxes import (
    face_states,
    pad_ghost,
    riemann_flux,
)
from pderepro.solvers.shallow_water.problem import ShallowWaterProblem

logger = logging.getLogger(__name__)


def _batch(state: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    state = np.asarray(state, dtype=np.float64)
    squeeze = state.ndim == 2
    batch = state[None] if squeeze else state
    if batch.ndim != 3 or batch.shape[1:] != (2, n):
        raise ValueError(f"state must have shape (S, 2, {n}) or (2, {n}), got {state.shape}")
    return batch, squeeze


def velocity(h: np.ndarray, hu: np.ndarray, dry_tolerance: float) -> np.ndarray:
    """``u = hu / h`` where ``h >= dry_tolerance``, else 0; same shape as ``h``."""
    wet = h >= dry_tolerance
    return np.where(wet, hu / np.where(wet, h, 1.0), 0.0)


def _fluxes_and_source(
    batch: np.ndarray, problem: ShallowWaterProblem, bathymetry: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Face fluxes ``(S, 2, n + 1)`` and the momentum source per cell ``(S, n)`` (already
    divided by ``dx``; ``None`` on a flat bottom) of the hydrostatic reconstruction."""
    g, tol, bc, lim = problem.gravity, problem.dry_tolerance, problem.boundary, problem.limiter
    h, hu = batch[:, 0], batch[:, 1]  # (S, n)
    u = velocity(h, hu, tol)
    hl, hr = face_states(pad_ghost(h, bc), lim)  # (S, n + 1): left / right of each face
    ul, ur = face_states(pad_ghost(u, bc, odd=True), lim)
    hl, hr = np.maximum(hl, 0.0), np.maximum(hr, 0.0)  # round-off of a limited reconstruction
    if bathymetry is None:
        return riemann_flux(hl, ul, hr, ur, problem), None
    b = np.broadcast_to(np.asarray(bathymetry, dtype=np.float64), h.shape)
    el, er = face_states(pad_ghost(h + b, bc), lim)
    bl, br = el - hl, er - hr  # reconstructed bottom on either side of each face
    b_star = np.maximum(bl, br)
    hl_star, hr_star = np.maximum(0.0, el - b_star), np.maximum(0.0, er - b_star)
    flux = riemann_flux(hl_star, ul, hr_star, ur, problem)
    # Audusse et al. (2004): the momentum flux leaving cell i at its right face gains
    # g/2 (h_-^2 - h*_-^2), entering at its left face g/2 (h_+^2 - h*_+^2); the centred
    # term g/2 (h_{i-1/2+} + h_{i+1/2-}) (b_{i-1/2+} - b_{i+1/2-}) makes it second order.
    right = 0.5 * g * (hl[:, 1:] ** 2 - hl_star[:, 1:] ** 2)  # at face i + 1/2, from cell i
    left = 0.5 * g * (hr[:, :-1] ** 2 - hr_star[:, :-1] ** 2)  # at face i - 1/2, from cell i
    centred = 0.5 * g * (hr[:, :-1] + hl[:, 1:]) * (br[:, :-1] - bl[:, 1:])
    return flux, (left - right + centred) / problem.dx


def face_fluxes(
    state: np.ndarray, problem: ShallowWaterProblem, bathymetry: np.ndarray | None = None
) -> np.ndarray:
    """Numerical flux ``F(U*_-, U*_+)`` of ``(h, hu)`` at every face.

    Parameters
    ----------
    state : numpy.ndarray
        ``(S, 2, n)`` (or ``(2, n)``): depth and discharge per cell.
    problem : ShallowWaterProblem
        Grid and scheme.
    bathymetry : numpy.ndarray, optional
        ``b`` per cell, broadcastable to ``(S, n)``; flat (0) when omitted.

    Returns
    -------
    numpy.ndarray
        ``(S, 2, n + 1)`` (or ``(2, n + 1)``): mass flux ``hu`` and momentum flux
        ``hu^2 + g h^2 / 2`` through the faces at :attr:`ShallowWaterProblem.faces`
        (face ``j`` is the left face of cell ``j``). The cell update is
        ``-(F[..., 1:] - F[..., :-1]) / dx`` plus, with bathymetry, the momentum source of
        :func:`tendency`. On a flat bottom this is the whole flux.
    """
    batch, squeeze = _batch(state, problem.resolution)
    flux = _fluxes_and_source(batch, problem, bathymetry)[0]
    return flux[0] if squeeze else flux


def tendency(
    state: np.ndarray, problem: ShallowWaterProblem, bathymetry: np.ndarray | None = None
) -> np.ndarray:
    """Semi-discrete right-hand side ``dU/dt`` of every cell, ``(S, 2, n)`` (or ``(2, n)``)."""
    batch, squeeze = _batch(state, problem.resolution)
    flux, source = _fluxes_and_source(batch, problem, bathymetry)
    rhs = -(flux[..., 1:] - flux[..., :-1]) / problem.dx
    if source is not None:
        rhs[:, 1] += source
    return rhs[0] if squeeze else rhs


def max_wave_speed(state: np.ndarray, problem: ShallowWaterProblem) -> float:
    """``max |u| + max sqrt(g h)`` over the batch: bounds every reconstructed face's
    ``|u| + c`` (the limited face values lie between neighbouring cell values)."""
    batch, _ = _batch(state, problem.resolution)
    h, hu = batch[:, 0], batch[:, 1]
    u = velocity(h, hu, problem.dry_tolerance)
    return float(np.abs(u).max() + np.sqrt(problem.gravity * max(float(h.max()), 0.0)))


def stable_time_step(state: np.ndarray, problem: ShallowWaterProblem) -> float:
    """The CFL step ``cfl dx / max_wave_speed`` (infinite for a dry, still batch)."""
    speed = max_wave_speed(state, problem)
    return problem.cfl * problem.dx / speed if speed > 0 else math.inf


#: SSP-RK stages ``U_k = a U^n + b (U_{k-1} + dt L(U_{k-1}))``, ``a = 1 - b``, as
#: ``(a, b, w)``; the step's update is ``dt sum_k w_k L(U_{k-1})`` (Shu & Osher 1988).
_STAGES = {
    "ssprk2": ((0.0, 1.0, 0.5), (0.5, 0.5, 0.5)),
    "ssprk3": ((0.0, 1.0, 1 / 6), (0.75, 0.25, 1 / 6), (1 / 3, 2 / 3, 2 / 3)),
}


def step(
    state: np.ndarray,
    dt: float,
    problem: ShallowWaterProblem,
    bathymetry: np.ndarray | None = None,
    *,
    return_flux: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Advance ``state`` by one SSP Runge-Kutta step ``dt`` (time units).

    Parameters
    ----------
    state : numpy.ndarray
        ``(S, 2, n)`` or ``(2, n)``.
    dt : float
        Step, at most :func:`stable_time_step` for positivity.
    problem : ShallowWaterProblem
        Grid and scheme.
    bathymetry : numpy.ndarray, optional
        ``b`` per cell, broadcastable to ``(S, n)``.
    return_flux : bool
        Also return the step's time-averaged face flux ``sum_k w_k F(U_k)``, with which
        ``U^{n+1} = U^n - dt (F[..., 1:] - F[..., :-1]) / dx`` on a flat bottom (to
        round-off): what a coarse-graining needs to accumulate fluxes through coarse faces.

    Returns
    -------
    numpy.ndarray or tuple
        The new state, same shape as ``state``; with ``return_flux`` also the flux,
        ``(S, 2, n + 1)`` (or ``(2, n + 1)``).
    """
    batch, squeeze = _batch(state, problem.resolution)
    stage = batch
    total = np.zeros((*batch.shape[:2], problem.resolution + 1)) if return_flux else None
    for a, b, w in _STAGES[problem.integrator]:
        flux, source = _fluxes_and_source(stage, problem, bathymetry)
        euler = stage - dt * (flux[..., 1:] - flux[..., :-1]) / problem.dx
        if source is not None:
            euler[:, 1] += dt * source
        # U^n + b (euler - U^n), not a U^n + b euler: fl(1/3) + fl(2/3) != 1 would make mass
        # drift systematically by ~1e-16 a step
        stage = batch + b * (euler - batch) if a else euler
        if total is not None:
            total += w * flux
    if squeeze:
        return (stage[0], total[0]) if total is not None else stage[0]
    return (stage, total) if total is not None else stage


def solve_shallow_water(
    state0: np.ndarray,
    problem: ShallowWaterProblem,
    times: np.ndarray,
    bathymetry: np.ndarray | None = None,
    *,
    max_steps: int = 10_000_000,
) -> np.ndarray:
    """Integrate from ``t = 0`` and record the state at ``times``.

    The whole batch shares each CFL step (:func:`stable_time_step` of the current batch);
    a step is shortened to land on each recorded time exactly.

    Parameters
    ----------
    state0 : numpy.ndarray
        ``(S, 2, n)`` or ``(2, n)``: initial depth (``h >= 0``) and discharge.
    problem : ShallowWaterProblem
        Grid and scheme.
    times : numpy.ndarray
        Non-decreasing, non-negative recording times (time units).
    bathymetry : numpy.ndarray, optional
        ``b`` per cell, broadcastable to ``(S, n)``.
    max_steps : int
        Safety limit on the number of steps.

    Returns
    -------
    numpy.ndarray
        ``(S, len(times), 2, n)`` (or ``(len(times), 2, n)``), float64.

    Raises
    ------
    SolverDivergedError
        If a state becomes non-finite or a depth negative (beyond ``-1e-12``), or the
        steps exceed ``max_steps``; the message names the sample and the time.
    """
    batch, squeeze = _batch(state0, problem.resolution)
    times = np.asarray(times, dtype=np.float64)
    if times.ndim != 1 or (times.size and (times[0] < 0 or np.any(np.diff(times) < 0))):
        raise ValueError("times must be a 1-D, non-decreasing, non-negative array")
    if np.any(batch[:, 0] < 0):
        raise ValueError("initial depths must be non-negative")
    out = np.empty((batch.shape[0], times.size, 2, problem.resolution))
    state, t, n_steps = batch.copy(), 0.0, 0
    for k, target in enumerate(times):
        while t < target:
            dt = min(stable_time_step(state, problem), target - t)
            state = step(state, dt, problem, bathymetry)
            t = target if dt == target - t else t + dt
            n_steps += 1
            _check(state, t, n_steps, max_steps)
        out[:, k] = state
    logger.debug("shallow water: %d steps to t=%g, batch %d", n_steps, t, batch.shape[0])
    return out[0] if squeeze else out


def _check(state: np.ndarray, t: float, n_steps: int, max_steps: int) -> None:
    bad = ~np.isfinite(state).all(axis=(1, 2)) | (state[:, 0].min(axis=1) < -1e-12)
    if bad.any() or n_steps > max_steps:
        where = int(np.flatnonzero(bad)[0]) if bad.any() else -1
        raise SolverDivergedError(
            f"shallow water: sample {where} non-finite or negative depth, or more than "
            f"{max_steps} steps, at t={t:.6g} (step {n_steps})"
        )


def total_mass(state: np.ndarray, problem: ShallowWaterProblem) -> np.ndarray:
    """``sum h dx`` per sample: ``(S,)`` (or a 0-d array for one state)."""
    return np.asarray(state)[..., 0, :].sum(axis=-1) * problem.dx


def total_energy(
    state: np.ndarray, problem: ShallowWaterProblem, bathymetry: np.ndarray | None = None
) -> np.ndarray:
    """``sum (h u^2 / 2 + g h^2 / 2 + g h b) dx`` per sample, dry cells with ``u = 0``."""
    state = np.asarray(state, dtype=np.float64)
    h, hu = state[..., 0, :], state[..., 1, :]
    u = velocity(h, hu, problem.dry_tolerance)
    g = problem.gravity
    density = 0.5 * h * u * u + 0.5 * g * h * h
    if bathymetry is not None:
        density = density + g * h * np.asarray(bathymetry, dtype=np.float64)
    return density.sum(axis=-1) * problem.dx
