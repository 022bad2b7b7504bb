"""One declarative claim check over one table: which rows it reads, each value's
interval, and the verdict with what was expected, what was measured and why.

A claim's ``check`` is declarative (``pderepro/studies/schemas/claims.yaml``): rows are
picked by equality filters on columns, never by evaluated strings. Three kinds:

* ``threshold``: one row's ``column`` against ``threshold`` on the ``direction`` side;
* ``compare``: the ``better`` row against the ``than`` rows (or ``all_other``, or the
  ``than_column`` of its own row), lower or higher being better, optionally by a relative
  ``margin`` or as a distance to ``target``;
* ``ratio``: max over min of the selected values at most ``factor`` (flat).

Each value carries an interval (:func:`~pderepro.evaluation.claims_intervals.intervals`):
``interval: [low, high]`` columns (a bootstrap interval), ``spread: std`` (value +- std
over seeds), or none (a point); a ``noise_floor`` row of each group (e.g. ``{closure:
truth}``, a second truth ensemble scored like the closures) widens every value by its own
scale f and is never checked itself. A verdict is ``reproduced`` when the whole interval
is on the claimed side, ``not reproduced`` when it is wholly on the other side, and
``inconclusive`` otherwise. A comparison is held to two more rules, so that "A beats B"
means what it says:

* the difference A - B (B moved by the margin, ``x - m|x|`` when lower is better) must
  keep one sign over both intervals: its interval, reported as ``interval_low`` and
  ``interval_high``, must exclude zero, else "within noise"; two points with no interval
  are within noise by definition (their noise is unknown);
* B must itself beat the strongest ``reference`` row of its group (a no-learning row:
  zero field, mean field, persistence, best constant multiple) by the same margin, else
  "baseline did not learn" (``reference: than`` says B is that reference).

A ``timing`` check is inconclusive on any value without an interval (repeats give one),
and fewer seeds than ``min_seeds`` (the ``n_seeds`` column of the rows read; a table
without that column cannot say) make a verdict inconclusive. With ``for_each`` the check
runs per group and is reproduced only in every group, not reproduced if in any; the
interval reported is that of the weakest group (the least room on the claimed side).
:mod:`pderepro.evaluation.claims` evaluates a study's claims with these checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pderepro.evaluation.claims_intervals import (
    Interval,
    filter_text,
    intervals,
    noise_floor,
    select,
)

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN = (
    "reproduced",
    "not reproduced",
    "inconclusive",
    "not run",
)
#: Reasons a comparison's verdict is inconclusive although its rows were measured.
WITHIN_NOISE = "within noise"
BASELINE_DID_NOT_LEARN = "baseline did not learn"
NO_REPEATS = "a timing without repeats (no interval)"
_SEVERITY = {NOT_REPRODUCED: 0, INCONCLUSIVE: 1, REPRODUCED: 2, NOT_RUN: 3}


@dataclass(frozen=True)
class Outcome:
    """The verdict of a check (or of one group of it), what was measured and why.

    ``interval_low`` and ``interval_high`` bound the weakest row's quantity: a
    threshold's value, a comparison's difference (better minus the other moved by the
    margin), a ratio; ``baseline_beats_reference`` is "true" or "false" for a
    comparison with a reference row, else ""."""

    verdict: str
    measured: str = ""
    reason: str = ""
    interval_low: float = float("nan")
    interval_high: float = float("nan")
    baseline_beats_reference: str = ""
    slack: float = float("nan")  # room on the claimed side (negative: on the other)
    points: bool = False  # whether a value read had no interval

    def row(self) -> dict[str, Any]:
        """The columns of ``results/claims.csv`` this outcome fills."""
        return {
            "measured": self.measured,
            "verdict": self.verdict,
            "reason": self.reason,
            "interval_low": self.interval_low,
            "interval_high": self.interval_high,
            "baseline_beats_reference": self.baseline_beats_reference,
        }


def _side(claimed: bool, against: bool) -> str:
    """The verdict from whether the interval is wholly on the claimed side, or wholly on
    the other side."""
    return REPRODUCED if claimed else NOT_REPRODUCED if against else INCONCLUSIVE


def _threshold(group: pd.DataFrame, check: Mapping[str, Any], floor: float | None) -> Outcome:
    if len(group) != 1:
        raise ValueError(f"{len(group)} rows where one was expected:\n{group}")
    (x,) = intervals(group, check["column"], check.get("interval"), check.get("spread"), floor)
    t, direction = float(check["threshold"]), check["direction"]
    if direction in ("below", "at_most"):
        slack = t - x.high
        strict = direction == "below"
        verdict = _side(x.high < t if strict else x.high <= t, x.low >= t if strict else x.low > t)
    else:
        slack = x.low - t
        strict = direction == "above"
        verdict = _side(x.low > t if strict else x.low >= t, x.high <= t if strict else x.high < t)
    return Outcome(verdict, x.text(), interval_low=x.low, interval_high=x.high, slack=slack,
                   points=x.is_point)  # fmt: skip


def _label(row: pd.Series, keys: Sequence[str]) -> str:
    return ", ".join(str(row[k]) for k in keys) or "row"


def _mean(values: list[Interval]) -> Interval:
    fields = ("value", "low", "high")
    means = (float(np.mean([getattr(v, f) for v in values])) for f in fields)
    return Interval(*means, floor=values[0].floor)


def _beats(b: Interval, other: Interval, lower: bool) -> tuple[str, float, float]:
    """Verdict of ``b`` better than ``other`` (already moved by the margin) and the
    interval of the difference ``b - other`` over both intervals."""
    low, high = b.low - other.high, b.high - other.low
    if lower:
        return _side(high < 0, low > 0), low, high
    return _side(low > 0, high < 0), low, high


def _reference(
    group: pd.DataFrame, check: Mapping[str, Any], floor: float | None
) -> tuple[str, Interval | None]:
    """The strongest reference row's name and value, (``""``, None) when the check has
    none (``reference: than``), or raise when its filter picks no row of the group."""
    where = check.get("reference")
    if not isinstance(where, Mapping):
        return "", None
    rows = select(group, where)
    if rows.empty:
        raise LookupError(f"no reference row {filter_text(where)}")
    values = intervals(rows, check["column"], floor=floor)
    if check.get("aggregate") == "mean":
        return "mean", _mean(values)
    if "target" in check:
        values = [x.distance(float(check["target"])) for x in values]
    lower = check["lower_is_better"]
    best = int(
        np.argmin([x.value for x in values]) if lower else np.argmax([x.value for x in values])
    )
    # named like the rows it is compared with (model, method...), not by its filter
    keys = [k for k in check["better"] if k in rows.columns] or list(where)
    return _label(rows.iloc[best], keys), values[best]


def _compare(group: pd.DataFrame, check: Mapping[str, Any], floor: float | None) -> Outcome:
    """Each better row against each other row (with ``than_column``: against that column
    of its own row); with ``aggregate: mean``, the means of both sides; then whether each
    other row beat the strongest reference row (:func:`_reference`)."""
    try:
        reference_name, reference = _reference(group, check, floor)
    except LookupError as err:
        return Outcome(NOT_RUN, reason=str(err))
    better = select(group, check["better"])
    same_row = "than_column" in check
    if same_row:
        others = better
    else:
        others = group.drop(better.index)
        if check["than"] != "all_other":
            others = select(others, check["than"])
        elif isinstance(check.get("reference"), Mapping):  # a reference is no baseline
            others = others.drop(select(others, check["reference"]).index)
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
    verdicts, measured, reasons, weakest = [], [], [], None
    for i, j in pairs:
        b, other = ours[i], theirs[j].with_margin(margin, lower_is_better=lower)
        verdict, low, high = _beats(b, other, lower)
        if b.is_point and other.is_point and verdict == REPRODUCED:
            verdict = INCONCLUSIVE  # two points: the noise is unknown
        if verdict == INCONCLUSIVE and check.get("not_worse") and not b.is_point:
            verdict = REPRODUCED  # a claim of not being worse: within noise is not worse
            reasons.append(f"not worse ({WITHIN_NOISE}): {names[i]} vs {other_names[j]}")
        elif verdict == INCONCLUSIVE:
            reasons.append(f"{WITHIN_NOISE}: {names[i]} vs {other_names[j]}")
        slack = -high if lower else low
        if weakest is None or slack < weakest[0]:
            weakest = (slack, low, high)
        verdicts.append(verdict)
        measured.append(f"{names[i]} {b.text()} vs {other_names[j]} {theirs[j].text()}")
    learned = ""
    if reference is not None:
        bar = reference.with_margin(margin, lower_is_better=lower)
        failed = [
            f"{other_names[j]} {theirs[j].text()} vs {reference_name} {reference.text()}"
            for j in sorted({j for _, j in pairs})
            if _beats(theirs[j], bar, lower)[0] != REPRODUCED
        ]
        learned = "false" if failed else "true"
        measured.append(f"reference {reference_name} {reference.text()}")
        if failed:
            reasons = [f"{BASELINE_DID_NOT_LEARN}: {'; '.join(failed)}"]
            verdicts = [INCONCLUSIVE if v == REPRODUCED else v for v in verdicts]
    verdict = _combine(verdicts)
    return Outcome(
        verdict,
        "; ".join(measured),
        "; ".join(reasons) if verdict != REPRODUCED else "",
        interval_low=weakest[1],
        interval_high=weakest[2],
        baseline_beats_reference=learned,
        slack=weakest[0],
        points=any(x.is_point for x in [*ours, *theirs]),
    )


def _ratio(group: pd.DataFrame, check: Mapping[str, Any], floor: float | None) -> Outcome:
    """Max over min of the values."""
    columns = check["column"] if isinstance(check["column"], list) else [check["column"]]
    values = [
        x
        for c in columns
        for x in intervals(group, c, check.get("interval"), check.get("spread"), floor)
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
    return Outcome(_side(most <= factor, least > factor), measured, interval_low=least,
                   interval_high=most, slack=factor - most,
                   points=any(x.is_point for x in values))  # fmt: skip


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


def _too_few_seeds(group: pd.DataFrame, check: Mapping[str, Any]) -> str:
    """Why the rows read (the group less its reference rows, which learn nothing) have
    too few seeds for ``min_seeds``, else ""."""
    wanted = check.get("min_seeds")
    if not wanted:
        return ""
    if "n_seeds" not in group.columns:
        return f"min_seeds {wanted} asked, but the table has no n_seeds column"
    if isinstance(check.get("reference"), Mapping):
        group = group.drop(select(group, check["reference"]).index)
    fewest = int(pd.to_numeric(group["n_seeds"]).min())
    return f"{fewest} seed(s), fewer than {wanted}" if fewest < wanted else ""


def _with_reference(
    group: pd.DataFrame, table: pd.DataFrame, check: Mapping[str, Any], key: Mapping[str, Any]
) -> pd.DataFrame:
    """``group`` with the comparison's reference rows added when the ``rows`` filter or
    the grouping left them out: a no-learning row that does not vary with a filtered or
    grouping column (empty there, e.g. persistence has no target fraction) serves every
    group; one that does must match the group's value."""
    where = check.get("reference")
    if check["kind"] != "compare" or not isinstance(where, Mapping):
        return group
    if not select(group, where).empty:
        return group
    rows = select(table, where)
    for column, wanted in {**(check.get("rows") or {}), **key}.items():
        if column in where:
            continue
        matches = rows.index.isin(select(rows, {column: wanted}).index)
        rows = rows[rows[column].isna().to_numpy() | matches]
    return pd.concat([group, rows])


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
        return Outcome(NOT_RUN, reason=f"no rows where {filter_text(check.get('rows'))}")
    for_each = check.get("for_each") or []
    keys = [for_each] if isinstance(for_each, str) else list(for_each)
    groups = list(rows.groupby(keys, sort=False)) if keys else [((), rows)]
    outcomes, measured, reasons = [], [], []
    for key, group in groups:
        name = ", ".join(
            f"{k}={v}" for k, v in zip(keys, key if isinstance(key, tuple) else (key,), strict=True)
        )
        values = key if isinstance(key, tuple) else (key,)
        group = _with_reference(group, table, check, dict(zip(keys, values, strict=True)))
        group, floor, missing = noise_floor(group, check)
        if missing:
            outcome = Outcome(NOT_RUN, reason=missing)
        else:
            outcome = _CHECKS[check["kind"]](group, check, floor)
        few = _too_few_seeds(group, check)
        if check.get("timing") and outcome.points and outcome.verdict != NOT_RUN:
            few = NO_REPEATS
        if few and outcome.verdict != NOT_RUN:
            outcome = Outcome(**{**outcome.__dict__, "verdict": INCONCLUSIVE, "reason": few})
        outcomes.append(outcome)
        prefix = f"{name}: " if name else ""
        if outcome.measured:
            measured.append(prefix + outcome.measured)
        if outcome.reason or outcome.verdict != REPRODUCED and keys:
            reasons.append(prefix + (outcome.reason or outcome.verdict))
    run = [o for o in outcomes if o.verdict != NOT_RUN]
    verdicts = [o.verdict for o in run]
    verdict = (
        NOT_RUN if not run else _combine(verdicts) if len(run) == len(outcomes) else INCONCLUSIVE
    )
    weakest = min(run, key=lambda o: (_SEVERITY[o.verdict], o.slack), default=Outcome(NOT_RUN))
    learned = {o.baseline_beats_reference for o in run} - {""}
    return Outcome(
        verdict,
        "; ".join(measured),
        "; ".join(reasons),
        interval_low=weakest.interval_low,
        interval_high=weakest.interval_high,
        baseline_beats_reference="false" if "false" in learned else "true" if learned else "",
        slack=weakest.slack,
        points=any(o.points for o in run),
    )
