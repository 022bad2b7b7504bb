"""The parametric study kind: runs, datasets, jobs and the config checks, from the
shipped pdebench_cape study at each preset."""

from pathlib import Path

import pytest

from pderepro.config import ConfigError
from pderepro.studies import repository_plan
from pderepro.studies.parametric import (
    KIND,
    TEACHER_FORCING,
    runs,
    value_tag,
)
from pderepro.studies.parametric_inputs import rollout_files, tables_params, train_params

ROOT = Path(__file__).resolve().parents[2]


def _plan(preset="smoke", study="pdebench_cape"):
    return repository_plan(ROOT, preset, [study])


def _check(study_name="pdebench_cape", **changes):
    study = _plan(study=study_name).studies[study_name]
    for path, value in changes.items():
        node = study
        *parents, last = path.split("__")
        for key in parents:
            node = node[key]
        node[last] = value
    KIND.check(f"study.{study_name}", study)


def test_value_tags_are_path_safe_and_distinct():
    tags = [value_tag(v) for v in (0.001, 0.01, 0.1, 1.0, 4.0, 1e-5)]
    assert tags == ["0p001", "0p01", "0p1", "1", "4", "1em05"]


def test_smoke_plan_runs_every_model_per_pde_plus_ablation_and_pdebench():
    study = _plan().studies["pdebench_cape"]
    keys = sorted(runs(study))
    assert ("advection", "fno_cape" + TEACHER_FORCING) in keys
    assert ("burgers", "pdebench-1") in keys
    # 4 models + 1 teacher-forcing ablation + 1 pdebench value, per PDE
    assert len(keys) == 2 * 6
    cape = runs(study)["advection", "fno_cape"]
    assert cape["train"] == [0.4, 2.0] and cape["test"] == [0.4, 1.0, 2.0]
    assert not runs(study)["advection", "fno_cape" + TEACHER_FORCING]["curriculum"]
    datasets = KIND.datasets("pdebench_cape", study)
    assert set(datasets) == {f"pdebench_cape_{p}_{t}" for p, ts in
                             (("advection", ("0p4", "1", "2")), ("burgers", ("0p2", "1", "2")))
                             for t in ts}  # fmt: skip
    assert datasets["pdebench_cape_burgers_0p2"]["nu"] == 0.2


def test_pdebench_runs_take_their_own_epochs_and_rate():
    plan = _plan("paper")
    pdebench = train_params(plan, "pdebench_cape", "burgers", "pdebench-0p001")
    cape = train_params(plan, "pdebench_cape", "burgers", "fno_cape")
    assert pdebench["training"]["epochs"] == 500 and pdebench["training"]["learning_rate"] == 1e-3
    assert cape["training"]["epochs"] == 100 and cape["training"]["learning_rate"] == 3e-3
    assert "pdebench_epochs" not in cape["training"] and "training" not in pdebench["spec"]
    assert pdebench["protocol"] == {
        "space_stride": 4, "time_stride": 5, "context": 10, "transform": "log10"
    }  # fmt: skip


def test_a_preset_can_leave_a_model_out():
    """quick trains no U-Net (run: false): no runs, rollouts or CAPE pair for them; the
    FNOs, their ablation and the per-value runs are untouched."""
    plan = _plan("quick")
    study = plan.studies["pdebench_cape"]
    assert {run for _, run in runs(study)} >= {"fno", "fno_cape", "fno_cape" + TEACHER_FORCING}
    assert not any(run.startswith("unet") for _, run in runs(study))
    tables = tables_params(plan, "pdebench_cape")
    assert tables["cape_pairs"] == {"fno_cape": "fno"}
    assert not any("unet" in m for m in tables["model_order"])
    assert not any("unet" in f for f in rollout_files(plan, "pdebench_cape"))
    fno = train_params(plan, "pdebench_cape", "advection", "fno_cape")["training"]
    assert (fno["epochs"], fno["step_epochs"], fno["learning_rate"]) == (100, 25, 3e-3)


def test_a_pair_whose_base_is_left_out_shows_no_gain():
    plan = _plan("smoke")
    plan.studies["pdebench_cape"]["models"]["unet"]["run"] = False
    assert tables_params(plan, "pdebench_cape")["cape_pairs"] == {"fno_cape": "fno"}


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"pdes__advection__unseen": [0.4]}, "also seen"),
        ({"protocols__cape__space_stride": 3}, "does not divide"),
        ({"protocols__pdebench__context": 13}, "leaves no frame"),
        ({"teacher_forcing": ["fno_capee"]}, "not a model"),
        ({"models__fno_cape__conditioned": False}, "CAPE models read the parameter"),
        ({"models__fno_cape__baseline": "fno_cape"}, "not another model"),
        ({"pdes__burgers__dataset__nu": 0.1}, "set per value"),
        ({"pdebench_model__run": False}, "only models across values"),
    ],
)
def test_bad_study_configs_are_named(changes, match):
    with pytest.raises(ConfigError, match=match):
        _check(**changes)


def test_basic_forms_runs_share_steps_and_validation_and_differ_in_data():
    plan = _plan("quick", "basic_forms")
    study = plan.studies["basic_forms"]
    planned = runs(study)
    assert sorted(run for _, run in planned) == sorted(
        f"{prefix}-f{tag}" for prefix in ("target", "target_basic") for tag in ("0p05", "0p2", "1")
    )
    alone = planned["diffusion_reaction", "target-f0p2"]
    joint = planned["diffusion_reaction", "target_basic-f0p2"]
    seen = [(0.5, 1.0), (0.5, 2.0), (1.0, 1.0), (1.0, 2.0)]
    assert alone["train"] == seen and alone["fractions"] == [0.2] * 4
    assert joint["train"] == seen + [(0.0, 1.0), (0.0, 2.0), (0.5, 0.0), (1.0, 0.0)]
    assert joint["fractions"] == [0.2] * 4 + [1.0] * 4
    assert alone["validate"] == joint["validate"] == seen
    assert alone["test"] == joint["test"] == [*seen, (2.0, 5.0), (5.0, 10.0)]
    params = train_params(plan, "basic_forms", "diffusion_reaction", "target_basic-f0p2")
    assert params["training"]["optimizer_steps"] == 300 and params["parameter"] == ["nu", "rho"]
    assert params["spec"]["conditioned"] and params["fractions"] == joint["fractions"]
    datasets = KIND.datasets("basic_forms", study)
    pure_reaction = datasets["basic_forms_diffusion_reaction_0_2"]
    assert (pure_reaction["nu"], pure_reaction["rho"]) == (0.0, 2.0)
    assert len(datasets) == 10
    targets = KIND.targets("basic_forms", study)
    assert "results/basic_forms/tables/basic_forms.csv" in targets
    assert not any("parameters" in t for t in targets)
    jobs = KIND.jobs("basic_forms", study)
    assert jobs["train_parametric"] == 12 and jobs["basic_forms_table"] == 1
    assert "parametric_tables" not in jobs


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"pdes__diffusion_reaction__transform": "log10"}, "has no log10"),
        ({"pdes__diffusion_reaction__unseen": [[5, 10, 1]]}, "one number per parameter"),
        ({"pdes__diffusion_reaction__unseen": [5]}, "one number per parameter"),
        ({"basic_forms__protocol": "cape"}, "protocols.cape': needed"),
        ({"pdes__diffusion_reaction__dataset__rho": 1.0}, "set per value"),
    ],
)
def test_bad_basic_forms_configs_are_named(changes, match):
    with pytest.raises(ConfigError, match=match):
        _check("basic_forms", **changes)
