"""What every solver's verification shares: the columns of the verification table
(``results/validation/solvers.csv``, :data:`COLUMNS`), its rows (:func:`row`), the observed
order of convergence between successive rows (:func:`observed_orders`,
:func:`convergence_rows`), the differences of a self-convergence study
(:func:`successive_differences`) and the logged table (:func:`log_table`)."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

#: Errors below this are round-off; an observed order computed from them is meaningless.
ROUNDOFF_FLOOR = 1e-13

COLUMNS = ["solver", "case", "resolution", "dt", "max_abs_error", "observed_order"]


def observed_orders(errors: Sequence[float], refinements: Sequence[float]) -> list[float]:
    """``log(e_prev / e) / log(refinement ratio)``; NaN for the first row and round-off."""
    orders = [math.nan]
    for i in range(1, len(errors)):
        e_prev, e = errors[i - 1], errors[i]
        if min(e_prev, e) < ROUNDOFF_FLOOR:
            orders.append(math.nan)
        else:
            orders.append(math.log(e_prev / e) / math.log(refinements[i] / refinements[i - 1]))
    return orders


def row(
    solver: str, case: str, resolution: int, dt: float, error: float, order: float = math.nan
) -> dict[str, object]:
    """One row of the table, by :data:`COLUMNS`.

    Parameters
    ----------
    solver, case : str
        The solver's name and the case's description.
    resolution : int
        Grid points (or unknowns) of the run.
    dt : float
        Time step (time units); NaN for a steady problem.
    error : float
        The case's error, in the units its description names (often relative, so
        dimensionless).
    order : float
        Observed order of convergence against the previous row (dimensionless), NaN for none.

    Returns
    -------
    dict
        ``{column: value}`` with ``resolution`` an int and the numbers floats.
    """
    values = (solver, case, int(resolution), float(dt), float(error), float(order))
    return dict(zip(COLUMNS, values, strict=True))


def convergence_rows(
    solver: str,
    case: str,
    resolutions: int | Sequence[int],
    dts: float | Sequence[float],
    errors: Sequence[float],
    refinements: Sequence[float],
) -> list[dict[str, object]]:
    """The rows of a refinement study, each with its order against the one before.

    Parameters
    ----------
    solver, case : str
        As :func:`row`.
    resolutions : int or sequence of int
        Grid points per row, or one for every row.
    dts : float or sequence of float
        Time step per row (time units), or one for every row (NaN: steady).
    errors : sequence of float
        The error of each row, coarsest first (units as :func:`row`).
    refinements : sequence of float
        What is refined, per row: grid points, ``1 / dt`` (1 / time) or steps, so that the
        ratio of successive values is the refinement ratio (:func:`observed_orders`).

    Returns
    -------
    list of dict
        One :func:`row` per error.
    """
    n = len(errors)
    resolutions = [resolutions] * n if isinstance(resolutions, int | np.integer) else resolutions
    dts = [dts] * n if isinstance(dts, float | int | np.floating) else dts
    orders = observed_orders(errors, refinements)
    return [
        row(solver, case, r, dt, e, o)
        for r, dt, e, o in zip(resolutions, dts, errors, orders, strict=True)
    ]


def successive_differences(solutions: Sequence[np.ndarray]) -> list[float]:
    """The errors of a self-convergence study: each solution against the next finer one.

    Parameters
    ----------
    solutions : sequence of numpy.ndarray
        Solutions of one shape on the same points, coarsest level first.

    Returns
    -------
    list of float
        Largest ``|a - b|`` of each solution and the next (units of the solutions), one
        fewer than ``solutions``.
    """
    return [float(np.abs(a - b).max()) for a, b in zip(solutions[:-1], solutions[1:], strict=True)]


def log_table(
    rows: Iterable[Mapping[str, object]] | pd.DataFrame, heading: str, log: logging.Logger
) -> pd.DataFrame:
    """The verification table of ``rows``, logged at INFO under ``heading``.

    Parameters
    ----------
    rows : iterable of dict, or pandas.DataFrame
        Rows by :data:`COLUMNS` (see :func:`row`).
    heading : str
        What the table verifies, e.g. ``"Darcy convergence study"``.
    log : logging.Logger
        The verification module's logger.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`.
    """
    table = pd.DataFrame(rows, columns=COLUMNS)
    log.info("%s:\n%s", heading, table.to_string(index=False))
    return table
