"""Exact dam-break solutions and the verification of the shallow-water solver (rows of
``solvers.csv``).

The exact solutions of the dam break (still water, ``h_l`` left of ``x0`` and ``h_r`` right
of it, ``u = 0``, flat bottom) are self-similar in ``(x - x0) / t``: Stoker's (1957, *Water
Waves*, ch. 10.8) for a wet bed ``h_l > h_r > 0`` (a rarefaction to the left, a middle
state, a shock to the right) and Ritter's (1892) for a dry bed ``h_r = 0`` (a rarefaction
reaching the dry front ``x0 + 2 t sqrt(g h_l)``); the formulas as in Delestre et al. (2013,
SWASHES, Int. J. Numer. Meth. Fluids 72:269, sec. 4.1.1-4.1.2). The middle state is found by
Newton's method on the left rarefaction's Riemann invariant ``u_m = 2 (c_l - c_m)`` and the
right shock's Rankine-Hugoniot relations ``u_m = (h_m - h_r) sqrt(g (h_m + h_r) /
(2 h_m h_r))``, with ``c = sqrt(g h)``.

The checks of :mod:`pderepro.solvers.shallow_water.shallow_water` at its defaults (HLL, minmod,
SSP-RK2, CFL 0.4, ``g = 1``), each able to fail (tolerances in :data:`TOLERANCES`, used by
``tests/unit/test_shallow_water.py``); about 1 s on one core:

* L1 error of ``h`` against Stoker (``h_l = 1, h_r = 0.2``) and Ritter (``h_l = 1``) at
  ``t = 0.2`` on ``[0, 1]``, dam at 0.5, transmissive boundaries, at :data:`RESOLUTIONS`
  cells. The observed order is 1, not 2: the shock (Stoker) and the kinks at the
  rarefaction's edges and the dry front (Ritter) limit MUSCL to first order in L1
  (tolerance 0.8-1.2 for the finest pair and below 1e-3 at 800 cells; measured Stoker
  5.1e-3, 2.6e-3, 1.3e-3, 6.4e-4, orders 1.00, 1.01, 0.99; Ritter 5.1e-3 .. 6.3e-4,
  orders 1.02, 1.01, 1.00);
* the lake at rest ``eta = 0.5`` over the submerged bump ``b = 0.25 exp(-(x - 0.5)^2 /
  0.01)``, and ``eta = 0.15`` over the emerged one (28 dry cells), in a closed (reflective)
  basin of 200 cells to ``t = 1``: largest ``|eta - eta_0|``, ``|h - h_0|``, ``|hu|``
  (tolerance 1e-12; measured 4e-16 and 8e-17);
* mass of 8 random periodic states with dry patches (:func:`random_states`, 256 cells) to
  ``t = 1``, through shocks: largest relative change (tolerance 1e-12; measured 2.2e-16);
* positivity on Ritter's dam break at 800 cells: the most negative depth over 21 frames
  (0 when none; measured 0).
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
import pandas as pd

from pderepro.solvers.shallow_water.problem import ShallowWaterProblem
from pderepro.solvers.shallow_water.shallow_water import (
    solve_shallow_water,
    total_mass,
)
from pderepro.verification.table import convergence_rows, log_table, row

logger = logging.getLogger(__name__)

SOLVER = "shallow_water_muscl_hll"
#: Cells of the dam-break convergence rows.
RESOLUTIONS = (100, 200, 400, 800)
#: Depths and time of the dam breaks (dimensionless, g = 1, dam at x0 = 0.5 on [0, 1]).
DAM = {"h_left": 1.0, "stoker_h_right": 0.2, "x0": 0.5, "t_final": 0.2}
#: What each row must reach: observed L1 order of the finest pair within ``order``,
#: finest L1 errors below ``stoker_l1`` / ``ritter_l1``, the lake and mass rows below
#: ``round_off``, no negative depth.
TOLERANCES = {
    "order": (0.8, 1.2),
    "stoker_l1": 1e-3,
    "ritter_l1": 1e-3,
    "round_off": 1e-12,
    "negative_depth": 0.0,
}


def stoker_middle_state(
    h_left: float, h_right: float, gravity: float = 1.0, *, tol: float = 1e-14
) -> tuple[float, float, float]:
    """Middle depth, velocity and shock speed of Stoker's wet dam break.

    Newton's method (safeguarded by bisection on ``(h_r, h_l)``) on
    ``f(h) = 2 (c_l - sqrt(g h)) - (h - h_r) sqrt(g (h + h_r) / (2 h h_r))``.

    Parameters
    ----------
    h_left, h_right : float
        Depths either side of the dam, ``h_left > h_right > 0``.
    gravity : float
        ``g`` (dimensionless).
    tol : float
        Relative tolerance on ``h_m``.

    Returns
    -------
    tuple of float
        ``(h_m, u_m, s)``: middle depth and velocity, shock speed ``h_m u_m / (h_m - h_r)``.
    """
    if not h_left > h_right > 0:
        raise ValueError(f"need h_left > h_right > 0, got {h_left}, {h_right}")
    g, c_l = gravity, math.sqrt(gravity * h_left)

    def f(h: float) -> tuple[float, float]:
        q = math.sqrt(g * (h + h_right) / (2 * h * h_right))
        dq = -g / (4 * h * h * q)
        value = 2 * (c_l - math.sqrt(g * h)) - (h - h_right) * q
        return value, -math.sqrt(g / h) - q - (h - h_right) * dq

    lo, hi, h = h_right, h_left, 0.5 * (h_left + h_right)
    for _ in range(100):
        value, slope = f(h)
        lo, hi = (h, hi) if value > 0 else (lo, h)  # f falls from f(h_r) > 0 to f(h_l) < 0
        new = h - value / slope
        new = new if lo < new < hi else 0.5 * (lo + hi)
        if abs(new - h) <= tol * h:
            h = new
            break
        h = new
    u = 2 * (c_l - math.sqrt(g * h))
    return h, u, h * u / (h - h_right)


def dam_break_exact(
    x: np.ndarray,
    t: float,
    h_left: float,
    h_right: float,
    *,
    x0: float = 0.5,
    gravity: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact depth and velocity of the dam break at time ``t > 0`` (Stoker; Ritter if
    ``h_right == 0``).

    Parameters
    ----------
    x : numpy.ndarray
        Positions (dimensionless length).
    t : float
        Time since the dam vanished, positive.
    h_left, h_right : float
        Initial depths left and right of ``x0``, ``h_left > h_right >= 0``.
    x0 : float
        Dam position.
    gravity : float
        ``g``.

    Returns
    -------
    tuple of numpy.ndarray
        ``h(x, t)`` and ``u(x, t)``, each shaped like ``x``.
    """
    if t <= 0:
        raise ValueError(f"t must be positive, got {t}")
    g, c_l = gravity, math.sqrt(gravity * h_left)
    xi = (np.asarray(x, dtype=np.float64) - x0) / t
    # inside the rarefaction: u - 2c = -2 c_l constant, and u - c = xi
    h_fan, u_fan = (2 * c_l - xi) ** 2 / (9 * g), 2 * (xi + c_l) / 3
    if h_right == 0:  # Ritter: the fan reaches the dry front
        tail, h_mid, u_mid, front = 2 * c_l, 0.0, 0.0, 2 * c_l
    else:
        h_mid, u_mid, front = stoker_middle_state(h_left, h_right, g)
        tail = u_mid - math.sqrt(g * h_mid)
    h = np.select([xi <= -c_l, xi <= tail, xi <= front], [h_left, h_fan, h_mid], h_right)
    u = np.select([xi <= -c_l, xi <= tail, xi <= front], [0.0, u_fan, u_mid], 0.0)
    return h, u


def _row(case: str, n: int, error: float) -> dict:
    return row(SOLVER, case, n, math.nan, error)  # the step is adaptive (CFL)


@functools.cache
def _dam_break_frames(n: int, h_right: float) -> tuple[ShallowWaterProblem, np.ndarray]:
    """The dam break on ``n`` cells, 21 frames to ``t_final``: ``(21, 2, n)``, read-only
    (cached: the convergence and positivity rows share the runs)."""
    problem = ShallowWaterProblem(resolution=n, boundary="transmissive")
    h0 = np.where(problem.grid < DAM["x0"], DAM["h_left"], h_right)
    times = np.linspace(0.0, DAM["t_final"], 21)
    frames = solve_shallow_water(np.stack([h0, np.zeros(n)]), problem, times)
    frames.flags.writeable = False
    return problem, frames


def dam_break_rows(h_right: float, resolutions=RESOLUTIONS) -> list[dict]:
    """L1 errors of ``h`` against :func:`dam_break_exact` at ``t = 0.2``, with orders."""
    t = DAM["t_final"]
    errors = []
    for n in resolutions:
        problem, frames = _dam_break_frames(int(n), float(h_right))
        exact, _ = dam_break_exact(problem.grid, t, DAM["h_left"], h_right, x0=DAM["x0"])
        errors.append(float(np.abs(frames[-1, 0] - exact).sum() * problem.dx))
    # the panel titles of the convergence figure: short; the conditions are in the docstring
    name = f"Stoker dam break h_r={h_right:g}" if h_right > 0 else "Ritter dry dam break"
    why = "shock" if h_right > 0 else "kinks"
    case = f"{name}: L1 error of h (1st order: {why})"
    refinements = [float(n) for n in resolutions]
    return convergence_rows(SOLVER, case, resolutions, math.nan, errors, refinements)


def lake_at_rest_row(level: float, n: int = 200, t_final: float = 1.0) -> dict:
    """Largest ``|eta - level|`` or ``|hu|`` after ``t_final`` in a reflective basin over the
    bump ``b = 0.25 exp(-(x - 0.5)^2 / 0.01)`` (emerged, with dry cells, if ``level < 0.25``)."""
    problem = ShallowWaterProblem(resolution=n, boundary="reflective")
    b = 0.25 * np.exp(-((problem.grid - 0.5) ** 2) / 0.01)
    h0 = np.maximum(level - b, 0.0)
    state = solve_shallow_water(np.stack([h0, np.zeros(n)]), problem, [t_final], b)[0]
    wet = state[0] > 0
    error = max(
        np.abs(state[0] + b - level)[wet].max(), np.abs(state[0] - h0).max(), np.abs(state[1]).max()
    )
    dry = int(n - (h0 > 0).sum())
    return _row(f"lake at rest, eta={level:g}, {dry} dry cells: max |eta-eta0|, |hu|", n, error)


def random_states(problem: ShallowWaterProblem, samples: int, seed: int) -> np.ndarray:
    """Smooth random periodic states ``(samples, 2, n)``: depth ``1 + 0.5 * noise`` with dry
    patches where it falls below 0.6, velocity ``0.5 * noise`` (sums of 8 Fourier modes)."""
    rng = np.random.default_rng(seed)
    x = problem.grid / problem.length
    k = np.arange(1, 9)

    def field() -> np.ndarray:
        amps = rng.normal(size=(samples, k.size, 1)) / k[None, :, None]
        phases = rng.uniform(0, 2 * np.pi, size=(samples, k.size, 1))
        f = (amps * np.sin(2 * np.pi * k[None, :, None] * x + phases)).sum(axis=1)
        return f / np.abs(f).max(axis=1, keepdims=True)

    h = 1.0 + 0.5 * field()
    h = np.where(h < 0.6, 0.0, h)
    return np.stack([h, 0.5 * field() * h], axis=1)


def mass_row(n: int = 256, samples: int = 8, t_final: float = 1.0, seed: int = 0) -> dict:
    """Largest relative mass change over ``t_final`` of random periodic states."""
    problem = ShallowWaterProblem(resolution=n, boundary="periodic")
    state0 = random_states(problem, samples, seed)
    state = solve_shallow_water(state0, problem, [t_final])[:, 0]
    drift = np.abs(total_mass(state, problem) / total_mass(state0, problem) - 1).max()
    return _row(f"mass, periodic, {samples} random states: relative change", n, drift)


def positivity_row(n: int = 800) -> dict:
    """The most negative depth (0 if none) over 21 frames of Ritter's dam break."""
    frames = _dam_break_frames(int(n), 0.0)[1]
    return _row("positivity, Ritter dam break: max(0, -min h)", n, max(0.0, -frames[:, 0].min()))


def shallow_water_verification() -> pd.DataFrame:
    """All shallow-water rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~pderepro.verification.table.COLUMNS`; ``dt`` is NaN (adaptive
        CFL step), ``max_abs_error`` holds each row's measure named in its case.
    """
    rows = [
        *dam_break_rows(DAM["stoker_h_right"]),
        *dam_break_rows(0.0),
        lake_at_rest_row(0.5),
        lake_at_rest_row(0.15),
        mass_row(),
        positivity_row(),
    ]
    return log_table(rows, "shallow-water verification", logger)
