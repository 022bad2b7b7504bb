"""``results/report/index.html``: every claim, table and figure of a run on one page.

Results first: the page opens with the paper claims and their verdicts
(``results/claims.csv``) and a contents list per study; each study's section then gives
its claims, its tables (with captions: what was measured, under which preset and sizes,
beside the published numbers' source and conditions) and its figures (embedded PNGs);
the solver verification comes last. The file needs no Python and travels alone (it sits
inside ``snakemake --report`` as one result). It fits a laptop window: a wide table
scrolls inside its own box, never the page, and captions wrap.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from pderepro.data.provenance import git_commit
from pderepro.evaluation.claims import VERDICT_NOTE, study_budget, verdict_counts
from pderepro.evaluation.claims_view import claims_for_people, of_study, read_claims

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1280px;
  color: #222; line-height: 1.4; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.3em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; vertical-align: top; }
th { background: #eee; } td:first-child, th:first-child { text-align: left; }
table.claims th, table.claims td { text-align: left; min-width: 6em; overflow-wrap: break-word; }
table.claims td.claim { min-width: 18em; }
figure { margin: 0 0 1.5em; } img { max-width: 100%; height: auto; }
figcaption, .caption { font-size: 0.9em; color: #444; overflow-wrap: break-word; }
.verdict { font-weight: bold; white-space: nowrap; padding: 0 0.35em; border-radius: 0.3em; }
.verdict-reproduced { color: #116329; background: #dafbe1; }
.verdict-not-reproduced { color: #a40e26; background: #ffebe9; }
.verdict-inconclusive { color: #7d4e00; background: #fff8c5; }
.verdict-not-run { color: #57606a; background: #eaeef2; }
nav li { margin: 0.15em 0; }
"""


def _verdict_html(verdict: str) -> str:
    """The verdict as a coloured badge (its colour that of the verdict, "at quick budget"
    or not); the word itself is always there."""
    slug = "-".join(verdict.split(" at ")[0].split())
    return f'<span class="verdict verdict-{html.escape(slug)}">{html.escape(verdict)}</span>'


def _scroll_box(table: str, label: str) -> str:
    """A table inside its own horizontally scrolling box (keyboard-reachable)."""
    return (
        f'<div class="scroll" role="region" tabindex="0" aria-label="{html.escape(label)}">'
        f"{table}</div>"
    )


def _claims_html(frame: pd.DataFrame, table_id: str, *, links: Iterable[str] | None = None) -> str:
    """The claims table; with ``links`` (the studies on the page), a study column whose
    names link to their sections, else (inside a study's section) none."""
    linked = set(links or ())
    shown = claims_for_people(frame, with_study=links is not None)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    rows = []
    for _, row in shown.iterrows():
        cells = []
        for column, value in row.items():
            text = html.escape(str(value))
            if column == "Verdict":
                text = _verdict_html(str(value))
            elif column == "Study" and value in linked:
                text = f'<a href="#{text}">{text}</a>'
            css = ' class="claim"' if column == "Claim" else ""
            cells.append(f"<td{css}>{text}</td>")
        slug = "-".join(str(row["Verdict"]).split())
        rows.append(f'<tr class="row-{html.escape(slug)}">{"".join(cells)}</tr>')
    table = (
        f'<table id="{html.escape(table_id)}" class="claims"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    return _scroll_box(table, "claims") + f'<p class="caption">{html.escape(VERDICT_NOTE)}</p>'


def _table_html(path: str | Path, caption: str, table_id: str) -> str:
    """A CSV table with its caption above, the table in its own scrolling box."""
    frame = pd.read_csv(path)
    body = frame.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}", border=0)
    body = body.replace("<table", f'<table id="{html.escape(table_id)}"', 1)
    return (
        f'<figure class="table"><figcaption>{html.escape(caption)}</figcaption>'
        f"{_scroll_box(body, Path(path).stem)}</figure>"
    )


def _figure_html(path: str | Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    name = Path(path).stem.replace("_", " ")
    return (
        f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(name)} ({html.escape(Path(path).name)})</figcaption></figure>"
    )


def _contents_html(sections: Mapping[str, Mapping], claims: pd.DataFrame, validation: bool) -> str:
    """Contents: the claims, then per study its claims, tables and figures, then the
    solver verification."""
    items = ['<li><a href="#claims">Paper claims</a></li>']
    for study, section in sections.items():
        mine = of_study(claims, study)
        parts = [
            f'<li><a href="#claims-{html.escape(study)}">Claims</a>: '
            f"{html.escape(verdict_counts(mine))}</li>"
        ]
        parts += [
            f'<li><a href="#table-{html.escape(study)}-{i}">Table: '
            f"{html.escape(Path(table['path']).stem)}</a></li>"
            for i, table in enumerate(section["report_tables"])
        ]
        if section["figures"]:
            parts.append(
                f'<li><a href="#figures-{html.escape(study)}">Figures</a> '
                f"({len(section['figures'])})</li>"
            )
        items.append(
            f'<li><a href="#{html.escape(study)}">{html.escape(study)}: '
            f"{html.escape(section['title'])}</a><ul>{''.join(parts)}</ul></li>"
        )
    if validation:
        items.append('<li><a href="#validation">Solver verification</a></li>')
    head = '<nav id="contents" aria-label="Contents"><h2>Contents</h2>'
    return f"{head}<ol>{''.join(items)}</ol></nav>"


def _study_html(study: str, section: Mapping, claims: pd.DataFrame) -> list[str]:
    """A study's section: its claims, then its tables, then its figures."""
    name = html.escape(study)
    mine = of_study(claims, study)
    parts = [
        f'<section id="{name}"><h2>{name}: {html.escape(section["title"])}</h2>',
        f'<h3 id="claims-{name}">Claims ({html.escape(verdict_counts(mine))})</h3>',
        _claims_html(mine, f"table-claims-{study}")
        if len(mine)
        else "<p>This study's file states no claims.</p>",
    ]
    if section["report_tables"]:
        parts.append("<h3>Tables</h3>")
    budget = study_budget(mine)  # beside every published number the tables hold
    for i, table in enumerate(section["report_tables"]):
        caption = f"{table['caption']} {budget}".strip()
        parts.append(_table_html(table["path"], caption, f"table-{study}-{i}"))
    if section["figures"]:
        parts.append(f'<h3 id="figures-{name}">Figures</h3>')
    parts += [_figure_html(p) for p in section["figures"]]
    return [*parts, "</section>"]


def render_results_page(
    *,
    preset: str,
    sections: Mapping[str, Mapping],
    claims_table: str | Path,
    validation_table: str | Path | None,
) -> str:
    """HTML of the results page: claims, contents, each study, solver verification.

    Parameters
    ----------
    preset : str
        Preset the results were made with.
    sections : mapping
        ``{study: {"title": str, "report_tables": [{"path", "caption"}], "figures":
        [png paths]}}`` in page order.
    claims_table : path
        ``results/claims.csv`` (every claim of every study file, with its verdict).
    validation_table : path, optional
        ``results/validation/solvers.csv``.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    claims = read_claims(claims_table)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>pderepro results</title><style>{_STYLE}</style></head><body>",
        "<h1>pderepro results</h1>",
        f"<p>Preset <code>{html.escape(preset)}</code>, git commit "
        f"<code>{html.escape(git_commit())}</code>, written {now}. Published numbers appear "
        "only in the <code>published</code> column, from the paper named in each caption; "
        "every other number was measured by this run.</p>",
        '<section id="claims"><h2>Paper claims</h2>',
        f"<p>{len(claims)} claims of every study file at this preset: "
        f"{html.escape(verdict_counts(claims))}.</p>",
        _claims_html(claims, "table-claims", links=sections),
        "</section>",
        _contents_html(sections, claims, validation_table is not None),
    ]
    for study, section in sections.items():
        parts += _study_html(study, section, claims)
    if validation_table is not None:
        parts += [
            '<section id="validation"><h2>Solver verification</h2>',
            _table_html(
                validation_table,
                "Each solver against an exact or independent reference: error and observed "
                "order of convergence.",
                "table-validation",
            ),
            "</section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)
