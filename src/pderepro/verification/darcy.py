"""Verification of the Darcy finite-difference solver with manufactured solutions.

Two cases, both with ``u = 0`` on the boundary of the unit square:

* "manufactured, smooth a": ``a = 1 + sin(2 pi x) cos(pi y) / 2`` and
  ``u = exp(x) sin(pi x) sin(pi y)``, ``f = -div(a grad u)`` written out by hand. The scheme is
  second order here.
* "manufactured, interface a": ``a`` takes the benchmark's two values, ``a_left`` for
  ``x < 1/2`` and ``a_right`` for ``x > 1/2``, and ``u = v(x) sin(pi y)`` with ``v`` piecewise
  quadratic, continuous, with continuous flux ``a v'`` and ``-(a v')' = 1``. The interface lies
  midway between two vertex columns, like the jumps of ``psi(g)`` in the benchmark data. It is
  solved with each face mean of :data:`~pderepro.solvers.elliptic.darcy.FACE_MEANS`. The harmonic
  mean passes a constant flux across the jump exactly; here the flux ``a v'`` varies linearly
  across the face, which leaves an ``O(h)`` flux error on that one face and so an ``O(h^2)``
  error in ``u``, and the 5-point difference of ``sin(pi y)`` is second order anyway: second
  order, not exact. The arithmetic mean overstates the face's conductance by ``O(1)``: first
  order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from pderepro.solvers.elliptic.darcy import DarcyProblem, solve_darcy
from pderepro.verification.table import convergence_rows, log_table

logger = logging.getLogger(__name__)

#: Formal order of the 5-point scheme for smooth coefficients.
FD5_ORDER = 2
#: Order of the interface case by face mean: harmonic means keep a coefficient jump between
#: vertices at second order, arithmetic ones drop it to first.
INTERFACE_ORDERS = {"harmonic": 2, "arithmetic": 1}

SOLVER = "darcy_fd5"
SMOOTH_CASE = "manufactured, smooth a"


def interface_case(face_mean: str) -> str:
    """Name of the interface case solved with ``face_mean`` faces (a row of solvers.csv)."""
    return f"manufactured, interface a, {face_mean} faces"


Fields = tuple[np.ndarray, np.ndarray, np.ndarray]


def manufactured_smooth(x: np.ndarray, y: np.ndarray) -> Fields:
    """Coefficient, solution and source of the smooth manufactured case.

    Parameters
    ----------
    x, y : numpy.ndarray
        Coordinates (length units), broadcastable.

    Returns
    -------
    a, u, f : numpy.ndarray
        ``a = 1 + sin(2 pi x) cos(pi y) / 2`` (in [1/2, 3/2]),
        ``u = exp(x) sin(pi x) sin(pi y)`` and ``f = -(a (u_xx + u_yy) + a_x u_x + a_y u_y)``.
    """
    pi = np.pi
    sx, cx, sy, cy, ex = np.sin(pi * x), np.cos(pi * x), np.sin(pi * y), np.cos(pi * y), np.exp(x)
    a = 1.0 + 0.5 * np.sin(2 * pi * x) * cy
    a_x = pi * np.cos(2 * pi * x) * cy
    a_y = -0.5 * pi * np.sin(2 * pi * x) * sy
    u = ex * sx * sy
    u_x = ex * sy * (sx + pi * cx)
    u_y = pi * ex * sx * cy
    u_xx = ex * sy * ((1.0 - pi**2) * sx + 2.0 * pi * cx)
    u_yy = -(pi**2) * u
    f = -(a * (u_xx + u_yy) + a_x * u_x + a_y * u_y)
    return a, u, f


def manufactured_interface(
    x: np.ndarray, y: np.ndarray, *, a_left: float = 3.0, a_right: float = 12.0
) -> Fields:
    """Coefficient, solution and source of the interface case (jump at ``x = 1/2``).

    With flux ``a v' = alpha - x``, ``alpha = (3 a_left + a_right) / (4 (a_left + a_right))``
    makes ``v(x) = (alpha x - x^2 / 2) / a_left`` for ``x < 1/2`` and
    ``v(x) = (alpha x - x^2 / 2 - alpha + 1/2) / a_right`` for ``x > 1/2`` continuous, with
    ``v(0) = v(1) = 0`` and ``-(a v')' = 1``; then ``u = v(x) sin(pi y)`` solves
    ``-div(a grad u) = f`` with ``f = (1 + pi^2 a v) sin(pi y)``.

    Parameters
    ----------
    x, y : numpy.ndarray
        Coordinates (length units), broadcastable; ``x = 1/2`` counts as the right side.
    a_left, a_right : float
        Coefficient values (permeability units) on either side.

    Returns
    -------
    a, u, f : numpy.ndarray
        Broadcast shape of ``x`` and ``y``.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    alpha = (3.0 * a_left + a_right) / (4.0 * (a_left + a_right))
    left = x < 0.5
    a = np.where(left, a_left, a_right)
    primitive = alpha * x - 0.5 * x**2  # integral of the flux alpha - x from 0
    v = np.where(left, primitive / a_left, (primitive - alpha + 0.5) / a_right)
    sy = np.sin(np.pi * y)
    return a, v * sy, (1.0 + np.pi**2 * a * v) * sy


def _max_error(
    case: Callable[[np.ndarray, np.ndarray], Fields], resolution: int, face_mean: str
) -> float:
    problem = DarcyProblem(resolution=resolution, face_mean=face_mean)
    x, y = np.meshgrid(problem.grid, problem.grid, indexing="ij")  # (s, s) each
    a, exact, f = case(x, y)
    u = solve_darcy(a, problem, rhs=f)
    return float(np.max(np.abs(u - exact)))


def _rows(
    case_name: str,
    case: Callable[[np.ndarray, np.ndarray], Fields],
    resolutions: Sequence[int],
    face_mean: str = "harmonic",
) -> list[dict[str, object]]:
    errors = [_max_error(case, int(s), face_mean) for s in resolutions]
    inverse_h = [float(int(s) - 1) for s in resolutions]
    return convergence_rows(SOLVER, case_name, resolutions, np.nan, errors, inverse_h)


def darcy_convergence(
    resolutions: Sequence[int] = (17, 33, 65, 129, 257),
    *,
    interface_resolutions: Sequence[int] = (16, 32, 64, 128, 256),
) -> pd.DataFrame:
    """Grid convergence of :func:`~pderepro.solvers.elliptic.darcy.solve_darcy` on manufactured
    cases.

    The error is the maximum absolute difference from the exact solution at the vertices; the
    observed order is ``log(e_prev / e) / log(h_prev / h)``. For the smooth case it should
    approach :data:`FD5_ORDER`. The interface case needs ``resolution - 1`` odd so that
    ``x = 1/2`` falls between vertex columns; it is solved with each face mean, whose
    observed order should approach :data:`INTERFACE_ORDERS` (harmonic about 1.93, 1.97,
    1.99, 1.99 on the default grids; arithmetic 0.72 to 0.97).

    Parameters
    ----------
    resolutions : sequence of int
        Grid points per side (boundary included) for the smooth case, coarsest first.
    interface_resolutions : sequence of int
        Even grid sizes for the interface case; empty to skip it.

    Returns
    -------
    pandas.DataFrame
        Columns ``solver, case, resolution, dt, max_abs_error, observed_order``; ``dt`` is NaN
        (steady problem).
    """
    bad = [s for s in interface_resolutions if int(s) % 2 != 0]
    if bad:
        raise ValueError(
            f"interface_resolutions must be even so x = 1/2 lies between vertices, got {bad}"
        )
    rows = _rows(SMOOTH_CASE, manufactured_smooth, resolutions)
    for face_mean in INTERFACE_ORDERS if len(interface_resolutions) else ():
        rows += _rows(
            interface_case(face_mean), manufactured_interface, interface_resolutions, face_mean
        )
    return log_table(rows, "Darcy convergence study", logger)
