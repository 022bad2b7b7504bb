"""Coarse-graining 1-D shallow water, and the coarse scheme with a sub-grid flux closure.

A fine run (:mod:`pderepro.solvers.shallow_water.shallow_water`) on ``n_f`` cells and a coarse one
on ``n_c = n_f / r`` cells share the periodic domain; coarse face ``J`` is fine face ``r J``.
Over one coarse step ``dt`` the fine run takes CFL-limited sub-steps landing on ``dt``
exactly (:func:`advance_interval`), and its time-averaged flux through the coarse faces
``Phi`` moves the block averages exactly:

    Ubar^{n+1} = Ubar^n - dt (Phi_{J+1} - Phi_J) / dx_c.

The coarse scheme from ``Ubar^n`` moves them with its own time-averaged flux ``F_c``, so
the exact sub-grid flux correction is ``C = Phi - F_c(Ubar^n)`` (:func:`exact_correction`),
one value of mass and momentum flux per coarse face: with it, the coarse step reproduces
the filtered fine step to round-off. A closure predicts ``C`` from the coarse state; the
coarse step adds it in flux form (:func:`corrected_step`), so mass stays conserved to
round-off whatever the closure says.

Flux limiting (``limited``): the correction is the anti-diffusive flux of flux-corrected
transport (Boris & Book 1973; Zalesak 1979), the scheme's own step the low-order one: it is
scaled face by face so that no cell leaves the range of its neighbours' values
(:func:`fct_limit`). Near shocks, where the sub-grid flux is largest, it may still sharpen
the coarse scheme's smeared jump, but never create an overshoot; depths stay
non-negative. The unlimited correction is applied as predicted.

Arrays: states ``(S, 2, n)`` (``h``, ``hu``); face corrections ``(S, 2, n)``, entry ``J``
at the left face of cell ``J`` (periodic: face ``n`` is face 0).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pderepro.solvers.shallow_water.problem import ShallowWaterProblem
from pderepro.solvers.shallow_water.shallow_water import stable_time_step, step

#: A closure: coarse state ``(S, 2, n)`` -> face correction ``(S, 2, n)`` (flux units).
Correction = Callable[[np.ndarray], np.ndarray]


def advance_interval(
    state: np.ndarray, interval: float, problem: ShallowWaterProblem, *, max_steps: int = 100_000
) -> tuple[np.ndarray, np.ndarray, int]:
    """Advance by ``interval`` in CFL-limited steps; the time-averaged face flux.

    Returns
    -------
    tuple
        The new state ``(S, 2, n)``, ``(1 / interval) sum_k dt_k F_k`` at every face
        ``(S, 2, n + 1)`` (so that ``U(t + interval) = U(t) - interval (F[..., 1:] -
        F[..., :-1]) / dx`` on a flat bottom) and the number of steps.
    """
    total = np.zeros((*state.shape[:2], problem.resolution + 1))
    t, steps = 0.0, 0
    while t < interval:
        dt = min(stable_time_step(state, problem), interval - t)
        state, flux = step(state, dt, problem, return_flux=True)
        total += dt * flux
        t = interval if dt == interval - t else t + dt
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"more than {max_steps} steps in one interval of {interval:g}")
    return state, total / interval, steps


def block_average(values: np.ndarray, factor: int) -> np.ndarray:
    """Means of consecutive blocks of ``factor`` cells along the last axis."""
    n = values.shape[-1]
    if n % factor:
        raise ValueError(f"{n} cells do not split into blocks of {factor}")
    return values.reshape(*values.shape[:-1], n // factor, factor).mean(axis=-1)


def coarse_face_values(face_values: np.ndarray, factor: int) -> np.ndarray:
    """Values at the coarse faces ``0..n_c - 1`` from fine faces ``(..., n_f + 1)``."""
    return face_values[..., :-1:factor]


def exact_correction(
    coarse_state: np.ndarray, coarse_face_flux: np.ndarray, dt: float,
    coarse: ShallowWaterProblem,
) -> np.ndarray:  # fmt: skip
    """``C = Phi - F_c(Ubar)``: the face flux the coarse step misses, ``(S, 2, n_c)``.

    Parameters
    ----------
    coarse_state : numpy.ndarray
        ``(S, 2, n_c)`` block averages of the fine state at the step's start.
    coarse_face_flux : numpy.ndarray
        ``(S, 2, n_c)`` the fine run's time-averaged flux through the coarse faces over the
        step (:func:`advance_interval`, :func:`coarse_face_values`).
    dt : float
        The coarse step (time units).
    coarse : ShallowWaterProblem
        The coarse grid and scheme (periodic).
    """
    _, flux = step(coarse_state, dt, coarse, return_flux=True)
    return coarse_face_flux - flux[..., :-1]


def flux_divergence(correction: np.ndarray, dt: float, dx: float) -> np.ndarray:
    """``dt (C_{J+1} - C_J) / dx`` per cell, periodic: the update a face correction makes."""
    return dt * (np.roll(correction, -1, axis=-1) - correction) / dx


def fct_limit(start: np.ndarray, base: np.ndarray, correction: np.ndarray, dt: float,
              dx: float) -> np.ndarray:  # fmt: skip
    """Zalesak's flux-corrected-transport limiter of a face correction, per variable.

    The corrected cell value ``base_i - dt (C_{i+1} - C_i) / dx`` is kept within the range of
    ``start`` and ``base`` over cells ``i-1, i, i+1`` (no new extrema; a depth stays
    non-negative since both ranges are): each cell's total inflow ``P+`` and outflow ``P-``
    through the correction are scaled by ``R+- = min(1, Q+- / P+-)``, ``Q+-`` the room left
    to the bound, and each face takes the smaller factor of its receiving cell's ``R+`` and
    its giving cell's ``R-`` (Zalesak 1979, J. Comput. Phys. 31:335, for a scheme whose base
    step is the low-order one).

    Parameters
    ----------
    start, base : numpy.ndarray
        ``(S, 2, n)``: the state at the step's start and after the scheme's own step.
    correction : numpy.ndarray
        ``(S, 2, n)`` face corrections (flux units).
    dt, dx : float
        Step and cell width.

    Returns
    -------
    numpy.ndarray
        The limited correction, ``(S, 2, n)``.
    """

    def neighbours(values, pick):
        return pick(pick(np.roll(values, 1, axis=-1), values), np.roll(values, -1, axis=-1))

    upper = np.maximum(neighbours(start, np.maximum), neighbours(base, np.maximum))
    lower = np.minimum(neighbours(start, np.minimum), neighbours(base, np.minimum))
    right = np.roll(correction, -1, axis=-1)  # C at the right face of each cell
    inflow = dt * (np.maximum(correction, 0.0) - np.minimum(right, 0.0)) / dx
    outflow = dt * (np.maximum(right, 0.0) - np.minimum(correction, 0.0)) / dx

    def ratio(room, flow):
        return np.where(flow > 0, np.minimum(1.0, np.maximum(room, 0.0) /
                                             np.where(flow > 0, flow, 1.0)), 1.0)  # fmt: skip

    gain, loss = ratio(upper - base, inflow), ratio(base - lower, outflow)
    # face J between cells J-1 and J: C_J > 0 moves mass from J-1 to J
    forward = np.minimum(gain, np.roll(loss, 1, axis=-1))
    backward = np.minimum(np.roll(gain, 1, axis=-1), loss)
    return correction * np.where(correction > 0, forward, backward)


def corrected_step(
    state: np.ndarray, dt: float, problem: ShallowWaterProblem,
    correction: Correction | None = None, *, limited: bool = False,
) -> np.ndarray:  # fmt: skip
    """One coarse step: the scheme's SSP-RK step, then the closure's face correction.

    Parameters
    ----------
    state : numpy.ndarray
        ``(S, 2, n)`` coarse state (periodic problem).
    dt : float
        Coarse step (time units).
    problem : ShallowWaterProblem
        The coarse grid and scheme.
    correction : callable, optional
        The closure, evaluated at ``state`` (the step's start, as its training pairs).
    limited : bool
        Limit the correction by flux-corrected transport (:func:`fct_limit`).

    Returns
    -------
    numpy.ndarray
        ``(S, 2, n)``; mass changes only by round-off.
    """
    base = step(state, dt, problem)
    if correction is None:
        return base
    flux = np.asarray(correction(state), dtype=np.float64)
    if limited:
        flux = fct_limit(state, base, flux, dt, problem.dx)
    return base - flux_divergence(flux, dt, problem.dx)


def run_coarse_model(
    starts: np.ndarray, problem: ShallowWaterProblem, *, dt: float, steps: int, every: int,
    kick_step: Callable[[np.ndarray, int, np.ndarray], np.ndarray],
    correction: Correction | None = None, limited: bool = False, blowup_threshold: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Coarse runs with a closure, recorded every ``every`` steps; blow-ups stop a run.

    Parameters
    ----------
    starts : numpy.ndarray
        ``(S, 2, n)`` initial coarse states.
    problem : ShallowWaterProblem
        The coarse grid and scheme.
    dt : float
        Coarse step (time units).
    steps, every : int
        Steps in all and between records (``steps`` a multiple of ``every``).
    kick_step : callable
        ``(state, n, members) -> state``: the forcing and drag after step ``n`` of the
        runs ``members`` (indices into ``starts``) still alive.
    correction, limited
        The closure and whether it is limited (:func:`corrected_step`).
    blowup_threshold : float
        A run blows up when a value turns non-finite, a depth negative (beyond round-off)
        or ``max |h|, |hu|`` exceeds this.

    Returns
    -------
    tuple
        Records ``(S, steps // every + 1, 2, n)`` (NaN from a blow-up on) and each run's
        blow-up time (NaN when it did not blow up), ``(S,)``.
    """
    records = np.full((len(starts), steps // every + 1, *starts.shape[1:]), np.nan)
    blowup = np.full(len(starts), np.nan)
    alive = np.arange(len(starts))
    state = np.array(starts, dtype=np.float64)
    records[:, 0] = state
    for n in range(steps):
        with np.errstate(all="ignore"):
            state = corrected_step(state, dt, problem, correction, limited=limited)
            state = kick_step(state, n, alive)
            bad = (~np.isfinite(state).all(axis=(1, 2)) | (state[:, 0].min(axis=-1) < -1e-12)
                   | (np.abs(state).max(axis=(1, 2)) > blowup_threshold))  # fmt: skip
        if bad.any():
            blowup[alive[bad]] = (n + 1) * dt
            alive, state = alive[~bad], state[~bad]
        if (n + 1) % every == 0:
            records[alive, (n + 1) // every] = state
        if not len(alive):
            break
    return records, blowup
