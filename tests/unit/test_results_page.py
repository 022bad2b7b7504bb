"""Results first: the results page and the summary open with the claims table and a
contents list; each study's section gives its claims, then tables, then figures; the
solver verification comes last. Rendered from small synthetic files, without a browser."""

import re

import pandas as pd
import pytest

from pderepro.evaluation.claims import CLAIMS_COLUMNS
from pderepro.evaluation.results_page import render_results_page
from pderepro.evaluation.summary import render_summary

CLAIMS = [
    ("alpha", "a_best", "A beats B.", "reproduced"),
    ("alpha", "a_flat", "A is flat.", "not reproduced"),
    ("beta", "b_close", "|b - 1| is small.", "inconclusive"),
    ("gamma", "g_off", "Not enabled here.", "not run"),
]


@pytest.fixture
def run(tmp_path):
    """Claims, two studies' tables (CSV and Markdown) and figures, and a validation table:
    the arguments both renderers take (preset, claims and validation tables), and each
    renderer's studies."""
    claims = pd.DataFrame(
        [
            {"study": s, "claim_id": i, "claim": c, "source": "Paper, table 1",
             "preset": "smoke", "expected": "t: x < 1", "measured": "0.5 [0.4, 0.6]",
             "verdict": v, "reason": "" if v != "not run" else "study not enabled",
             "kind": "paper", "budget": "N 8 vs N 1000", "budget_level": "reduced"}
            for s, i, c, v in CLAIMS
        ],
        columns=CLAIMS_COLUMNS,
    )  # fmt: skip
    claims.to_csv(tmp_path / "claims.csv", index=False)
    sections, studies = {}, {}
    for study in ("alpha", "beta"):
        table = pd.DataFrame({"model": ["A", "B"], "error": [0.1, 0.2], "wide_" * 30: [1, 2]})
        table.to_csv(tmp_path / f"{study}.csv", index=False)
        (tmp_path / f"{study}.md").write_text(f"Table of {study}\n\n{table.to_markdown()}\n")
        (tmp_path / f"{study}.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
        sections[study] = {
            "title": f"{study} paper",
            "report_tables": [{"path": str(tmp_path / f"{study}.csv"), "caption": "long " * 80}],
            "figures": [str(tmp_path / f"{study}.png")],
        }
        studies[study] = {"title": f"{study} paper", "tables": [str(tmp_path / f"{study}.md")],
                          "metrics": []}  # fmt: skip
    pd.DataFrame({"solver": ["s"], "max_abs_error": [1e-9]}).to_csv(
        tmp_path / "solvers.csv", index=False
    )
    tables = {"claims_table": tmp_path / "claims.csv", "validation_table": tmp_path / "solvers.csv"}
    return {"preset": "smoke", **tables}, sections, studies


def _order(text, markers):
    """Positions of ``markers`` in ``text`` (each must be there)."""
    positions = [text.find(m) for m in markers]
    assert -1 not in positions, [m for m, p in zip(markers, positions, strict=True) if p < 0]
    return positions


def test_results_page_opens_with_the_claims_and_ends_with_the_verification(run):
    common, sections, _ = run
    page = render_results_page(sections=sections, **common)
    order = _order(
        page,
        [
            '<section id="claims">',
            'id="table-claims"',
            '<nav id="contents"',
            '<section id="alpha">',
            'id="table-claims-alpha"',
            'id="table-alpha-0"',
            "<img",
            '<section id="beta">',
            '<section id="validation">',
        ],
    )
    assert order == sorted(order)
    assert page.count("<section") == 4  # claims, two studies, verification
    # every claim of every study file on top, each study's own rows in its section
    top = page[order[0] : order[2]]
    assert all(claim_id in top for _, claim_id, _, _ in CLAIMS)
    alpha = page[order[3] : order[7]]
    assert "a_best" in alpha and "a_flat" in alpha and "b_close" not in alpha
    # verdicts are coloured badges that keep the word
    assert (
        '<span class="verdict verdict-not-reproduced">not reproduced at smoke budget</span>' in page
    )
    assert '<span class="verdict verdict-not-run">not run</span>' in page
    assert '<a href="#alpha">alpha</a>' in top and '<a href="#gamma">' not in page
    # every table scrolls inside its own box; the page itself never does
    assert "overflow-x: auto" in page
    tables = re.findall(r"(.{0,120})<table", page)
    assert len(tables) == 6 and all('class="scroll"' in before for before in tables)
    contents = page[order[2] : order[3]]
    assert contents.index("#alpha") < contents.index("#beta") < contents.index("#validation")


def test_summary_opens_with_the_claims_and_ends_with_the_verification(run):
    common, _, studies = run
    text = render_summary(studies=studies, benchmark_files=[], **common)
    order = _order(
        text,
        [
            "## Paper claims",
            "## Contents",
            "## alpha: alpha paper",
            "### Claims (paper claims: 1 reproduced (1 at reduced budget), 1 not reproduced "
            "(1 at reduced budget))",
            "Table of alpha",
            "## beta: alpha paper".replace("alpha", "beta"),
            "## Wall time per stage",
            "## Solver verification",
        ],
    )
    assert order == sorted(order)
    head = text[order[0] : order[1]]
    assert "4 claims" in head and "**inconclusive at smoke budget**" in head and "g_off" in head
    assert "\\|b - 1\\|" in head  # a pipe in a cell does not split the Markdown table
    assert "- [alpha: alpha paper](#alpha-alpha-paper)" in text
    assert "b_close" not in text[order[2] : order[5]]
