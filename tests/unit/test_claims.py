"""Claims: each check kind gives each verdict on small synthetic tables, and a malformed
claim in a study file is refused naming the file and the key."""

import copy

import pandas as pd
import pytest
import yaml

from pderepro.config import ConfigError
from pderepro.evaluation.claims import (
    CLAIMS_COLUMNS,
    claims_markdown,
    evaluate_claim,
    evaluate_claims,
)
from pderepro.evaluation.claims_checks import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_RUN,
    REPRODUCED,
    check_table,
)
from pderepro.evaluation.claims_expected import expected_text
from pderepro.studies import repository_plan
from tests.unit.test_config import BASE, ROOT, _study_dir, resolve


def _errors(model_errors):
    """A resolution-style table: ``{(model, resolution): (mean, ci_low, ci_high)}``."""
    return pd.DataFrame(
        [
            {"model": m, "resolution": r, "rel_l2_mean": v, "ci_low": lo, "ci_high": hi,
             "n_seeds": 2}
            for (m, r), (v, lo, hi) in model_errors.items()
        ]
    )  # fmt: skip


def _fno_check(kind, table, **settings):
    """A check of kind ``kind`` on the FNO rows' ``rel_l2_mean`` and its interval."""
    return {"kind": kind, "table": table, "rows": {"model": "FNO"}, "column": "rel_l2_mean",
            "interval": ["ci_low", "ci_high"], **settings}  # fmt: skip


THRESHOLD = _fno_check("threshold", "t", threshold=0.05, direction="below")


@pytest.mark.parametrize(
    ("cell", "verdict"),
    [
        ((0.02, 0.01, 0.03), REPRODUCED),
        ((0.08, 0.06, 0.10), NOT_REPRODUCED),
        ((0.04, 0.03, 0.06), INCONCLUSIVE),  # the interval straddles the threshold
    ],
)
def test_threshold_verdicts(cell, verdict):
    table = _errors({("FNO", 64): cell, ("FCN", 64): (0.5, 0.4, 0.6)})
    assert check_table(table, THRESHOLD).verdict == verdict
    above = {**THRESHOLD, "direction": "above"}
    flipped = {REPRODUCED: NOT_REPRODUCED, NOT_REPRODUCED: REPRODUCED}.get(verdict, verdict)
    assert check_table(table, above).verdict == flipped


def test_threshold_with_a_spread_and_too_few_seeds_and_absent_rows():
    table = pd.DataFrame({"model": ["FNO"], "change": [-0.3], "std": [0.05], "n_seeds": [1]})
    check = {**THRESHOLD, "column": "change", "threshold": -0.2, "interval": None}
    check["spread"] = "std"
    assert check_table(table, check).verdict == REPRODUCED  # [-0.35, -0.25] < -0.2
    check["spread"], table["std"] = "std", [0.2]
    assert check_table(table, check).verdict == INCONCLUSIVE
    table["std"] = [0.05]
    outcome = check_table(table, {**check, "min_seeds": 2})
    assert outcome.verdict == INCONCLUSIVE and "fewer than 2" in outcome.reason
    outcome = check_table(table, {**check, "rows": {"model": "U-Net"}})
    assert outcome.verdict == NOT_RUN and "model=U-Net" in outcome.reason


def test_threshold_at_most_zero_blowups_per_group():
    table = pd.DataFrame(
        {"closure": ["mlp", "mlp", "fno"], "setup": ["F16", "F24", "F16"], "blowups": [0, 0, 2]}
    )
    check = {
        "kind": "threshold", "table": "online", "column": "blowups", "threshold": 0,
        "direction": "at_most", "for_each": ["closure", "setup"],
    }  # fmt: skip
    outcome = check_table(table, check)
    assert outcome.verdict == NOT_REPRODUCED and "closure=fno, setup=F16" in outcome.reason
    assert check_table(table, {**check, "rows": {"closure": "mlp"}}).verdict == REPRODUCED


COMPARE = {
    "kind": "compare",
    "table": "resolution",
    "for_each": "resolution",
    "column": "rel_l2_mean",
    "interval": ["ci_low", "ci_high"],
    "better": {"model": "FNO"},
    "than": {"model": ["FCN", "PCANN"]},
    "lower_is_better": True,
}


def test_compare_verdicts_in_every_group():
    fno_best = {
        ("FNO", 64): (0.01, 0.008, 0.012), ("FCN", 64): (0.05, 0.04, 0.06),
        ("PCANN", 64): (0.03, 0.02, 0.04), ("FNO", 128): (0.01, 0.009, 0.011),
        ("FCN", 128): (0.09, 0.08, 0.10), ("PCANN", 128): (0.03, 0.02, 0.04),
    }  # fmt: skip
    outcome = check_table(_errors(fno_best), COMPARE)
    assert outcome.verdict == REPRODUCED
    assert "resolution=64: FNO 0.01 [0.008, 0.012] vs FCN" in outcome.measured
    # PCANN's interval overlaps FNO's at one resolution: inconclusive there, so overall
    overlap = {**fno_best, ("PCANN", 128): (0.012, 0.0105, 0.02)}
    assert check_table(_errors(overlap), COMPARE).verdict == INCONCLUSIVE
    # PCANN wholly better at one resolution: not reproduced, whatever the other group says
    worse = {**fno_best, ("PCANN", 128): (0.005, 0.004, 0.006)}
    outcome = check_table(_errors(worse), COMPARE)
    assert outcome.verdict == NOT_REPRODUCED and "resolution=128" in outcome.reason
    # all_other, with a no-learning reference left out
    ref = {**fno_best, ("heat", 64): (0.001, 0.0, 0.002), ("heat", 128): (0.001, 0.0, 0.002)}
    check = {**COMPARE, "than": "all_other"}
    assert check_table(_errors(ref), check).verdict == NOT_REPRODUCED
    assert check_table(_errors(ref), {**check, "exclude": {"model": "heat"}}).verdict == REPRODUCED
    # no FNO row at all: not run
    no_fno = {k: v for k, v in fno_best.items() if k[0] != "FNO"}
    assert check_table(_errors(no_fno), COMPARE).verdict == NOT_RUN


def test_compare_with_a_margin_against_a_column_of_the_same_row():
    """CAPE's gains: nrmse +- seed_std against baseline_nrmse +- baseline_seed_std."""
    table = pd.DataFrame(
        {"pde": ["advection", "burgers"], "split": ["unseen"] * 2, "model": ["FNO + CAPE"] * 2,
         "nrmse": [0.5, 0.9], "seed_std": [0.02, 0.02], "baseline_nrmse": [1.0, 1.0],
         "baseline_seed_std": [0.05, 0.05], "n_seeds": [2, 2]}
    )  # fmt: skip
    check = {
        "kind": "compare", "table": "cape_gains", "for_each": "pde", "column": "nrmse",
        "spread": "seed_std", "better": {"model": "FNO + CAPE"},
        "than_column": "baseline_nrmse", "than_spread": "baseline_seed_std",
        "lower_is_better": True, "margin": 0.2,
    }  # fmt: skip
    # advection: 0.52 < 0.8 x 0.95; Burgers: 0.88 > 0.8 x 1.05: wholly short of 20%
    outcome = check_table(table, check)
    assert outcome.verdict == NOT_REPRODUCED
    assert "pde=advection: FNO + CAPE 0.5 [0.48, 0.52] vs baseline_nrmse" in outcome.measured
    table.loc[1, "nrmse"] = 0.78  # [0.76, 0.80] against 0.8 x [0.95, 1.05]: straddles
    assert check_table(table, check).verdict == INCONCLUSIVE
    table.loc[1, "nrmse"] = 0.6
    assert check_table(table, check).verdict == REPRODUCED
    assert check_table(table, {**check, "min_seeds": 3}).verdict == INCONCLUSIVE
    assert expected_text(check) == (
        "nrmse of model=FNO + CAPE < 0.8 x its baseline_nrmse, each pde"
    )


def test_compare_higher_is_better_mean_and_target():
    table = pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "value": [1, 2, 1, 2], "score": [0.9, 0.7, 0.5, 0.6],
         "sd": [0.005] * 4}
    )  # fmt: skip
    check = {
        "kind": "compare", "table": "t", "column": "score", "better": {"model": "a"},
        "than": {"model": "b"}, "lower_is_better": False, "aggregate": "mean", "spread": "sd",
    }  # fmt: skip
    assert check_table(table, check).verdict == REPRODUCED  # 0.8 > 0.55
    # [0.795, 0.805] against 1.5 x [0.545, 0.555]
    assert check_table(table, {**check, "margin": 0.5}).verdict == NOT_REPRODUCED
    # without aggregate, each better row against each other row: 2 x 2 pairs
    no_mean = {k: v for k, v in check.items() if k != "aggregate"}
    outcome = check_table(table, no_mean)
    assert outcome.measured.count(" vs ") == 4 and outcome.verdict == REPRODUCED
    # tail ratio closer to 1: |1.1 - 1| against |0.4 - 1|
    tails = pd.DataFrame({"closure": ["smarl", "none"], "tail_ratio": [1.1, 0.4], "sd": 0.01})
    closer = {
        "kind": "compare", "table": "online", "column": "tail_ratio", "target": 1.0,
        "better": {"closure": "smarl"}, "than": {"closure": "none"}, "lower_is_better": True,
        "spread": "sd",
    }  # fmt: skip
    assert check_table(tails, closer).verdict == REPRODUCED
    tails["tail_ratio"] = [0.2, 1.05]
    assert check_table(tails, closer).verdict == NOT_REPRODUCED


def _online(values):
    """A closures' online table of points: ``{(closure, case): value}``."""
    return pd.DataFrame([{"closure": c, "case": k, "error": v} for (c, k), v in values.items()])


FLOORED = {
    "kind": "compare", "table": "online", "for_each": "case", "column": "error",
    "better": {"closure": "smarl"}, "than": {"closure": "smagorinsky"},
    "noise_floor": {"closure": "truth"}, "lower_is_better": True,
}  # fmt: skip


def test_a_noise_floor_widens_points_per_group():
    # kf4: 0.172 vs 0.194, each +- 0.142 (the quick LES run): far inside the noise;
    # beta20: the same gap with a floor of 0.005 is outside it
    table = _online({
        ("smarl", "kf4"): 0.172, ("smagorinsky", "kf4"): 0.194, ("truth", "kf4"): 0.142,
        ("smarl", "beta20"): 0.172, ("smagorinsky", "beta20"): 0.194, ("truth", "beta20"): 0.005,
    })  # fmt: skip
    as_points = {**FLOORED, "noise_floor": None}  # two points: their noise is unknown
    outcome = check_table(table, as_points)
    assert outcome.verdict == INCONCLUSIVE and "within noise" in outcome.reason
    outcome = check_table(table, FLOORED)
    assert outcome.verdict == INCONCLUSIVE
    assert outcome.reason == "case=kf4: within noise: smarl vs smagorinsky"
    assert "case=kf4: smarl 0.172 ± floor 0.142 vs smagorinsky 0.194 ± floor 0.142" in (
        outcome.measured
    )
    assert check_table(table, {**FLOORED, "rows": {"case": "beta20"}}).verdict == REPRODUCED
    # a gap wider than twice the floor decides either way
    table.loc[table["closure"] == "smagorinsky", "error"] = 0.631
    assert check_table(table, FLOORED).verdict == REPRODUCED
    table.loc[table["closure"] == "smarl", "error"] = 0.95
    assert check_table(table, FLOORED).verdict == NOT_REPRODUCED
    assert expected_text(FLOORED) == (
        "error of closure=smarl < closure=smagorinsky, ± noise floor of closure=truth, each case"
    )


def test_the_noise_floor_row_is_never_compared_and_must_be_one():
    # truth would beat smarl wholly; with all_other it is still left out
    table = _online({("smarl", "kf4"): 0.3, ("none", "kf4"): 0.9, ("truth", "kf4"): 0.05})
    check = {**FLOORED, "than": "all_other"}
    outcome = check_table(table, check)
    assert outcome.verdict == REPRODUCED and "truth" not in outcome.measured
    assert check_table(table, {**check, "noise_floor": None}).verdict == NOT_REPRODUCED
    outcome = check_table(table.iloc[:2], check)  # no floor row: not run, saying why
    assert outcome.verdict == NOT_RUN and "no noise-floor row closure=truth" in outcome.reason
    with pytest.raises(ValueError, match="2 noise-floor rows"):
        check_table(pd.concat([table, table.iloc[2:]]), check)
    # a threshold: the one remaining row, +- the floor
    below = {
        "kind": "threshold", "table": "online", "rows": {"closure": ["smarl", "truth"]},
        "column": "error", "threshold": 0.4, "direction": "below",
        "noise_floor": {"closure": "truth"},
    }  # fmt: skip
    assert check_table(table, below).verdict == REPRODUCED  # [0.25, 0.35] < 0.4
    assert check_table(table, {**below, "threshold": 0.32}).verdict == INCONCLUSIVE


def test_a_noise_floor_with_a_target_is_its_distance_to_the_target():
    # the quick LES tails: truth 0.469 against 1 gives f = 0.531
    tails = pd.DataFrame(
        {"closure": ["smarl", "none", "truth"], "tail_ratio": [0.499, 1.614, 0.469]}
    )
    closer = {
        "kind": "compare", "table": "online", "column": "tail_ratio", "target": 1.0,
        "better": {"closure": "smarl"}, "than": {"closure": "none"}, "lower_is_better": True,
        "noise_floor": {"closure": "truth"},
    }  # fmt: skip
    outcome = check_table(tails, closer)
    assert outcome.verdict == INCONCLUSIVE
    assert outcome.measured == "smarl 0.501 [0, 1.03] (± floor 0.531) vs none 0.614 ± floor 0.531"
    tails.loc[2, "tail_ratio"] = 1.04  # f = 0.04: [0.461, 0.541] against [0.574, 0.654]
    assert check_table(tails, closer).verdict == REPRODUCED


RATIO = _fno_check("ratio", "resolution", factor=1.5)


@pytest.mark.parametrize(
    ("cells", "verdict"),
    [
        ([(0.010, 0.009, 0.011), (0.012, 0.011, 0.013)], REPRODUCED),  # 0.013 / 0.009 < 1.5
        ([(0.010, 0.009, 0.011), (0.030, 0.028, 0.032)], NOT_REPRODUCED),  # 0.028 / 0.011
        ([(0.010, 0.008, 0.012), (0.014, 0.010, 0.018)], INCONCLUSIVE),  # 1.5 in [1, 2.25]
        ([(0.010, 0.009, 0.011)], NOT_RUN),  # one value: no ratio
    ],
)
def test_ratio_verdicts(cells, verdict):
    table = _errors({("FNO", 64 * (i + 1)): c for i, c in enumerate(cells)})
    assert check_table(table, RATIO).verdict == verdict


def test_ratio_of_two_columns_of_one_row():
    table = pd.DataFrame({"rel_l2": [0.12], "rel_l2_as_trained": [0.10]})
    check = {"kind": "ratio", "table": "s", "column": ["rel_l2", "rel_l2_as_trained"]}
    assert check_table(table, {**check, "factor": 1.5}).verdict == REPRODUCED
    assert check_table(table, {**check, "factor": 1.1}).verdict == NOT_REPRODUCED


def test_a_claim_is_not_run_outside_its_presets_or_study_or_without_its_table():
    claim = {"id": "fno_low", "kind": "paper", "claim": "FNO is accurate.", "source": "paper",
             "check": THRESHOLD}  # fmt: skip
    table = _errors({("FNO", 64): (0.02, 0.01, 0.03)})
    row = evaluate_claim(claim, table, study="s", preset="quick")
    assert (
        row["verdict"] == REPRODUCED and row["expected"] == "t: rel_l2_mean < 0.05 where model=FNO"
    )
    assert row["measured"] == "0.02 [0.01, 0.03]"
    at_paper = {**claim, "presets": ["paper"]}
    row = evaluate_claim(at_paper, table, study="s", preset="quick")
    assert row["verdict"] == NOT_RUN and "paper" in row["reason"]
    row = evaluate_claim(claim, table, study="s", preset="quick", enabled=False)
    assert row["verdict"] == NOT_RUN and row["reason"] == "study not enabled"
    assert evaluate_claim(claim, None, study="s", preset="quick")["verdict"] == NOT_RUN
    with pytest.raises(ValueError, match="claim fno_low: .*no column 'nrmse'"):
        evaluate_claim({**claim, "check": {**THRESHOLD, "column": "x", "rows": {"nrmse": 1}}},
                       table, study="s", preset="quick")  # fmt: skip


def test_evaluate_claims_lists_every_claim_of_every_study():
    claim = {"id": "fno_low", "kind": "paper", "claim": "FNO is accurate.", "source": "paper",
             "check": THRESHOLD}  # fmt: skip
    tables = {"results/a/tables/t.csv": _errors({("FNO", 64): (0.02, 0.01, 0.03)})}
    studies = {
        "a": {"enabled": True, "claims": [claim], "tables": {"t": "results/a/tables/t.csv"}},
        "b": {"enabled": False, "claims": [claim], "tables": {}},
    }
    frame = evaluate_claims(studies, preset="quick", read=tables.__getitem__)
    assert list(frame.columns) == CLAIMS_COLUMNS
    assert list(frame["verdict"]) == [REPRODUCED, NOT_RUN]
    text = claims_markdown(frame, preset="quick")
    assert "2 claims: paper claims: 1 reproduced, 1 not run." in text and "| fno_low" in text


# --- the study files: every shipped claim is planned; malformed claims are refused ---


def test_every_shipped_study_file_has_claims_and_the_rule_reads_their_tables():
    plan = repository_plan(ROOT, "quick")
    studies = plan.claims_studies()
    assert not {n for n, s in studies.items() if not s["claims"]}
    assert "results/claims.csv" in plan.targets()
    assert "results/fno_navier_stokes/superresolution/metrics.csv" in plan.claims_inputs()
    assert not any(s["tables"] for s in studies.values() if not s["enabled"])


def _with_claim(edit):
    def change(study):
        claim = copy.deepcopy(study["claims"][0])
        edit(claim)
        study["claims"][0] = claim

    return change


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda c: c["check"].update(unknown_q=1), "claims.0.check.unknown_q"),
        (lambda c: c.update(verdict="yes"), "claims.0.verdict"),
        (lambda c: c["check"].update(kind="treshold"), "claims.0.check.kind"),
        (lambda c: c["check"].update(margin=-0.1), "claims.0.check.margin"),
        (lambda c: c["check"].update(lower_is_better="yes"), "claims.0.check.lower_is_better"),
        (lambda c: c["check"].pop("lower_is_better"), "claims.0.check"),
        (lambda c: c.update(id="Not Snake"), "claims.0.id"),
        (lambda c: c["check"].update(table="nope"), "claims.0.check.table"),
        (lambda c: c.update(presets=["fast"]), "claims.0.presets"),
        (lambda c: c["check"].update(spread="std"), "claims.0.check.spread"),
        (lambda c: c["check"].update(than_column="x"), "claims.0.check.than"),
        (lambda c: c.pop("kind"), "claims.0"),
        (lambda c: c.update(kind="paper_claim"), "claims.0.kind"),
        (lambda c: c["check"].pop("reference"), "claims.0.check"),
        (lambda c: c["check"].update(reference="none"), "claims.0.check.reference"),
        (lambda c: c["check"].update(margin=0.2), "claims.0.threshold_source"),
        (lambda c: c.update(threshold_source="from the last run"), "claims.0.threshold_source"),
        (
            lambda c: c["check"].update(target=1.0, lower_is_better=False),
            "claims.0.check.lower_is_better",
        ),
    ],
)
def test_a_malformed_claim_is_refused_naming_the_file_and_key(tmp_path, edit, key):
    config_dir = _study_dir(tmp_path, _with_claim(edit))
    with pytest.raises(ConfigError) as err:
        resolve({**BASE}, config_dir=config_dir)
    lines = [line for line in str(err.value).splitlines() if "fno_burgers.yaml" in line]
    assert any(f"'study.fno_burgers.{key}" in line for line in lines), str(err.value)


def test_claim_ids_are_unique_in_a_study(tmp_path):
    def twice(study):
        study["claims"].append(copy.deepcopy(study["claims"][0]))

    with pytest.raises(ConfigError, match=r"claims\.2\.id': 'fno_best_at_every_resolution' is"):
        resolve({**BASE}, config_dir=_study_dir(tmp_path, twice))


def test_claims_of_a_study_file_are_listed_when_it_is_not_enabled():
    config = resolve({**BASE, "studies": ["fno_burgers"]})
    assert "fno_darcy" not in config["study"]
    shipped = yaml.safe_load((ROOT / "config/studies/fno_darcy.yaml").read_text())["claims"]
    assert [c["id"] for c in config["claims"]["fno_darcy"]] == [c["id"] for c in shipped]
