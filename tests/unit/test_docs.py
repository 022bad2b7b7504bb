"""The documentation: every study file has a generated page whose generated part is what
the command writes, docs/references.md is what the command writes, the README is a front
page, and every path the README and docs/ cite exists."""

import re

import pytest

from pderepro.evaluation.claims_snapshot import read_snapshot
from pderepro.studies.pages import BEGIN, END, render_page, render_references
from tests.unit.test_config import ROOT

STUDIES = sorted(p.stem for p in (ROOT / "config" / "studies").glob("*.yaml"))
COMMAND = "`.venv/bin/python -m pderepro.studies.pages --results <the snapshot's run>/results`"


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_has_a_page_as_the_command_writes_it(study):
    page = ROOT / "docs" / "studies" / f"{study}.md"
    assert page.exists(), f"no {page.relative_to(ROOT)}: run {COMMAND}"
    text = page.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1, page
    snapshot = read_snapshot(ROOT / "docs" / "claims_snapshot.csv")
    want = render_page(study, ROOT, snapshot)
    assert text.split(END)[0] == want.split(END)[0], (
        f"{page.relative_to(ROOT)}'s generated part is stale: run {COMMAND}"
    )


def test_references_are_generated_from_the_study_files():
    assert (ROOT / "docs" / "references.md").read_text() == render_references(ROOT), (
        "docs/references.md is stale: run `python -m pderepro.studies.pages`"
    )


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    first_command = text.index(".venv/bin/snakemake --cores all")
    assert first_command < text.index("## Studies"), "the commands come before the studies"


#: Paths a document may cite that a clean checkout need not hold: run outputs, the
#: virtual environment, templates with placeholders.
_GENERATED = (
    "results/", "data/raw", "data/processed", ".venv", ".pderepro", "RUN", "<", "tables/",
    "figures/",
)  # fmt: skip
#: Where a shortened source path (``stages/x.py``) is looked for besides the root.
_PREFIXES = ("", "src/", "src/pderepro/")
_PATH = re.compile(r"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-<>{},*]+)+/?)`")
_LINK = re.compile(r"\]\(([^)#:]+)(?:#[^)]*)?\)")


def _documents():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("doc", _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_path_exists(doc):
    text = doc.read_text()
    missing = []
    for target in _LINK.findall(text):
        if not (doc.parent / target).exists():
            missing.append(target)
    for cited in _PATH.findall(text):
        if cited.startswith(_GENERATED) or any(c in cited for c in "<>{}*"):
            continue
        if not any((ROOT / prefix / cited).exists() for prefix in _PREFIXES):
            missing.append(cited)
    assert not missing, f"{doc.relative_to(ROOT)} cites paths that do not exist: {missing}"
