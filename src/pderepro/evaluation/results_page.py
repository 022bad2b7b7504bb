"""``results/report/index.html``: every table and figure of a run on one self-contained page.

A reader opens it in any browser, without Python: tables are HTML tables with captions
(what was measured, under which preset and sizes, beside the published numbers' source
and conditions), figures are embedded PNGs, so the file travels alone and sits inside
``snakemake --report`` as one result.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from pderepro.data.provenance import git_commit

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th { background: #eee; } td:first-child, th:first-child { text-align: left; }
caption { caption-side: top; text-align: left; font-size: 0.95em; padding: 0.3em 0; }
figure { margin: 0 0 1.5em; } img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #555; }
"""


def _table_html(path: str | Path, caption: str, table_id: str) -> str:
    frame = pd.read_csv(path)
    body = frame.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}", border=0)
    body = body.replace("<table", f'<table id="{html.escape(table_id)}"', 1)
    return body.replace("<thead>", f"<caption>{html.escape(caption)}</caption>\n<thead>", 1)


def _figure_html(path: str | Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    name = Path(path).stem.replace("_", " ")
    return (
        f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(name)} ({html.escape(Path(path).name)})</figcaption></figure>"
    )


def render_results_page(
    *,
    preset: str,
    sections: Mapping[str, Mapping],
    validation_table: str | Path | None,
) -> str:
    """HTML of the results page.

    Parameters
    ----------
    preset : str
        Preset the results were made with.
    sections : mapping
        ``{study: {"title": str, "report_tables": [{"path", "caption"}], "figures":
        [png paths]}}`` in page order.
    validation_table : path, optional
        ``results/validation/solvers.csv``.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>pderepro results</title>',
        f"<style>{_STYLE}</style></head><body>",
        "<h1>pderepro results</h1>",
        f"<p>Preset <code>{html.escape(preset)}</code>, git commit "
        f"<code>{html.escape(git_commit())}</code>, written {now}. Published numbers appear "
        "only in the <code>published</code> column, from the paper named in each caption; "
        "every other number was measured by this run.</p>",
    ]
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
    for study, section in sections.items():
        parts.append(
            f'<section id="{html.escape(study)}"><h2>{html.escape(study)}: '
            f"{html.escape(section['title'])}</h2>"
        )
        for i, table in enumerate(section["report_tables"]):
            parts.append(_table_html(table["path"], table["caption"], f"table-{study}-{i}"))
        parts += [_figure_html(p) for p in section["figures"]]
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)
