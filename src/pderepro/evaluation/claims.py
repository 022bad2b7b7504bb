"""A paper's claims checked over a study's own tables: each claim's verdict, with what
was expected and what was measured, into ``results/claims.{csv,md}``.

Each claim's check runs over one table (:func:`pderepro.evaluation.claims_checks.check_table`,
which documents the check kinds, intervals, noise floors and the rules a comparison is
held to). A claim is ``not run`` at a preset it does not name, in a study that is not
enabled, or when its table or rows are absent (the reason says which). Every row says
whether the claim is the paper's or a sanity check of ours (``kind``), and the budget it
was judged at against the paper's (``budget``; ``budget_level`` ``reduced`` when below
it: such a verdict reads "reproduced at quick budget").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from pderepro.evaluation.claims_checks import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_RUN,
    REPRODUCED,
    Outcome,
    check_table,
)
from pderepro.evaluation.claims_expected import expected_text

#: Verdicts in the order a reader counts them.
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN)
#: The reason a claim of a study that is not enabled is ``not run``.
NOT_ENABLED = "study not enabled"
#: What the verdicts mean, printed under every claims table.
VERDICT_NOTE = (
    "reproduced: the measured interval lies wholly on the claimed side (for a comparison, "
    "the interval of the difference excludes zero at the claim's margin, and the beaten "
    "baseline itself beats the table's strongest no-learning row); not reproduced: wholly "
    "on the other side; inconclusive: it straddles (within noise), the baseline did not "
    "learn, too few seeds, or a timing without repeats; not run: the preset, the study or "
    "the table leaves the claim out (the reason says which). 'at <preset> budget': judged "
    "below the paper's budget (the budget column gives ours against the paper's); sanity: "
    "a check of our own pipeline, not a claim of the paper."
)
#: Columns of ``results/claims.csv``.
CLAIMS_COLUMNS = [
    "study",
    "claim_id",
    "claim",
    "source",
    "kind",
    "preset",
    "expected",
    "margin",
    "measured",
    "interval_low",
    "interval_high",
    "baseline_beats_reference",
    "verdict",
    "reason",
    "budget",
    "budget_level",
    "claims_digest",
]


def claims_digest(claims: Sequence[Mapping[str, Any]], budget: Mapping[str, Any] | None) -> str:
    """A short digest of a study's claims and budget as the config holds them: the
    snapshot records it, so that a test sees when a study file's claims changed after
    the run the snapshot came from."""
    text = json.dumps({"claims": list(claims), "budget": dict(budget or {})}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def budget_at(budget: Mapping[str, Any] | None, preset: str) -> tuple[str, str]:
    """The budget text at ``preset`` (``ours vs the paper's``) and its level: ``paper``
    when the preset runs the paper's budget, ``reduced`` when it runs less."""
    if not budget:
        return "", ""
    ours = budget.get("presets", {}).get(preset)
    if ours is None:
        return f"the paper's: {budget['published']}", "paper"
    return f"{ours} vs {budget['published']}", "reduced"


def evaluate_claim(
    claim: Mapping[str, Any],
    table: pd.DataFrame | None,
    *,
    study: str,
    preset: str,
    enabled: bool = True,
    budget: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
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
    budget : mapping, optional
        The study's ``budget`` (``published`` and ``presets``).
    """
    check = claim["check"]
    text, level = budget_at(budget, preset)
    row = {
        "study": study,
        "claim_id": claim["id"],
        "claim": claim["claim"],
        "source": claim["source"]
        + (f" (threshold: {claim['threshold_source']})" if "threshold_source" in claim else ""),
        "kind": claim["kind"],
        "preset": preset,
        "expected": f"{check['table']}: {expected_text(check)}",
        "margin": float(check.get("margin", 0.0)),
        "budget": text,
        "budget_level": level,
    }
    if not enabled:
        outcome = Outcome(NOT_RUN, reason=NOT_ENABLED)
    elif preset not in claim.get("presets", [preset]):
        outcome = Outcome(NOT_RUN, reason=f"meaningful at {', '.join(claim['presets'])} only")
    elif table is None:
        outcome = Outcome(NOT_RUN, reason=f"no table {check['table']}")
    else:
        try:
            outcome = check_table(table, check)
        except (KeyError, ValueError) as err:
            raise ValueError(f"study {study}, claim {claim['id']}: {err}") from err
    return {**row, **outcome.row(), "claims_digest": ""}


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
        digest = claims_digest(spec["claims"], spec.get("budget"))
        for claim in spec["claims"]:
            path = spec["tables"].get(claim["check"]["table"])
            wanted = spec["enabled"] and preset in claim.get("presets", [preset])
            table = read(path) if wanted and path else None
            rows.append(
                evaluate_claim(
                    claim,
                    table,
                    study=study,
                    preset=preset,
                    enabled=spec["enabled"],
                    budget=spec.get("budget"),
                )
                | {"claims_digest": digest}
            )
    return pd.DataFrame(rows, columns=CLAIMS_COLUMNS)


def study_budget(frame: pd.DataFrame) -> str:
    """The budget line of a study's claims rows (``Budget (ours vs the paper's): ...``),
    or "" when they state none: the same text for every caption beside its tables."""
    budgets = [b for b in frame.get("budget", pd.Series(dtype=str)).fillna("") if b]
    return f"Budget (ours vs the paper's): {budgets[0]}." if budgets else ""


def verdict_text(verdict: str, level: str, preset: str) -> str:
    """The verdict for people: ``reproduced at quick budget`` when judged below the
    paper's budget (a ``not run`` needs no budget)."""
    if level == "reduced" and verdict != NOT_RUN:
        return f"{verdict} at {preset} budget"
    return verdict


def _tally(frame: pd.DataFrame) -> str:
    counts = frame["verdict"].value_counts()
    reduced = frame[frame["budget_level"] == "reduced"]["verdict"].value_counts()
    parts = []
    for v in VERDICTS:
        if counts.get(v, 0):
            below = reduced.get(v, 0) if v != NOT_RUN else 0
            parts.append(f"{counts[v]} {v}" + (f" ({below} at reduced budget)" if below else ""))
    return ", ".join(parts)


def verdict_counts(frame: pd.DataFrame) -> str:
    """``"paper claims: 2 reproduced (1 at reduced budget), 1 not run; sanity checks: 1
    reproduced"`` (verdicts with no claim left out), or ``"no claims"``."""
    if frame.empty:
        return "no claims"
    parts = []
    for kind, label in (("paper", "paper claims"), ("sanity", "sanity checks")):
        mine = frame[frame["kind"] == kind]
        if len(mine):
            parts.append(f"{label}: {_tally(mine)}")
    return "; ".join(parts)


def claims_markdown(frame: pd.DataFrame, *, preset: str) -> str:
    """``results/claims.md``: the verdicts first, then the claims table."""
    shown = frame.assign(
        verdict=[
            verdict_text(v, level, preset)
            for v, level in zip(frame["verdict"], frame["budget_level"], strict=True)
        ]
    )
    shown = shown.drop(columns=["preset", "claims_digest"]).astype(object).fillna("")
    return (
        f"# Paper claims at preset {preset}\n\n{len(frame)} claims: {verdict_counts(frame)}.\n\n"
        + (shown.to_markdown(index=False) if len(frame) else "")
        + f"\n\n{VERDICT_NOTE}\n"
    )
