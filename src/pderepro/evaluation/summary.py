"""``results/summary.md``: every table of every study, with how and where it was made."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from pderepro.data.provenance import git_commit


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


def render_summary(
    *,
    preset: str,
    studies: Mapping[str, dict],
    validation_table: str | Path | None,
    benchmark_files: Sequence[str | Path],
) -> str:
    """Markdown of the summary page.

    Parameters
    ----------
    preset : str
        Preset the results were made with.
    studies : mapping
        ``{study: {"title": str, "tables": [md paths], "metrics": [csv paths]}}``; the
        devices are read from the metrics files (a ``device`` column), so they name where
        training really ran; studies without such files get no device line.
    validation_table : path, optional
        ``results/validation/solvers.csv``.
    benchmark_files : sequence of path
        Every rule's benchmark file, for the wall times.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
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
    ]
    if validation_table is not None:
        table = pd.read_csv(validation_table)
        lines += [
            "## Solver verification",
            "",
            table.to_markdown(index=False, floatfmt=".3g", missingval=""),
            "",
        ]
    for study, info in studies.items():
        devices = sorted({d for f in info["metrics"] for d in pd.read_csv(f)["device"].dropna()})
        lines += [f"## {study}: {info['title']}", ""]
        if devices:
            lines += [f"Device(s): {', '.join(devices)}", ""]
        for table_path in info["tables"]:
            lines += [Path(table_path).read_text().rstrip(), ""]
    times = stage_times(benchmark_files)
    lines += [
        "## Wall time per stage",
        "",
        times.to_markdown(index=False, floatfmt=".1f") if len(times) else "(none)",
        "",
    ]
    return "\n".join(lines)
