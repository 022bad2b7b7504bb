"""A paper's claims checked over a study's own tables: each claim's verdict, with what
was expected and what was measured, into ``results/claims.{csv,md}``.

Each claim's check runs over one table (:func:`pderepro.evaluation.claims_checks.check_table`,
which documents the check kinds, intervals and noise floors). A claim is ``not run`` at a
preset it does not name, in a study that is not enabled, or when its table or rows are
absent (the reason says which).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from pderepro.evaluation.claims_checks import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_RUN,
    REPRODUCED,
    Outcome,
    check_table,
    expected_text,
)

#: Verdicts in the order a reader counts them.
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_RUN)
#: The reason a claim of a study that is not enabled is ``not run``.
NOT_ENABLED = "study not enabled"
#: What the verdicts mean, printed under every claims table.
VERDICT_NOTE = (
    "reproduced: the measured interval lies wholly on the claimed side; not reproduced: "
    "wholly on the other side; inconclusive: it straddles, or too few seeds; not run: the "
    "preset, the study or the table leaves the claim out (the reason says which)."
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


def verdict_counts(frame: pd.DataFrame) -> str:
    """``"2 reproduced, 1 not run"`` (verdicts with no claim left out), or ``"no claims"``."""
    counts = frame["verdict"].value_counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if counts.get(v, 0)]
    return ", ".join(parts) or "no claims"


def claims_markdown(frame: pd.DataFrame, *, preset: str) -> str:
    """``results/claims.md``: the verdicts first, then the claims table."""
    shown = frame.drop(columns=["preset"]).fillna("")
    return (
        f"# Paper claims at preset {preset}\n\n{len(frame)} claims: {verdict_counts(frame)}.\n\n"
        + (shown.to_markdown(index=False) if len(frame) else "")
        + f"\n\n{VERDICT_NOTE}\n"
    )
