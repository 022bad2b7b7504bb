"""Online (coupled) runs: a closure inside the coarse Lorenz-96 model.

A trajectory blows up when ``|X|`` passes a threshold or turns non-finite; it is then
frozen, its later states are NaN and its blow-up time is recorded, so an unstable
closure is a result, never a crashed job.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from pderepro.models.closures import Closure
from pderepro.solvers.lorenz96.coarse import coarse_rk4_step

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CoarseRun:
    """Output of :func:`run_coarse_model`.

    Attributes
    ----------
    times : numpy.ndarray
        Save times after the start (time units), ``(n_saved,)``.
    x : numpy.ndarray
        Saved states ``(batch, n_saved, K)``, float32, NaN after a blow-up.
    blowup_time : numpy.ndarray
        Time of blow-up per trajectory (time units), NaN where it stayed bounded.
    """

    times: np.ndarray
    x: np.ndarray
    blowup_time: np.ndarray


def run_coarse_model(
    closure: Closure,
    x0: np.ndarray,
    forcing: np.ndarray | float,
    *,
    dt: float,
    n_steps: int,
    save_every: int,
    rng: np.random.Generator,
    blowup_threshold: float = 100.0,
    per_stage: bool = True,
    progress: bool = False,
) -> CoarseRun:
    """Integrate the coarse model with a closure from ``x0``, batched over trajectories.

    Parameters
    ----------
    closure : Closure
        Deterministic part (see ``per_stage``); its AR(1) noise, if any, is held fixed
        over a step and advanced once per step.
    x0 : numpy.ndarray
        Initial states ``(batch, K)``.
    forcing : float or numpy.ndarray
        ``F``, scalar or per trajectory ``(batch,)``.
    dt : float
        Coarse step (time units).
    n_steps, save_every : int
        Steps to take, and steps between saved states.
    rng : numpy.random.Generator
        Source of the noise (unused by deterministic closures).
    blowup_threshold : float
        ``max_k |X_k|`` above which a trajectory counts as blown up.
    per_stage : bool
        True: ``U(X)`` is part of the tendency at every RK4 stage (a closure of the
        instantaneous subgrid tendency). False: ``X_{n+1} = Phi_dt(X_n) + dt U(X_n)``
        with ``Phi_dt`` the X-only RK4 step, the update that a closure of the
        coarse-grained tendency was fitted to reproduce (one closure call per step).
    progress : bool
        tqdm progress over save points.

    Returns
    -------
    CoarseRun
    """
    x = np.array(x0, dtype=np.float64)  # (batch, K)
    batch, K = x.shape
    forcing = np.broadcast_to(np.asarray(forcing, dtype=np.float64), (batch,))[:, None]
    noise = closure.noise.start(x.shape, rng) if closure.noise is not None else None
    n_saved = n_steps // save_every
    saved = np.full((batch, n_saved, K), np.nan, dtype=np.float32)
    blowup_time = np.full(batch, np.nan)
    alive = np.ones(batch, dtype=bool)
    for s in tqdm(range(n_saved), disable=not progress, desc="coarse model", mininterval=5):
        for i in range(save_every):
            # a diverging run overflows before it is caught: a result, not a warning
            with np.errstate(over="ignore", invalid="ignore"):
                if per_stage:
                    x = coarse_rk4_step(x, forcing, dt, closure.tendency, noise)
                else:
                    correction = closure.tendency(x) + (0.0 if noise is None else noise)
                    x = coarse_rk4_step(x, forcing, dt) + dt * correction
                bad = alive & ~(np.abs(x).max(axis=1) <= blowup_threshold)  # NaN counts too
            if noise is not None:
                noise = closure.noise.step(noise, rng)
            if bad.any():
                blowup_time[bad] = (s * save_every + i + 1) * dt
                alive &= ~bad
                x[bad] = 0.0  # frozen: keeps the batch finite
                log.info("%d trajectories blew up at t=%.3f", bad.sum(), blowup_time[bad][0])
        saved[alive, s] = x[alive]
    times = dt * save_every * np.arange(1, n_saved + 1)
    return CoarseRun(times=times, x=saved, blowup_time=blowup_time)
