"""The README's claims block: it equals the block rendered from the committed snapshot,
the snapshot comes from one run at one commit, and the study files' claims are still
those that run checked."""

import pandas as pd
import pytest

from pderepro.evaluation.claims import CLAIMS_COLUMNS, claims_digest
from pderepro.evaluation.claims_snapshot import (
    BEGIN,
    END,
    SNAPSHOT_COLUMNS,
    main,
    read_snapshot,
    readme_block,
    render_block,
)
from pderepro.studies import repository_plan
from tests.unit.test_config import ROOT

SNAPSHOT = ROOT / "docs" / "claims_snapshot.csv"


def test_readme_block_is_rendered_from_the_snapshot():
    snapshot = read_snapshot(SNAPSHOT)
    assert list(snapshot.columns) == SNAPSHOT_COLUMNS
    readme = (ROOT / "README.md").read_text()
    assert readme_block(readme) == render_block(snapshot), (
        "README's claims block and docs/claims_snapshot.csv disagree: rerun "
        "`python -m pderepro.evaluation.claims_snapshot results/claims.csv`"
    )


def test_each_study_of_the_snapshot_comes_from_one_run():
    """One preset for all; each study's rows from one run at one commit (a study rerun on
    its own replaces all its rows: claims_snapshot --only)."""
    snapshot = read_snapshot(SNAPSHOT)
    assert not snapshot.empty, "no run recorded in docs/claims_snapshot.csv"
    assert snapshot["preset"].nunique() == 1
    runs = snapshot.groupby("study")[["git_commit", "run_date"]].nunique()
    assert (runs == 1).all().all(), runs[(runs > 1).any(axis=1)]


def test_the_study_files_claims_are_those_the_snapshot_checked():
    snapshot = read_snapshot(SNAPSHOT)
    plan = repository_plan(ROOT, snapshot["preset"].iloc[0])
    studies = plan.claims_studies()
    assert set(snapshot["study"]) == set(studies), "studies added or removed since the snapshot"
    for study, rows in snapshot.groupby("study"):
        now = claims_digest(studies[study]["claims"], studies[study]["budget"])
        assert set(rows["claims_digest"]) == {now}, (
            f"{study}: its claims or budget changed after the snapshot's run (commit "
            f"{rows['git_commit'].iloc[0][:10]}): rerun the study and regenerate "
            "docs/claims_snapshot.csv from that run"
        )


def test_empty_snapshot_says_no_run_is_recorded():
    block = render_block(pd.DataFrame(columns=SNAPSHOT_COLUMNS))
    assert block.startswith(BEGIN) and block.endswith(END)
    assert "No run has been recorded yet." in block


def _run(root, *, date, commit):
    """A finished run's ``results/claims.csv`` and ``summary.md`` under ``root``: study
    ``a`` measured (a paper claim at reduced budget, a sanity check), ``b`` not enabled."""
    base = {
        "source": "T1",
        "preset": "quick",
        "expected": "t: x below 1",
        "margin": 0.0,
        "claims_digest": "d",
        "budget": "N 32 vs N 1000",
        "budget_level": "reduced",
    }
    rows = [
        {**base, "study": "a", "claim_id": "a1", "kind": "paper", "claim": "a | wins",
         "measured": "0.5", "verdict": "reproduced", "reason": ""},
        {**base, "study": "a", "claim_id": "a2", "kind": "sanity", "claim": "a holds",
         "measured": "0", "verdict": "reproduced", "reason": ""},
        {**base, "study": "b", "claim_id": "b1", "kind": "paper", "claim": "b wins",
         "measured": "", "verdict": "not run", "reason": "study not enabled"},
    ]  # fmt: skip
    root.mkdir(parents=True)
    pd.DataFrame(rows, columns=CLAIMS_COLUMNS).to_csv(root / "claims.csv", index=False)
    (root / "summary.md").write_text(
        f"# pderepro results summary\n\n- preset: `quick`\n- git commit: `{commit}`\n"
        f"- written: {date} 10:00 UTC\n"
    )
    return root / "claims.csv"


def test_one_command_writes_the_snapshot_and_the_block_from_one_run(tmp_path):
    claims = _run(tmp_path / "results", date="2026-01-02", commit="2" * 40 + "-dirty")
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{BEGIN}\nold\n{END}\n\nprose kept\n")
    snapshot_path = tmp_path / "docs" / "claims_snapshot.csv"
    main([str(claims), "--snapshot", str(snapshot_path), "--readme", str(readme)])

    snapshot = read_snapshot(snapshot_path)
    assert list(snapshot.columns) == SNAPSHOT_COLUMNS
    assert set(snapshot["git_commit"]) == {"2" * 40 + "-dirty"}
    text = readme.read_text()
    assert text.startswith("intro\n\n") and text.endswith("\n\nprose kept\n")
    assert readme_block(text) == render_block(snapshot)
    assert "of 2026-01-02, commit `2222222222-dirty`" in text
    assert "| [`a`](docs/studies/a.md) | 1 (1 reduced) |  |  |  | 1 of 1 pass |" in text
    assert "| [`b`](docs/studies/b.md) |  |  |  | 1 |  |" in text
    assert "| **all** | 1 (1 reduced) |  |  | 1 | 1 of 1 pass |" in text


def test_readme_without_markers_is_refused():
    with pytest.raises(ValueError, match="claims:begin"):
        readme_block(f"no block here {END}")


def test_a_rerun_of_one_study_replaces_only_its_rows():
    from pderepro.evaluation.claims_snapshot import render_block, replace_studies

    old = read_snapshot(SNAPSHOT)
    studies = list(dict.fromkeys(old["study"]))
    rerun = old[old["study"] == studies[0]].assign(git_commit="f" * 40, run_date="2099-01-01")
    merged = replace_studies(old, rerun, [studies[0]])
    assert list(dict.fromkeys(merged["study"])) == studies  # the order kept
    assert (merged.loc[merged["study"] == studies[0], "git_commit"] == "f" * 40).all()
    others = merged[merged["study"] != studies[0]].reset_index(drop=True)
    pd.testing.assert_frame_equal(others, old[old["study"] != studies[0]].reset_index(drop=True))
    assert "2099-01-01, commit `ffffffffff`" in render_block(merged)
    with pytest.raises(ValueError, match="no claims of"):
        replace_studies(old, rerun, ["not_a_study"])
