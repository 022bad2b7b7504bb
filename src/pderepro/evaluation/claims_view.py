"""``results/claims.csv`` for people: the columns a reader wants first, a tally of the
verdicts, and each study's rows, shared by the results page and ``results/summary.md``.

The CSV (:data:`pderepro.evaluation.claims.CLAIMS_COLUMNS`) keeps machine names and full
text for tools; here the verdict comes right after the claim, then what was measured and
what was expected, and the bookkeeping (source, reason) last.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from pderepro.evaluation.claims import CLAIMS_COLUMNS
from pderepro.evaluation.claims_checks import INCONCLUSIVE, NOT_REPRODUCED, NOT_RUN, REPRODUCED

#: Verdicts in the order a reader counts them.
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN)
#: Labelled columns of the claims table for people, from the CSV's columns.
PEOPLE_COLUMNS: Mapping[str, str] = {
    "study": "Study",
    "claim": "Claim",
    "verdict": "Verdict",
    "measured": "Measured [interval]",
    "expected": "Expected",
    "source": "Source",
    "reason": "Why",
}
#: What the verdicts mean, printed under every claims table.
VERDICT_NOTE = (
    "reproduced: the measured interval lies wholly on the claimed side; not reproduced: "
    "wholly on the other side; inconclusive: it straddles, or too few seeds; not run: the "
    "preset, the study or the table leaves the claim out (the reason says which)."
)


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
        ``<claim id>: <claim>``.
    """
    shown = frame.assign(claim=frame["claim_id"] + ": " + frame["claim"])
    columns = [c for c in PEOPLE_COLUMNS if with_study or c != "study"]
    return shown[columns].rename(columns=PEOPLE_COLUMNS).reset_index(drop=True)


def verdict_counts(frame: pd.DataFrame) -> str:
    """``"2 reproduced, 1 not run"`` (verdicts with no claim left out), or ``"no claims"``."""
    counts = frame["verdict"].value_counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if counts.get(v, 0)]
    return ", ".join(parts) or "no claims"


def of_study(frame: pd.DataFrame, study: str) -> pd.DataFrame:
    """The rows of one study, in the file's order."""
    return frame[frame["study"] == study]
