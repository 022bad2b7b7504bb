"""What every solver's verification shares: the columns of the verification table
(``results/validation/solvers.csv``, :data:`COLUMNS`) and the observed order of
convergence between successive rows (:func:`observed_orders`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

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
