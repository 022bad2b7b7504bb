"""The README's claims block and the committed snapshot it is rendered from.

Usage, from the repository root, once a run has finished (it leaves its
``results/claims.csv`` beside its ``results/summary.md``)::

    .venv/bin/python -m pderepro.evaluation.claims_snapshot results/claims.csv

It writes ``docs/claims_snapshot.csv`` (``--snapshot``) and rewrites the block of
``README.md`` (``--readme``) between ``<!-- claims:begin -->`` and ``<!-- claims:end -->``,
both from that one run: its claims (:data:`~pderepro.evaluation.claims.CLAIMS_COLUMNS`)
and, on every row, the ``run_date`` and ``git_commit`` read from its ``summary.md``. A run
builds every study it enables at one commit; a study it does not enable keeps ``not
run`` rows. Each row carries its study's ``claims_digest`` (the claims and budget of the
study file at that run), so a test can tell when a study file's claims changed after the
snapshot. A header-only snapshot renders a block saying that no run has been recorded.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pderepro.evaluation.claims import CLAIMS_COLUMNS, VERDICTS
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


def snapshot_of(claims: pd.DataFrame, provenance: dict[str, str]) -> pd.DataFrame:
    """The snapshot of one run: its claims with its date and commit on every row."""
    return claims.assign(**provenance)[SNAPSHOT_COLUMNS]


def replace_studies(old: pd.DataFrame, new: pd.DataFrame, studies: Sequence[str]) -> pd.DataFrame:
    """``old`` with the rows of ``studies`` taken from ``new`` (a later run of just those
    studies), each row keeping its own run's date and commit; studies in the order of
    ``old``, new ones last."""
    missing = sorted(set(studies) - set(new["study"]))
    if missing:
        raise ValueError(f"the run has no claims of {missing}")
    fresh = new[new["study"].isin(studies)].astype(str)
    kept = old[~old["study"].isin(studies)]
    order = list(dict.fromkeys([*old["study"], *fresh["study"]]))
    merged = pd.concat([kept, fresh], ignore_index=True)
    rank = {study: i for i, study in enumerate(order)}
    return merged.sort_values("study", key=lambda c: c.map(rank), kind="stable").reset_index(
        drop=True
    )


def read_snapshot(path: str | Path) -> pd.DataFrame:
    """``docs/claims_snapshot.csv`` with empty cells as empty text."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _commit(commit: str) -> str:
    return commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")


def _count(rows: pd.DataFrame, verdict: str) -> str:
    """``3 (1 reduced)``: claims with this verdict, those judged below the paper's budget
    in brackets; empty for none."""
    mine = rows[rows["verdict"] == verdict]
    if mine.empty:
        return ""
    reduced = int((mine["budget_level"] == "reduced").sum()) if verdict != NOT_RUN else 0
    return f"{len(mine)}" + (f" ({reduced} reduced)" if reduced else "")


def summary_table(snapshot: pd.DataFrame) -> list[str]:
    """Per study, the paper claims by verdict (those judged at a reduced budget in
    brackets) and the sanity checks apart, then the totals."""
    header = ["study", *VERDICTS, "sanity checks"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    groups = [*snapshot.groupby("study", sort=False), ("**all**", snapshot)]
    for study, rows in groups:
        paper, sanity = rows[rows["kind"] == "paper"], rows[rows["kind"] == "sanity"]
        checks = (
            f"{(sanity['verdict'] == 'reproduced').sum()} of {len(sanity)} pass"
            if len(sanity)
            else ""
        )
        name = study if study.startswith("**") else f"[`{study}`](docs/studies/{study}.md)"
        cells = [name, *(_count(paper, v) for v in VERDICTS), checks]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def render_block(snapshot: pd.DataFrame) -> str:
    """The README block, markers included: the run it comes from and, per study (linked to
    its page, ``docs/studies/<study>.md``, which lists each claim), its paper claims by
    verdict and its sanity checks."""
    lines = [
        BEGIN,
        f"<!-- generated from docs/claims_snapshot.csv by `{COMMAND}`; do not edit -->",
        "",
    ]
    if snapshot.empty:
        return "\n".join([*lines, "No run has been recorded yet.", "", END])
    first = snapshot.iloc[0]
    runs = snapshot.drop_duplicates("git_commit")
    source = (
        f"From one run at preset `{first['preset']}` of {first['run_date']}, commit "
        f"`{_commit(first['git_commit'])}`"
        if len(runs) == 1
        else f"From runs at preset `{first['preset']}` ("
        + "; ".join(
            f"{', '.join(dict.fromkeys(snapshot.loc[snapshot['git_commit'] == c, 'study']))}: "
            f"{d}, commit `{_commit(c)}`"
            for c, d in zip(runs["git_commit"], runs["run_date"], strict=True)
        )
        + ")"
    )
    lines += [
        f'{source}: the papers\' claims by verdict, "(n reduced)" '
        "those judged below the paper's budget, and our own sanity checks apart. Each "
        "study's page lists its claims with what was measured.",
        "",
        *summary_table(snapshot),
        "",
    ]
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
    """Write the snapshot from one finished run and rewrite the README block from it."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("claims", type=Path, help="the run's results/claims.csv")
    parser.add_argument(
        "--snapshot",
        type=Path,
        default=Path("docs/claims_snapshot.csv"),
        help="snapshot to write (default: %(default)s)",
    )
    parser.add_argument(
        "--only",
        help="comma-separated studies: replace only their rows of the existing snapshot "
        "with this run's (a rerun of those studies); the others keep their run",
    )
    parser.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="README whose claims block is rewritten (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    provenance = run_provenance(args.claims.parent / "summary.md")
    snapshot = snapshot_of(read_claims(args.claims), provenance)
    if args.only:
        snapshot = replace_studies(read_snapshot(args.snapshot), snapshot, args.only.split(","))
    args.snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.to_csv(args.snapshot, index=False)
    readme = args.readme.read_text()
    args.readme.write_text(readme.replace(readme_block(readme), render_block(snapshot)))
    log.info(
        "wrote %s (%d claims, commit %s) and the block of %s",
        args.snapshot, len(snapshot), provenance["git_commit"], args.readme,
    )  # fmt: skip


if __name__ == "__main__":
    main()
