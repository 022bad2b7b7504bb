"""``results/summary.md``: results first (every paper claim with its verdict, a contents
list), then every table of every study, with how and where it was made; the solver
verification last."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from pderepro.data.provenance import git_commit
from pderepro.evaluation.claims import VERDICT_NOTE, study_budget, verdict_counts
from pderepro.evaluation.claims_view import claims_for_people, of_study, read_claims


def stage_times(benchmark_files: Sequence[str | Path]) -> pd.DataFrame:
    """Wall time per stage from Snakemake benchmark files ``.../benchmarks/<rule>/...tsv``.

    Returns
    -------
    pandas.DataFrame
        ``stage, jobs, total_s, max_s`` sorted by stage; the stage is the rule name.
    """
    rows = []
    for path in benchmark_files:
        parts = Path(path).parts
        stage = parts[parts.index("benchmarks") + 1]
        seconds = pd.read_csv(path, sep="\t")["s"].astype(float)
        rows.append({"stage": stage, "s": seconds.mean()})
    if not rows:
        return pd.DataFrame(columns=["stage", "jobs", "total_s", "max_s"])
    frame = pd.DataFrame(rows).groupby("stage")["s"]
    return pd.DataFrame(
        {"jobs": frame.count(), "total_s": frame.sum(), "max_s": frame.max()}
    ).reset_index()


def _anchor(heading: str) -> str:
    """The anchor GitHub and most Markdown viewers give a heading (``#fno_burgers-...``)."""
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return "#" + kept.replace(" ", "-")


def _claims_markdown(frame: pd.DataFrame, *, with_study: bool) -> str:
    """A claims table with the verdict in bold (``|`` in cells escaped)."""
    shown = claims_for_people(frame, with_study=with_study)
    shown["Verdict"] = "**" + shown["Verdict"] + "**"
    shown = shown.map(lambda cell: str(cell).replace("|", "\\|"))
    return shown.to_markdown(index=False)


def render_summary(
    *,
    preset: str,
    studies: Mapping[str, dict],
    claims_table: str | Path,
    validation_table: str | Path | None,
    benchmark_files: Sequence[str | Path],
) -> str:
    """Markdown of the summary page: the claims, contents, each study (its claims, then
    its tables), the wall times, and the solver verification last.

    Parameters
    ----------
    preset : str
        Preset the results were made with.
    studies : mapping
        ``{study: {"title": str, "tables": [md paths], "metrics": [csv paths]}}``; the
        devices are read from the metrics files (a ``device`` column), so they name where
        training really ran; studies without such files get no device line.
    claims_table : path
        ``results/claims.csv`` (every claim of every study file, with its verdict).
    validation_table : path, optional
        ``results/validation/solvers.csv``.
    benchmark_files : sequence of path
        Every rule's benchmark file, for the wall times.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    claims = read_claims(claims_table)
    headings = {study: f"{study}: {info['title']}" for study, info in studies.items()}
    lines = [
        "# pderepro results summary",
        "",
        f"- preset: `{preset}`",
        f"- git commit: `{git_commit()}`",
        f"- written: {now}",
        "",
        "Published numbers appear only in the `published` column, taken from the papers "
        "(see each table's caption). Every other number was measured by this run.",
        "",
        "## Paper claims",
        "",
        f"{len(claims)} claims of every study file at this preset: {verdict_counts(claims)}.",
        "",
        _claims_markdown(claims, with_study=True),
        "",
        VERDICT_NOTE,
        "",
        "## Contents",
        "",
        *(
            f"- [{heading}]({_anchor(heading)}): claims {verdict_counts(of_study(claims, s))}; "
            f"{len(studies[s]['tables'])} table(s)"
            for s, heading in headings.items()
        ),
        "- [Wall time per stage](#wall-time-per-stage)",
        *(["- [Solver verification](#solver-verification)"] if validation_table else []),
        "",
    ]
    for study, info in studies.items():
        devices = sorted({d for f in info["metrics"] for d in pd.read_csv(f)["device"].dropna()})
        mine = of_study(claims, study)
        lines += [f"## {headings[study]}", ""]
        if study_budget(mine):  # what the tables' published numbers are set against
            lines += [study_budget(mine), ""]
        if devices:
            lines += [f"Device(s): {', '.join(devices)}", ""]
        lines += [f"### Claims ({verdict_counts(mine)})", ""]
        lines += [_claims_markdown(mine, with_study=False) if len(mine) else "(none stated)", ""]
        if info["tables"]:
            lines += ["### Tables", ""]
        for table_path in info["tables"]:
            lines += [Path(table_path).read_text().rstrip(), ""]
    times = stage_times(benchmark_files)
    lines += [
        "## Wall time per stage",
        "",
        times.to_markdown(index=False, floatfmt=".1f") if len(times) else "(none)",
        "",
    ]
    if validation_table is not None:
        table = pd.read_csv(validation_table)
        lines += [
            "## Solver verification",
            "",
            table.to_markdown(index=False, floatfmt=".3g", missingval=""),
            "",
        ]
    return "\n".join(lines)
