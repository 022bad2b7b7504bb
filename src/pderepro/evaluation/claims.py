"""A paper's claims checked over a study's own tables: each claim's verdict, with what
was expected and what was measured (value and interval).

A claim's ``check`` is declarative (``pderepro/studies/schemas/claims.yaml``): rows are
picked by equality filters on columns, never by evaluated strings. Three kinds:

* ``threshold``: one row's ``column`` against ``threshold`` on the ``direction`` side;
* ``compare``: the ``better`` row against the ``than`` rows (or ``all_other``), lower or
  higher being better, optionally by a relative ``margin`` or as a distance to ``target``;
* ``ratio``: max over min of the selected values at most ``factor`` (flat).

Each value carries an interval: ``interval: [low, high]`` columns (the bootstrap interval),
``spread: std`` (value +- std over seeds), or none (a point). A verdict is ``reproduced``
when the whole interval is on the claimed side, ``not reproduced`` when it is wholly on the
other side, and ``inconclusive`` when it straddles, or when a row has fewer than
``min_seeds`` seeds (the ``n_seeds`` column). With ``for_each`` the check runs per group
and the claim is reproduced only in every group, not reproduced if in any. A claim is
``not run`` at a preset it does not name, in a study that is not enabled, or when its
table or rows are absent (the reason says which).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN = (
    "reproduced",
    "not reproduced",
    "inconclusive",
    "not run",
)
#: Columns of ``results/claims.csv``.
CLAIMS_COLUMNS = [
    "study",
    "claim_id",
    "claim",
    "source",
    "preset",
    "expected",
    "measured",
    "verdict",
    "reason",
]
_OPERATORS = {"below": "<", "at_most": "<=", "above": ">", "at_least": ">="}


@dataclass(frozen=True)
class Interval:
    """A measured value and its interval (``low == high == value`` for a point)."""

    value: float
    low: float
    high: float

    def text(self) -> str:
        if self.low == self.high == self.value:
            return f"{self.value:.3g}"
        return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"

    def scaled(self, factor: float) -> Interval:
        return Interval(self.value * factor, self.low * factor, self.high * factor)

    def distance(self, target: float) -> Interval:
        """``|x - target|`` over the interval."""
        ends = (abs(self.low - target), abs(self.high - target))
        low = 0.0 if self.low <= target <= self.high else min(ends)
        return Interval(abs(self.value - target), low, max(ends))


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
) -> list[Interval]:
    """The value of ``column`` in each row with its interval (``interval`` columns, or
    +- ``spread``, or a point)."""
    out = []
    for _, row in rows.iterrows():
        value = float(row[column])
        if interval:
            low, high = float(row[interval[0]]), float(row[interval[1]])
        elif spread:
            low, high = value - float(row[spread]), value + float(row[spread])
        else:
            low = high = value
        out.append(Interval(value, low, high))
    return out


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


def _threshold(group: pd.DataFrame, check: Mapping[str, Any]) -> Outcome:
    if len(group) != 1:
        raise ValueError(f"{len(group)} rows where one was expected:\n{group}")
    (x,) = intervals(group, check["column"], check.get("interval"), check.get("spread"))
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
    return Interval(*(float(np.mean([getattr(v, f) for v in values])) for f in _FIELDS))


def _compare(group: pd.DataFrame, check: Mapping[str, Any]) -> Outcome:
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
    ours = intervals(better, check["column"], check.get("interval"), check.get("spread"))
    theirs = intervals(
        others,
        check.get("than_column", check["column"]),
        check.get("than_interval", None if same_row else check.get("interval")),
        check.get("than_spread", None if same_row else check.get("spread")),
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


def _ratio(group: pd.DataFrame, check: Mapping[str, Any]) -> Outcome:
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


_CHECKS: dict[str, Callable[[pd.DataFrame, Mapping[str, Any]], Outcome]] = {
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
    if check.get("rows"):
        text += f" where {_filter_text(check['rows'])}"
    for_each = check.get("for_each")
    if for_each:
        text += f", each {', '.join([for_each] if isinstance(for_each, str) else for_each)}"
    return text


def check_table(table: pd.DataFrame, check: Mapping[str, Any]) -> Outcome:
    """The verdict of ``check`` over ``table`` (:data:`_CHECKS`), per group if
    ``for_each``.

    Raises
    ------
    KeyError, ValueError
        When the check names a column the table lacks, or a filter meant to pick one row
        picks several (the claim is wrong, not the run).
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
        outcome = _CHECKS[check["kind"]](group, check)
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


def evaluate_claim(
    claim: Mapping[str, Any],
    table: pd.DataFrame | None,
    *,
    study: str,
    preset: str,
    enabled: bool = True,
) -> dict[str, str]:
    """One row of :data:`CLAIMS_COLUMNS`.

    Parameters
    ----------
    claim : mapping
        ``{id, claim, source, presets?, check}`` as a study file holds it.
    table : pandas.DataFrame or None
        The table the check reads (None when it was not built).
    study, preset : str
        The study's name and the run's preset.
    enabled : bool
        Whether the study is enabled in this run.
    """
    check = claim["check"]
    row = {
        "study": study,
        "claim_id": claim["id"],
        "claim": claim["claim"],
        "source": claim["source"],
        "preset": preset,
        "expected": f"{check['table']}: {expected_text(check)}",
    }
    if not enabled:
        outcome = Outcome(NOT_RUN, reason="study not enabled")
    elif preset not in claim.get("presets", [preset]):
        outcome = Outcome(NOT_RUN, reason=f"meaningful at {', '.join(claim['presets'])} only")
    elif table is None:
        outcome = Outcome(NOT_RUN, reason=f"no table {check['table']}")
    else:
        try:
            outcome = check_table(table, check)
        except (KeyError, ValueError) as err:
            raise ValueError(f"study {study}, claim {claim['id']}: {err}") from err
    return {**row, **outcome.__dict__}


def evaluate_claims(
    studies: Mapping[str, Mapping[str, Any]],
    *,
    preset: str,
    read: Callable[[str], pd.DataFrame] = pd.read_csv,
) -> pd.DataFrame:
    """Every claim of every study with its verdict.

    Parameters
    ----------
    studies : mapping
        ``{study: {"enabled": bool, "claims": [...], "tables": {table: csv path}}}``
        (:meth:`pderepro.studies.Plan.claims_studies`).
    preset : str
        The run's preset.
    read : callable
        Reads a table's CSV (tests pass tables in memory).

    Returns
    -------
    pandas.DataFrame
        :data:`CLAIMS_COLUMNS`, one row per claim, in the studies' and files' order.
    """
    rows = []
    for study, spec in studies.items():
        for claim in spec["claims"]:
            path = spec["tables"].get(claim["check"]["table"])
            wanted = spec["enabled"] and preset in claim.get("presets", [preset])
            table = read(path) if wanted and path else None
            rows.append(
                evaluate_claim(claim, table, study=study, preset=preset, enabled=spec["enabled"])
            )
    return pd.DataFrame(rows, columns=CLAIMS_COLUMNS)


def claims_markdown(frame: pd.DataFrame, *, preset: str) -> str:
    """``results/claims.md``: the verdicts first, then the claims table."""
    counts = frame["verdict"].value_counts()
    tally = ", ".join(
        f"{counts[v]} {v}"
        for v in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN)
        if counts.get(v, 0)
    )
    shown = frame.drop(columns=["preset"]).fillna("")
    return (
        f"# Paper claims at preset {preset}\n\n{len(frame)} claims: {tally or 'none'}.\n\n"
        + (shown.to_markdown(index=False) if len(frame) else "")
        + "\n\nreproduced: the measured interval lies wholly on the claimed side; not "
        "reproduced: wholly on the other side; inconclusive: it straddles, or too few seeds; "
        "not run: the preset, the study or the table leaves the claim out (reason).\n"
    )
