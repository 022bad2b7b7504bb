"""``results/claims.csv`` for people: reading it, the columns a reader wants first, and
each study's rows, shared by the results page, ``results/summary.md`` and the README's
claims snapshot (the verdicts' tally and note are :mod:`pderepro.evaluation.claims`').

The CSV (:data:`pderepro.evaluation.claims.CLAIMS_COLUMNS`) keeps machine names and full
text for tools; here the verdict comes right after the claim, then what was measured and
what was expected, and the bookkeeping (source, reason) last.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from pderepro.evaluation.claims import CLAIMS_COLUMNS, verdict_text

#: Labelled columns of the claims table for people, from the CSV's columns.
PEOPLE_COLUMNS: Mapping[str, str] = {
    "study": "Study",
    "claim": "Claim",
    "verdict": "Verdict",
    "measured": "Measured [interval]",
    "expected": "Expected",
    "kind": "Kind",
    "budget": "Budget (ours vs paper)",
    "source": "Source",
    "reason": "Why",
}


def read_claims(path: str | Path) -> pd.DataFrame:
    """``results/claims.csv`` with empty cells as empty text (never NaN)."""
    frame = pd.read_csv(path, keep_default_na=False, dtype=str)
    missing = set(CLAIMS_COLUMNS) - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: no column(s) {sorted(missing)}")
    return frame


def claims_for_people(frame: pd.DataFrame, *, with_study: bool = True) -> pd.DataFrame:
    """The claims table with labelled columns, reader's columns first.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of ``results/claims.csv`` (:func:`read_claims`).
    with_study : bool
        Keep the study column (False inside a study's own section).

    Returns
    -------
    pandas.DataFrame
        :data:`PEOPLE_COLUMNS` (less ``Study`` without ``with_study``); the claim reads
        ``<claim id>: <claim>``, the verdict says when it was judged below the paper's
        budget (``reproduced at quick budget``).
    """
    shown = frame.assign(
        claim=frame["claim_id"] + ": " + frame["claim"],
        verdict=[
            verdict_text(v, level, preset)
            for v, level, preset in zip(
                frame["verdict"], frame["budget_level"], frame["preset"], strict=True
            )
        ],
    )
    columns = [c for c in PEOPLE_COLUMNS if with_study or c != "study"]
    return shown[columns].rename(columns=PEOPLE_COLUMNS).reset_index(drop=True)


def of_study(frame: pd.DataFrame, study: str) -> pd.DataFrame:
    """The rows of one study, in the file's order."""
    return frame[frame["study"] == study]
