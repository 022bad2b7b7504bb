"""The README's claims block and the committed snapshot it is rendered from.

Usage, from the repository root, once one or more runs have finished (each leaves its
``results/claims.csv`` beside its ``results/summary.md``; give older runs first)::

    .venv/bin/python -m pderepro.evaluation.claims_snapshot results/claims.csv [RUN/claims.csv ...]

It writes ``docs/claims_snapshot.csv`` (``--snapshot``) and rewrites the block of
``README.md`` (``--readme``) between ``<!-- claims:begin -->`` and ``<!-- claims:end -->``.
Several runs may be given because studies may be built in separate runs: each study keeps
the rows of the last run given in which it was enabled (with ``--base
docs/claims_snapshot.csv``, studies no run rebuilt keep their recorded rows); a study
enabled in none keeps its ``not run`` rows with no run date or commit. The snapshot holds
the columns of
``results/claims.csv`` (:data:`~pderepro.evaluation.claims.CLAIMS_COLUMNS`) and, per row,
the ``run_date`` and ``git_commit`` of its run, read from that run's ``summary.md``; the
preset is the claims' own column. A header-only snapshot renders a block saying that no
quick run has been recorded yet.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pderepro.evaluation.claims import CLAIMS_COLUMNS, NOT_ENABLED
from pderepro.evaluation.claims_checks import NOT_RUN
from pderepro.evaluation.claims_view import read_claims

log = logging.getLogger(__name__)

#: Columns of ``docs/claims_snapshot.csv``: the claims' columns and the run's provenance.
SNAPSHOT_COLUMNS = [*CLAIMS_COLUMNS, "run_date", "git_commit"]
BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"
COMMAND = "python -m pderepro.evaluation.claims_snapshot"


def run_provenance(summary: str | Path) -> dict[str, str]:
    """A run's date and git commit, from the lines its ``results/summary.md`` opens with.

    Raises
    ------
    ValueError
        When ``summary`` lacks the ``- git commit:`` or ``- written:`` line.
    """
    text = Path(summary).read_text()
    commit = re.search(r"^- git commit: `([^`]*)`", text, re.MULTILINE)
    written = re.search(r"^- written: (\d{4}-\d{2}-\d{2})", text, re.MULTILINE)
    if not (commit and written):
        raise ValueError(f"{summary}: no '- git commit:' or '- written:' line")
    return {"run_date": written[1], "git_commit": commit[1]}


def merge_runs(
    runs: Sequence[tuple[pd.DataFrame, dict[str, str]]], base: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The snapshot: per study, the claims of the last run in which it was enabled.

    Parameters
    ----------
    runs : sequence of (pandas.DataFrame, dict)
        Each run's claims (:data:`CLAIMS_COLUMNS`) and provenance (``run_date``,
        ``git_commit``), oldest first.
    base : pandas.DataFrame, optional
        An earlier snapshot (:data:`SNAPSHOT_COLUMNS`): its studies keep their rows and
        provenance unless a run enables them (a study rerun alone updates only itself).

    Returns
    -------
    pandas.DataFrame
        :data:`SNAPSHOT_COLUMNS`, studies in the order they first appear; a study enabled
        in no run keeps its rows from the last run, with empty provenance.
    """
    chosen: dict[str, pd.DataFrame] = {}
    if base is not None:
        chosen.update({study: rows for study, rows in base.groupby("study", sort=False)})
    for claims, provenance in runs:
        for study, rows in claims.groupby("study", sort=False):
            enabled = not ((rows["verdict"] == NOT_RUN) & (rows["reason"] == NOT_ENABLED)).all()
            if enabled or study not in chosen or chosen[study]["run_date"].eq("").all():
                chosen[study] = rows.assign(
                    **(provenance if enabled else dict.fromkeys(provenance, ""))
                )
    if not chosen:
        return pd.DataFrame(columns=SNAPSHOT_COLUMNS)
    return pd.concat(chosen.values(), ignore_index=True)[SNAPSHOT_COLUMNS]


def read_snapshot(path: str | Path) -> pd.DataFrame:
    """``docs/claims_snapshot.csv`` with empty cells as empty text."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _commit(commit: str) -> str:
    return commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")


def render_block(snapshot: pd.DataFrame) -> str:
    """The README block, markers included: per study a line naming its run and a table
    of claim id, claim, preset, expected, measured and verdict (with its reason)."""
    lines = [
        BEGIN,
        f"<!-- generated from docs/claims_snapshot.csv by `{COMMAND}`; do not edit -->",
        "",
    ]
    if snapshot.empty:
        lines += ["No quick run has been recorded yet.", ""]
    missing = []
    for study, rows in snapshot.groupby("study", sort=False):
        first = rows.iloc[0]
        if not first["run_date"]:
            missing.append(f"`{study}`")
            continue
        lines += [
            f"**`{study}`** (run of {first['run_date']}, commit `{_commit(first['git_commit'])}`)",
            "",
            "| id | claim | preset | expected | measured | verdict |",
            "|---|---|---|---|---|---|",
        ]
        for row in rows.itertuples():
            verdict = f"{row.verdict}: {row.reason}" if row.reason else row.verdict
            cells = (row.claim_id, row.claim, row.preset, row.expected, row.measured, verdict)
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    if missing:
        lines += [f"Not in the recorded runs: {', '.join(missing)}.", ""]
    return "\n".join([*lines, END])


def readme_block(readme: str) -> str:
    """The block of ``readme`` between the markers, markers included.

    Raises
    ------
    ValueError
        Unless each marker appears once, the begin marker first.
    """
    if (
        readme.count(BEGIN) != 1
        or readme.count(END) != 1
        or readme.index(BEGIN) > readme.index(END)
    ):
        raise ValueError(f"README needs one {BEGIN} and, after it, one {END}")
    return readme[readme.index(BEGIN) : readme.index(END) + len(END)]


def main(argv: Sequence[str] | None = None) -> None:
    """Write the snapshot from finished runs and rewrite the README block from it."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument(
        "claims", nargs="+", type=Path, help="runs' results/claims.csv, oldest first"
    )
    parser.add_argument(
        "--snapshot",
        type=Path,
        default=Path("docs/claims_snapshot.csv"),
        help="snapshot to write (default: %(default)s)",
    )
    parser.add_argument(
        "--base",
        type=Path,
        help="an earlier snapshot whose studies the runs do not rebuild are kept",
    )
    parser.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="README whose claims block is rewritten (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    runs = []
    for path in args.claims:
        claims = read_claims(path)
        runs.append((claims, run_provenance(path.parent / "summary.md")))
        log.info("%s: %s", path, runs[-1][1])
    snapshot = merge_runs(runs, read_snapshot(args.base) if args.base else None)
    args.snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.to_csv(args.snapshot, index=False)
    readme = args.readme.read_text()
    args.readme.write_text(readme.replace(readme_block(readme), render_block(snapshot)))
    log.info("wrote %s (%d claims) and the block of %s", args.snapshot, len(snapshot), args.readme)


if __name__ == "__main__":
    main()
