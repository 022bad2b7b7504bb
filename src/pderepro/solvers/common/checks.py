"""Argument checks the solvers share: a real number (finite, optionally non-negative or
positive) and a whole count with a lower bound, each refused with a ValueError that names
the argument."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["check_count", "check_divides", "check_real"]


def check_real(
    name: str, value: object, *, non_negative: bool = False, positive: bool = False
) -> float:
    """``value`` as a float, refused unless it is a finite real number (not a bool).

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        A Python or numpy integer or float (units of the argument).
    non_negative, positive : bool
        Also refuse values below 0, or at or below 0.

    Returns
    -------
    float
        ``float(value)``, in the units of the argument.

    Raises
    ------
    ValueError
        Naming the argument and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if not math.isfinite(value) or (positive and value <= 0) or (non_negative and value < 0):
        if positive:
            kind = "positive and finite"
        elif non_negative:
            kind = "finite and non-negative"
        else:
            kind = "finite"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return float(value)


def check_count(name: str, value: object, minimum: int) -> int:
    """``value`` as an int, refused unless it is an integer (not a bool) ``>= minimum``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        A Python or numpy integer (a count, dimensionless).
    minimum : int
        The smallest value accepted.

    Returns
    -------
    int
        ``int(value)``.

    Raises
    ------
    ValueError
        Naming the argument and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_divides(part: str, step: float, whole: str, total: float, what: str = "steps") -> int:
    """The whole number ``total / step``, refused unless it is one (to a relative 1e-9).

    Parameters
    ----------
    part, whole : str
        The names of ``step`` and ``total``, for the message.
    step, total : float
        Positive durations (time units): a step and the interval it must divide.
    what : str
        What ``total`` holds a whole number of, for the message (``steps``, ``records``).

    Returns
    -------
    int
        ``round(total / step)``, at least 1.

    Raises
    ------
    ValueError
        Naming both, when ``total / step`` is not a whole number.
    """
    ratio = total / step
    n = round(ratio)
    if n < 1 or abs(ratio - n) > 1e-9 * ratio:
        raise ValueError(
            f"{part}={step} does not divide {whole}={total} into a whole number of {what}"
        )
    return n
