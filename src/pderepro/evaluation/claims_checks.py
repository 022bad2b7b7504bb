"""One declarative claim check over one table: which rows it reads, each value's
interval, and the verdict with what was expected and what was measured.

A claim's ``check`` is declarative (``pderepro/studies/schemas/claims.yaml``): rows are
picked by equality filters on columns, never by evaluated strings. Three kinds:

* ``threshold``: one row's ``column`` against ``threshold`` on the ``direction`` side;
* ``compare``: the ``better`` row against the ``than`` rows (or ``all_other``), lower or
  higher being better, optionally by a relative ``margin`` or as a distance to ``target``;
* ``ratio``: max over min of the selected values at most ``factor`` (flat).

Each value carries an interval: ``interval: [low, high]`` columns (the bootstrap interval),
``spread: std`` (value +- std over seeds), or none (a point). A table of points can name a
``noise_floor`` row (``threshold`` and ``compare``; e.g. ``{closure: truth}``, a second
independent truth ensemble scored like the closures): in each group (after ``rows`` and
``for_each``) that one row's ``column`` value is the sampling-noise scale f of a point
(f = |value|, or |value - target| with a ``target``), each point v becomes
[v - f, v + f], and the floor row itself is never checked or compared. A verdict is
``reproduced`` when the whole interval is on the claimed side, ``not reproduced`` when it
is wholly on the other side, and ``inconclusive`` when it straddles, or when a row has
fewer than ``min_seeds`` seeds (the ``n_seeds`` column). With ``for_each`` the check runs
per group and is reproduced only in every group, not reproduced if in any.
:mod:`pderepro.evaluation.claims` evaluates a study's claims with these checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN = (
    "reproduced",
    "not reproduced",
    "inconclusive",
    "not run",
)
_OPERATORS = {"below": "<", "at_most": "<=", "above": ">", "at_least": ">="}


@dataclass(frozen=True)
class Interval:
    """A measured value and its interval (``low == high == value`` for a point; a point
    widened by a noise floor keeps the floor's scale for its text)."""

    value: float
    low: float
    high: float
    floor: float | None = None

    def text(self) -> str:
        if self.floor is not None:
            ends = [self.value - self.floor, self.value + self.floor]
            if np.allclose([self.low, self.high], ends):
                return f"{self.value:.3g} ± floor {self.floor:.3g}"
            return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}] (± floor {self.floor:.3g})"
        if self.low == self.high == self.value:
            return f"{self.value:.3g}"
        return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"

    def scaled(self, factor: float) -> Interval:
        return replace(
            self, value=self.value * factor, low=self.low * factor, high=self.high * factor
        )

    def distance(self, target: float) -> Interval:
        """``|x - target|`` over the interval."""
        ends = (abs(self.low - target), abs(self.high - target))
        low = 0.0 if self.low <= target <= self.high else min(ends)
        return replace(self, value=abs(self.value - target), low=low, high=max(ends))


_FIELDS = ("value", "low", "high")


@dataclass(frozen=True)
class Outcome:
    """The verdict of a check (or of one group of it), what was measured and why."""

    verdict: str
    measured: str = ""
    reason: str = ""


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


def _filter_text(where: Mapping[str, Any] | None) -> str:
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
    """The value of ``column`` in each row with its interval (``interval`` columns, or
    +- ``spread``, or +- a noise ``floor``, or a point)."""
    out = []
    for _, row in rows.iterrows():
        value = float(row[column])
        if interval:
            low, high = float(row[interval[0]]), float(row[interval[1]])
        elif spread:
            low, high = value - float(row[spread]), value + float(row[spread])
        elif floor is not None:
            out.append(Interval(value, value - floor, value + floor, floor))
            continue
        else:
            low = high = value
        out.append(Interval(value, low, high))
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
        return group, None, f"no noise-floor row {_filter_text(where)}"
    if len(rows) > 1:
        raise ValueError(f"{len(rows)} noise-floor rows where one was expected:\n{rows}")
    value = float(rows[check["column"]].iloc[0])
    scale = abs(value - float(check["target"])) if "target" in check else abs(value)
    return group.drop(rows.index), scale, ""


def _too_few_seeds(rows: pd.DataFrame, check: Mapping[str, Any]) -> str:
    wanted = check.get("min_seeds")
    if not wanted or "n_seeds" not in rows.columns:
        return ""
    fewest = int(pd.to_numeric(rows["n_seeds"]).min())
    return f"{fewest} seed(s), fewer than {wanted}" if fewest < wanted else ""


def _side(claimed: bool, against: bool) -> str:
    """The verdict from whether the interval is wholly on the claimed side, or wholly on
    the other side."""
    return REPRODUCED if claimed else NOT_REPRODUCED if against else INCONCLUSIVE


def _threshold(group: pd.DataFrame, check: Mapping[str, Any], floor: float | None) -> Outcome:
    if len(group) != 1:
        raise ValueError(f"{len(group)} rows where one was expected:\n{group}")
    (x,) = intervals(group, check["column"], check.get("interval"), check.get("spread"), floor)
    t, direction = float(check["threshold"]), check["direction"]
    if direction == "below":
        verdict = _side(x.high < t, x.low >= t)
    elif direction == "at_most":
        verdict = _side(x.high <= t, x.low > t)
    elif direction == "above":
        verdict = _side(x.low > t, x.high <= t)
    else:
        verdict = _side(x.low >= t, x.high < t)
    return Outcome(verdict, x.text())


def _label(row: pd.Series, keys: Sequence[str]) -> str:
    return ", ".join(str(row[k]) for k in keys) or "row"


def _mean(values: list[Interval]) -> Interval:
    means = (float(np.mean([getattr(v, f) for v in values])) for f in _FIELDS)
    return Interval(*means, floor=values[0].floor)


def _compare(group: pd.DataFrame, check: Mapping[str, Any], floor: float | None) -> Outcome:
    """Each better row against each other row (with ``than_column``: against that column
    of its own row); with ``aggregate: mean``, the means of both sides."""
    better = select(group, check["better"])
    same_row = "than_column" in check
    if same_row:
        others = better
    else:
        others = group.drop(better.index)
        if check["than"] != "all_other":
            others = select(others, check["than"])
    if check.get("exclude"):
        others = others.drop(select(others, check["exclude"]).index)
    if better.empty or others.empty:
        return Outcome(NOT_RUN, reason=f"no {'better row' if better.empty else 'other row'}")
    keys = list(check["better"])
    ours = intervals(better, check["column"], check.get("interval"), check.get("spread"), floor)
    theirs = intervals(
        others,
        check.get("than_column", check["column"]),
        check.get("than_interval", None if same_row else check.get("interval")),
        check.get("than_spread", None if same_row else check.get("spread")),
        floor,
    )
    names = [_label(r, keys) for _, r in better.iterrows()]
    other_names = [
        check["than_column"] if same_row else _label(r, keys) for _, r in others.iterrows()
    ]
    if check.get("aggregate") == "mean":
        ours, theirs, names, other_names = [_mean(ours)], [_mean(theirs)], ["mean"], ["mean"]
    if "target" in check:
        ours = [x.distance(float(check["target"])) for x in ours]
        theirs = [x.distance(float(check["target"])) for x in theirs]
    pairs = (
        list(zip(range(len(ours)), range(len(theirs)), strict=True))
        if same_row or check.get("aggregate") == "mean"
        else [(i, j) for i in range(len(ours)) for j in range(len(theirs))]
    )
    margin, lower = float(check.get("margin", 0.0)), check["lower_is_better"]
    verdicts, measured = [], []
    for i, j in pairs:
        b, other = ours[i], theirs[j].scaled(1.0 - margin if lower else 1.0 + margin)
        if lower:
            verdicts.append(_side(b.high < other.low, b.low > other.high))
        else:
            verdicts.append(_side(b.low > other.high, b.high < other.low))
        measured.append(f"{names[i]} {b.text()} vs {other_names[j]} {theirs[j].text()}")
    return Outcome(_combine(verdicts), "; ".join(measured))


def _ratio(group: pd.DataFrame, check: Mapping[str, Any], _floor: float | None) -> Outcome:
    """Max over min of the values (the schema gives a ratio no noise floor)."""
    columns = check["column"] if isinstance(check["column"], list) else [check["column"]]
    values = [
        x for c in columns for x in intervals(group, c, check.get("interval"), check.get("spread"))
    ]
    if len(values) < 2:
        return Outcome(NOT_RUN, reason=f"{len(values)} value(s): a ratio needs two")
    lows = [x.low for x in values]
    if min(lows) <= 0:
        return Outcome(INCONCLUSIVE, reason="an interval reaches zero: no ratio")
    point = max(x.value for x in values) / min(x.value for x in values)
    most = max(x.high for x in values) / min(lows)  # the ratio at its largest
    least = max(1.0, max(lows) / min(x.high for x in values))  # and at its smallest
    factor = float(check["factor"])
    measured = (
        f"max/min {point:.3g}"
        + (f" [{least:.3g}, {most:.3g}]" if most != least else "")
        + f" over {len(values)} values"
    )
    return Outcome(_side(most <= factor, least > factor), measured)


_CHECKS: dict[str, Callable[[pd.DataFrame, Mapping[str, Any], float | None], Outcome]] = {
    "threshold": _threshold,
    "compare": _compare,
    "ratio": _ratio,
}


def _combine(verdicts: Sequence[str]) -> str:
    """Reproduced only if everywhere, not reproduced if anywhere, else inconclusive."""
    if NOT_REPRODUCED in verdicts:
        return NOT_REPRODUCED
    return REPRODUCED if all(v == REPRODUCED for v in verdicts) else INCONCLUSIVE


def expected_text(check: Mapping[str, Any]) -> str:
    """What the claim expects, for people (e.g. ``change < -0.2``)."""
    kind, column = check["kind"], check["column"]
    if kind == "threshold":
        text = f"{column} {_OPERATORS[check['direction']]} {check['threshold']:g}"
    elif kind == "ratio":
        columns = "/".join(column) if isinstance(column, list) else column
        text = f"max/min of {columns} <= {check['factor']:g}"
    else:
        op = "<" if check["lower_is_better"] else ">"
        margin = float(check.get("margin", 0.0))
        scale = f"{1 - margin if check['lower_is_better'] else 1 + margin:g} x " if margin else ""
        if "than_column" in check:
            other = f"its {check['than_column']}"
        elif check["than"] == "all_other":
            other = "every other row"
        else:
            other = _filter_text(check["than"])
        value = f"|{column} - {check['target']:g}|" if "target" in check else column
        mean = "mean " if check.get("aggregate") == "mean" else ""
        text = f"{mean}{value} of {_filter_text(check['better'])} {op} {scale}{other}"
        if check.get("exclude"):
            text += f" (not {_filter_text(check['exclude'])})"
    if check.get("noise_floor"):
        text += f", points ± noise floor of {_filter_text(check['noise_floor'])}"
    if check.get("rows"):
        text += f" where {_filter_text(check['rows'])}"
    for_each = check.get("for_each")
    if for_each:
        text += f", each {', '.join([for_each] if isinstance(for_each, str) else for_each)}"
    return text


def check_table(table: pd.DataFrame, check: Mapping[str, Any]) -> Outcome:
    """The verdict of ``check`` over ``table`` (:data:`_CHECKS`), per group if
    ``for_each``, each group's noise-floor row (:func:`noise_floor`) set aside.

    Raises
    ------
    KeyError, ValueError
        When the check names a column the table lacks, or a filter meant to pick one row
        (the floor's included) picks several (the claim is wrong, not the run).
    """
    rows = select(table, check.get("rows"))
    if rows.empty:
        return Outcome(NOT_RUN, reason=f"no rows where {_filter_text(check.get('rows'))}")
    for_each = check.get("for_each") or []
    keys = [for_each] if isinstance(for_each, str) else list(for_each)
    groups = list(rows.groupby(keys, sort=False)) if keys else [((), rows)]
    outcomes, measured, reasons = [], [], []
    for key, group in groups:
        name = ", ".join(
            f"{k}={v}" for k, v in zip(keys, key if isinstance(key, tuple) else (key,), strict=True)
        )
        group, floor, missing = noise_floor(group, check)
        if missing:
            outcome = Outcome(NOT_RUN, reason=missing)
        else:
            outcome = _CHECKS[check["kind"]](group, check, floor)
        few = _too_few_seeds(group, check)
        if few and outcome.verdict != NOT_RUN:
            outcome = Outcome(INCONCLUSIVE, outcome.measured, few)
        outcomes.append(outcome.verdict)
        prefix = f"{name}: " if name else ""
        if outcome.measured:
            measured.append(prefix + outcome.measured)
        if outcome.reason or outcome.verdict != REPRODUCED and keys:
            reasons.append(prefix + (outcome.reason or outcome.verdict))
    run = [v for v in outcomes if v != NOT_RUN]
    verdict = NOT_RUN if not run else _combine(run) if len(run) == len(outcomes) else INCONCLUSIVE
    return Outcome(verdict, "; ".join(measured), "; ".join(reasons))
