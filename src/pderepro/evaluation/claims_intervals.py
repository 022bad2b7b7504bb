"""The values a claim check reads: rows picked by declarative filters, each value with
its interval (bootstrap columns, a seeds' spread, a noise floor, or both of the last two),
and the relative margin a comparison asks for.

:mod:`pderepro.evaluation.claims_checks` builds its verdicts from these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Interval:
    """A measured value and its interval (``low == high == value`` for a point; a value
    widened by a noise floor keeps the floor's scale for its text)."""

    value: float
    low: float
    high: float
    floor: float | None = None

    @property
    def is_point(self) -> bool:
        return self.low == self.high == self.value

    def text(self) -> str:
        if self.floor is not None:
            ends = [self.value - self.floor, self.value + self.floor]
            if np.allclose([self.low, self.high], ends):
                return f"{self.value:.3g} ± floor {self.floor:.3g}"
            return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}] (± floor {self.floor:.3g})"
        if self.is_point:
            return f"{self.value:.3g}"
        return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"

    def distance(self, target: float) -> Interval:
        """``|x - target|`` over the interval."""
        ends = (abs(self.low - target), abs(self.high - target))
        low = 0.0 if self.low <= target <= self.high else min(ends)
        return replace(self, value=abs(self.value - target), low=low, high=max(ends))

    def with_margin(self, margin: float, *, lower_is_better: bool) -> Interval:
        """The value a better row must pass: each end moved by ``margin`` times its own
        magnitude towards the better side (``x - m|x|`` when lower is better), so that a
        margin asks for more, never less, whatever the sign of the quantity."""
        sign = -1.0 if lower_is_better else 1.0

        def move(x: float) -> float:
            return x + sign * margin * abs(x)

        return replace(self, value=move(self.value), low=move(self.low), high=move(self.high))


def select(table: pd.DataFrame, where: Mapping[str, Any] | None) -> pd.DataFrame:
    """Rows of ``table`` whose columns equal ``where``'s values (one of them, for a list);
    numbers match to within 1e-9 relative, anything else as text.

    Raises
    ------
    KeyError
        When ``where`` names a column the table lacks.
    """
    keep = np.ones(len(table), dtype=bool)
    for column, wanted in (where or {}).items():
        if column not in table.columns:
            raise KeyError(f"no column {column!r} (columns: {list(table.columns)})")
        values = wanted if isinstance(wanted, list) else [wanted]
        cells = table[column]
        match = np.zeros(len(table), dtype=bool)
        for value in values:
            if isinstance(value, int | float) and not isinstance(value, bool):
                numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
                match |= np.isclose(numbers, float(value), rtol=1e-9, atol=0.0)
            else:
                match |= (cells.astype(str) == str(value)).to_numpy()
        keep &= match
    return table[keep]


def filter_text(where: Mapping[str, Any] | None) -> str:
    """``model=FNO, split in {seen, unseen}``: a filter for people."""
    return ", ".join(
        f"{k} in {{{', '.join(map(str, v))}}}" if isinstance(v, list) else f"{k}={v}"
        for k, v in (where or {}).items()
    )


def intervals(
    rows: pd.DataFrame,
    column: str,
    interval: Sequence[str] | None = None,
    spread: str | None = None,
    floor: float | None = None,
) -> list[Interval]:
    """The value of ``column`` in each row with its interval: the ``interval`` columns,
    or +- ``spread``, or a point; a noise ``floor`` widens whichever it is by +- floor
    (sampling noise of the truth and the seeds' spread add, so neither is dropped)."""
    out = []
    for _, row in rows.iterrows():
        value = float(row[column])
        if interval:
            low, high = float(row[interval[0]]), float(row[interval[1]])
        elif spread:
            width = float(row[spread])
            width = 0.0 if np.isnan(width) else width  # one seed: no spread measured
            low, high = value - width, value + width
        else:
            low = high = value
        if floor is not None:
            low, high = low - floor, high + floor
        out.append(Interval(value, low, high, floor))
    return out


def noise_floor(
    group: pd.DataFrame, check: Mapping[str, Any]
) -> tuple[pd.DataFrame, float | None, str]:
    """``group`` without its ``noise_floor`` row, the floor's scale f (``|value|`` of the
    checked column, ``|value - target|`` with a target; None without a floor) and why the
    check cannot run (no floor row), else "".

    Raises
    ------
    ValueError
        When the floor's filter picks several rows of the group.
    """
    where = check.get("noise_floor")
    if not where:
        return group, None, ""
    rows = select(group, where)
    if rows.empty:
        return group, None, f"no noise-floor row {filter_text(where)}"
    if len(rows) > 1:
        raise ValueError(f"{len(rows)} noise-floor rows where one was expected:\n{rows}")
    value = float(rows[check["column"]].iloc[0])
    scale = abs(value - float(check["target"])) if "target" in check else abs(value)
    return group.drop(rows.index), scale, ""
