"""The rules a verdict is held to (issue 43): for each, a small table where the rule
flips the verdict and one where it does not."""

import pandas as pd
import pytest

from pderepro.config import ConfigError
from pderepro.evaluation.claims import (
    CLAIMS_COLUMNS,
    budget_at,
    evaluate_claim,
    verdict_counts,
    verdict_text,
)
from pderepro.evaluation.claims_checks import (
    BASELINE_DID_NOT_LEARN,
    INCONCLUSIVE,
    NO_REPEATS,
    REPRODUCED,
    WITHIN_NOISE,
    check_table,
)
from tests.unit.test_config import BASE, ROOT, _study_dir, resolve


def _rows(cells):
    """``{model: (value, low, high)}`` as a table with interval columns."""
    return pd.DataFrame(
        [
            {"model": m, "err": v, "lo": lo, "hi": hi, "n_seeds": 3}
            for m, (v, lo, hi) in cells.items()
        ]
    )


BEATS = {
    "kind": "compare", "table": "t", "column": "err", "interval": ["lo", "hi"],
    "better": {"model": "A"}, "than": {"model": "B"}, "lower_is_better": True,
    "reference": {"model": "zero"},
}  # fmt: skip


def test_a_baseline_worse_than_the_reference_makes_a_win_inconclusive():
    # the PIG case: B (the PINN) at 1.6 is worse than the zero field's 1.0
    table = _rows({"A": (0.07, 0.05, 0.09), "B": (1.6, 1.2, 2.3), "zero": (1.0, 1.0, 1.0)})
    outcome = check_table(table, BEATS)
    assert outcome.verdict == INCONCLUSIVE and outcome.reason.startswith(BASELINE_DID_NOT_LEARN)
    assert outcome.baseline_beats_reference == "false"
    table.loc[table["model"] == "B", ["err", "lo", "hi"]] = [0.5, 0.4, 0.6]  # B learned
    outcome = check_table(table, BEATS)
    assert outcome.verdict == REPRODUCED and outcome.baseline_beats_reference == "true"


def test_a_baseline_inside_the_references_interval_did_not_learn():
    # the NS case: U-Net 0.246 [0.219, 0.273] against the mean trajectory's 0.256
    table = _rows({"A": (0.076, 0.064, 0.091), "B": (0.246, 0.219, 0.273),
                   "zero": (0.256, 0.256, 0.256)})  # fmt: skip
    assert check_table(table, BEATS).verdict == INCONCLUSIVE
    table.loc[table["model"] == "zero", ["err", "lo", "hi"]] = [0.5, 0.5, 0.5]
    assert check_table(table, BEATS).verdict == REPRODUCED


def test_the_strongest_reference_row_counts():
    table = _rows({"A": (0.1, 0.09, 0.11), "B": (0.3, 0.28, 0.32), "zero": (1.0, 1.0, 1.0),
                   "mean": (0.29, 0.29, 0.29)})  # fmt: skip
    check = {**BEATS, "reference": {"model": ["zero", "mean"]}}
    outcome = check_table(table, check)
    assert outcome.verdict == INCONCLUSIVE and "vs mean 0.29" in outcome.reason
    assert check_table(table, {**check, "reference": {"model": "zero"}}).verdict == REPRODUCED


def test_a_difference_inside_the_noise_is_inconclusive():
    # the shallow-water case: 0.129 [0.099, 0.160] against a point 0.162 passes by 1%...
    table = _rows({"A": (0.129, 0.099, 0.160), "B": (0.162, 0.162, 0.162)})
    check = {**BEATS, "reference": "than"}
    outcome = check_table(table, check)
    assert outcome.verdict == REPRODUCED
    assert outcome.interval_high == pytest.approx(0.160 - 0.162)
    # ...and no longer once the truth's own sampling noise (the floor) widens both
    table = pd.concat([table, _rows({"truth": (0.01, 0.01, 0.01)})], ignore_index=True)
    outcome = check_table(table, {**check, "noise_floor": {"model": "truth"}})
    assert outcome.verdict == INCONCLUSIVE and outcome.reason.startswith(WITHIN_NOISE)
    assert outcome.interval_low < 0 < outcome.interval_high  # the difference straddles 0


def test_two_points_are_within_noise_a_point_and_an_interval_need_not_be():
    table = pd.DataFrame({"model": ["A", "B"], "err": [0.1, 0.2]})
    check = {k: v for k, v in BEATS.items() if k != "interval"} | {"reference": "than"}
    outcome = check_table(table, check)
    assert outcome.verdict == INCONCLUSIVE and WITHIN_NOISE in outcome.reason
    table["sd"] = [0.01, 0.0]
    assert check_table(table, {**check, "spread": "sd"}).verdict == REPRODUCED


def test_a_margin_asks_for_more_whatever_the_sign():
    # changes (negative: lower is better): -0.30 against -0.25 by a margin of 0.1 needs
    # below -0.275; a scaling by 0.9 would have asked for less (below -0.225)
    table = _rows({"A": (-0.30, -0.31, -0.29), "B": (-0.25, -0.25, -0.25)})
    check = {**BEATS, "reference": "than", "margin": 0.1}
    assert check_table(table, check).verdict == REPRODUCED
    table.loc[0, ["err", "lo", "hi"]] = [-0.26, -0.27, -0.255]  # within 10% of -0.25
    assert check_table(table, check).verdict != REPRODUCED
    assert check_table(table, {**check, "margin": 0.0}).verdict == REPRODUCED


def test_a_timing_needs_repeats():
    table = pd.DataFrame({"method": ["sdgd"], "slope": [0.3]})
    check = {"kind": "threshold", "table": "t", "column": "slope", "threshold": 1.0,
             "direction": "below", "timing": True}  # fmt: skip
    outcome = check_table(table, check)
    assert outcome.verdict == INCONCLUSIVE and outcome.reason == NO_REPEATS
    table["lo"], table["hi"] = [-0.01], [0.7]
    assert check_table(table, {**check, "interval": ["lo", "hi"]}).verdict == REPRODUCED
    table["hi"] = [1.3]  # the seeds' slopes straddle 1: the machine's noise decides nothing
    assert check_table(table, {**check, "interval": ["lo", "hi"]}).verdict == INCONCLUSIVE


def test_min_seeds_without_a_seeds_column_is_inconclusive_not_skipped():
    table = _rows({"A": (0.02, 0.01, 0.03)})
    check = {"kind": "threshold", "table": "t", "column": "err", "interval": ["lo", "hi"],
             "threshold": 0.05, "direction": "below", "min_seeds": 2}  # fmt: skip
    assert check_table(table, check).verdict == REPRODUCED
    outcome = check_table(table.drop(columns="n_seeds"), check)
    assert outcome.verdict == INCONCLUSIVE and "no n_seeds column" in outcome.reason


def test_a_noise_floor_adds_to_a_spread():
    table = pd.DataFrame({"model": ["A", "B", "truth"], "err": [0.10, 0.20, 0.04],
                          "sd": [0.02, 0.02, 0.0]})  # fmt: skip
    check = {**BEATS, "reference": "than", "spread": "sd", "interval": None}
    check.pop("interval")
    assert check_table(table, check).verdict == REPRODUCED  # [0.08, 0.12] vs [0.18, 0.22]
    floored = {**check, "noise_floor": {"model": "truth"}}  # [0.04, 0.16] vs [0.14, 0.26]
    assert check_table(table, floored).verdict == INCONCLUSIVE


def test_a_reference_row_without_the_groups_value_serves_every_group():
    # persistence has no target fraction: it is the reference of each fraction's group
    table = pd.DataFrame({
        "training": ["target", "basic", "target", "basic", "persistence"],
        "fraction": [0.05, 0.05, 0.2, 0.2, None], "err": [0.3, 0.2, 0.2, 0.1, 0.25],
        "sd": [0.01] * 5,
    })  # fmt: skip
    check = {
        "kind": "compare", "table": "t", "rows": {"training": ["target", "basic"]},
        "for_each": "fraction", "column": "err", "spread": "sd",
        "better": {"training": "basic"}, "than": {"training": "target"},
        "lower_is_better": True, "reference": {"training": "persistence"},
    }  # fmt: skip
    outcome = check_table(table, check)
    # fraction 0.05: target 0.3 did not beat persistence 0.25; 0.2: it did
    assert outcome.verdict == INCONCLUSIVE and "fraction=0.05" in outcome.reason
    assert "fraction=0.2" not in outcome.reason
    table.loc[4, "err"] = 0.4  # a weaker reference: both targets learned
    assert check_table(table, check).verdict == REPRODUCED


def test_the_claims_row_states_kind_budget_margin_and_interval():
    claim = {"id": "a_beats_b", "kind": "paper", "claim": "A beats B.", "source": "Table 1",
             "check": {**BEATS, "margin": 0.2}, "threshold_source": "ours: a bar"}  # fmt: skip
    table = _rows({"A": (0.1, 0.09, 0.11), "B": (0.5, 0.4, 0.6), "zero": (1.0, 1.0, 1.0)})
    budget = {"published": "N 1000", "presets": {"quick": "N 32"}}
    row = evaluate_claim(claim, table, study="s", preset="quick", budget=budget)
    assert set(row) == set(CLAIMS_COLUMNS)
    assert row["kind"] == "paper" and row["margin"] == 0.2 and row["budget"] == "N 32 vs N 1000"
    assert row["budget_level"] == "reduced" and row["baseline_beats_reference"] == "true"
    assert row["interval_high"] == pytest.approx(0.11 - 0.4 * 0.8)
    assert "threshold: ours: a bar" in row["source"]
    assert verdict_text(row["verdict"], row["budget_level"], "quick") == (
        "reproduced at quick budget"
    )
    assert budget_at(budget, "paper") == ("the paper's: N 1000", "paper")
    frame = pd.DataFrame([row, {**row, "kind": "sanity", "budget_level": "paper"}])
    assert verdict_counts(frame) == (
        "paper claims: 1 reproduced (1 at reduced budget); sanity checks: 1 reproduced"
    )


def _first_claim(edit):
    def change(study):
        edit(study["claims"][0])

    return change


def test_a_number_without_its_source_is_refused(tmp_path):
    config_dir = _study_dir(
        tmp_path, _first_claim(lambda c: c.pop("threshold_source", None)), name="fno_darcy"
    )  # its second claim has a factor; the first none
    resolve({**BASE}, config_dir=config_dir)  # the first claim has no number: fine
    config_dir = _study_dir(
        tmp_path / "b",
        lambda s: s["claims"][1].pop("threshold_source"),
        name="fno_darcy",
    )
    with pytest.raises(ConfigError, match=r"claims\.1\.threshold_source"):
        resolve({**BASE}, config_dir=config_dir)


def test_a_preset_cannot_change_a_claim(tmp_path):
    config_dir = _study_dir(tmp_path, lambda s: None)
    quick = config_dir / "presets" / "quick.yaml"
    quick.write_text(quick.read_text() + "\nrann:\n  claims: []\n")
    with pytest.raises(ConfigError, match=r"rann\.claims' is not a size"):
        resolve({**BASE}, config_dir=config_dir)


def test_every_shipped_claim_names_its_kind_and_every_study_its_budget():
    import yaml

    for path in sorted((ROOT / "config/studies").glob("*.yaml")):
        study = yaml.safe_load(path.read_text())
        assert study["budget"]["published"], path
        for claim in study["claims"]:
            assert claim["kind"] in ("paper", "sanity"), (path, claim["id"])
