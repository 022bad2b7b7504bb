"""Stage of rule ``claims``: every study's paper claims checked over its tables."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pderepro.data.io import atomic_write
from pderepro.evaluation.claims import claims_markdown, evaluate_claims

log = logging.getLogger(__name__)


def run_claims(
    *, studies: Mapping[str, Mapping[str, Any]], preset: str, csv: str, markdown: str
) -> None:
    """Write ``results/claims.csv`` (full text, for tools) and ``results/claims.md``.

    Parameters
    ----------
    studies : mapping
        ``{study: {"enabled", "claims", "tables"}}``
        (:meth:`pderepro.studies.Plan.claims_studies`).
    preset : str
        The run's preset.
    csv, markdown : str
        Output paths.
    """
    frame = evaluate_claims(studies, preset=preset)
    for row in frame.itertuples():
        log.info(
            "%s %s: %s (%s) %s", row.study, row.claim_id, row.verdict, row.measured, row.reason
        )
    atomic_write(csv, lambda tmp: frame.to_csv(tmp, index=False))
    text = claims_markdown(frame, preset=preset)
    atomic_write(markdown, lambda tmp: Path(tmp).write_text(text))
