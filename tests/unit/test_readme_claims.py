"""The README's claims block: it equals the block rendered from the committed snapshot,
and the snapshot keeps each study's rows from the run that built it."""

import pandas as pd
import pytest

from pderepro.evaluation.claims import CLAIMS_COLUMNS
from pderepro.evaluation.claims_snapshot import (
    BEGIN,
    END,
    SNAPSHOT_COLUMNS,
    main,
    read_snapshot,
    readme_block,
    render_block,
)
from tests.unit.test_config import ROOT


def test_readme_block_is_rendered_from_the_snapshot():
    snapshot = read_snapshot(ROOT / "docs" / "claims_snapshot.csv")
    assert list(snapshot.columns) == SNAPSHOT_COLUMNS
    readme = (ROOT / "README.md").read_text()
    assert readme_block(readme) == render_block(snapshot), (
        "README's claims block and docs/claims_snapshot.csv disagree: rerun "
        "`python -m pderepro.evaluation.claims_snapshot` on the runs' results/claims.csv"
    )


def test_empty_snapshot_says_no_run_is_recorded():
    block = render_block(pd.DataFrame(columns=SNAPSHOT_COLUMNS))
    assert block.startswith(BEGIN) and block.endswith(END)
    assert "No quick run has been recorded yet." in block


def _run(root, name, enabled, *, date, commit):
    """A finished run's ``results/claims.csv`` and ``summary.md`` under ``root/name``:
    studies ``a`` and ``b``, one claim each, the studies in ``enabled`` measured."""
    rows = []
    for study in ("a", "b"):
        on = study in enabled
        rows.append(
            {"study": study, "claim_id": f"{study}1", "claim": f"{study} | wins", "source": "T1",
             "preset": "quick", "expected": "t: x below 1",
             "measured": f"{name} 0.5" if on else "",
             "verdict": "reproduced" if on else "not run",
             "reason": "" if on else "study not enabled"}
        )  # fmt: skip
    results = root / name / "results"
    results.mkdir(parents=True)
    pd.DataFrame(rows, columns=CLAIMS_COLUMNS).to_csv(results / "claims.csv", index=False)
    (results / "summary.md").write_text(
        f"# pderepro results summary\n\n- preset: `quick`\n- git commit: `{commit}`\n"
        f"- written: {date} 10:00 UTC\n"
    )
    return results / "claims.csv"


def test_snapshot_keeps_each_study_from_the_run_that_built_it(tmp_path):
    first = _run(tmp_path, "r1", {"a"}, date="2026-01-01", commit="1" * 40)
    second = _run(tmp_path, "r2", {"b"}, date="2026-01-02", commit="2" * 40 + "-dirty")
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{BEGIN}\nold\n{END}\n\nprose kept\n")
    snapshot_path = tmp_path / "docs" / "claims_snapshot.csv"
    main([str(first), str(second), "--snapshot", str(snapshot_path), "--readme", str(readme)])

    snapshot = read_snapshot(snapshot_path)
    assert list(snapshot.columns) == SNAPSHOT_COLUMNS
    got = snapshot.set_index("study")[["measured", "run_date", "git_commit"]].to_dict("index")
    assert got == {
        "a": {"measured": "r1 0.5", "run_date": "2026-01-01", "git_commit": "1" * 40},
        "b": {"measured": "r2 0.5", "run_date": "2026-01-02", "git_commit": "2" * 40 + "-dirty"},
    }
    text = readme.read_text()
    assert text.startswith("intro\n\n") and text.endswith("\n\nprose kept\n")
    assert readme_block(text) == render_block(snapshot)
    assert "**`b`** (run of 2026-01-02, commit `2222222222-dirty`)" in text
    assert "| b1 | b \\| wins | quick | t: x below 1 | r2 0.5 | reproduced |" in text

    # a later run of `a` replaces it; `b`, enabled in no run given, is listed as missing
    third = _run(tmp_path, "r3", {"a"}, date="2026-01-03", commit="3" * 40)
    main([str(first), str(third), "--snapshot", str(snapshot_path), "--readme", str(readme)])
    snapshot = read_snapshot(snapshot_path)
    assert snapshot.set_index("study")["measured"].to_dict() == {"a": "r3 0.5", "b": ""}
    assert "Not in the recorded runs: `b`." in readme.read_text()

    # with the earlier snapshot as the base, `b` keeps its recorded rows while `a` is rerun
    base = tmp_path / "base.csv"
    main([str(first), str(second), "--snapshot", str(base), "--readme", str(readme)])
    main([str(third), "--base", str(base), "--snapshot", str(snapshot_path),
          "--readme", str(readme)])  # fmt: skip
    snapshot = read_snapshot(snapshot_path)
    got = snapshot.set_index("study")[["measured", "run_date"]].to_dict("index")
    assert got == {"a": {"measured": "r3 0.5", "run_date": "2026-01-03"},
                   "b": {"measured": "r2 0.5", "run_date": "2026-01-02"}}  # fmt: skip


def test_readme_without_markers_is_refused():
    with pytest.raises(ValueError, match="claims:begin"):
        readme_block(f"no block here {END}")
