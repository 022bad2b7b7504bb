"""The neural-spectral kind's config: bad entries and preset keys that are not sizes fail
naming the file and key; job counts at every preset; the rate's decay; the cost model; the
tables' solver matching."""

import math

import pandas as pd
import pytest

from pderepro.config import ConfigError
from pderepro.evaluation.nsm_tables import (
    LOWER_BOUND,
    MATCHED,
    UPPER_BOUND,
    errors_table,
    match_solver,
    speed_table,
)
from pderepro.studies import make_plan
from pderepro.studies import neural_spectral_inputs as inputs
from pderepro.studies.neural_spectral import (
    active_problems,
    decay_factor,
    registered_problems,
    runs,
)
from tests.unit.configs import set_key
from tests.unit.test_config import BASE, _study_dir, resolve, resolve_with_preset_sizes

STUDY = "nsm"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("problems.poisson.problem", "poisson_typo", "not a registered operator problem"),
        ("methods.pinn64.kind", "collocation", "kind"),
        ("methods.pinn64.n", 1, "n"),
        ("methods.nsm.n_train", 16, "n_train"),
        ("problems.poisson.training.decay_iterations", 10, "past decay_iterations"),
        ("published.values", {"heat": {"nsm": 1.0}}, "not a problem of the study"),
        ("published.iterations", {"heat": 10}, "not a problem of the study"),
        ("network.depth", 4, "depth"),
    ],
)
def test_bad_entries_fail_naming_the_file_and_key(tmp_path, path, value, message):
    config_dir = _study_dir(tmp_path, set_key(path, value), name=STUDY)
    with pytest.raises(ConfigError, match=message) as err:
        resolve({**BASE, "preset": "smoke"}, config_dir=config_dir)
    assert f"{STUDY}.yaml" in str(err.value) and f"study.{STUDY}." in str(err.value)


def test_a_supervised_method_needs_its_grid_and_pairs(tmp_path):
    config_dir = _study_dir(tmp_path, set_key("methods.supervised", {"kind": "supervised"}),
                            name=STUDY)  # fmt: skip
    with pytest.raises(ConfigError, match="study.nsm.methods.supervised"):
        resolve({**BASE, "preset": "paper"}, config_dir=config_dir)


@pytest.mark.parametrize(
    ("section", "sizes", "key"),
    [
        ("problems", {"poisson": {"parameters": {"length_scale": 0.1}}},
         "problems.poisson.parameters"),
        ("problems", {"poisson": {"training": {"decay_iterations": 1000}}},
         "problems.poisson.training.decay_iterations"),
        ("methods", {"pinn64": {"n": 32}}, "methods.pinn64.n"),
        ("network", {"layers": 2}, "network.layers"),
        ("training", {"learning_rate": 1.0}, "training.learning_rate"),
    ],
)  # fmt: skip
def test_a_preset_may_set_sizes_only(tmp_path, section, sizes, key):
    """The parameters, the schedule's length, a method's grid, depth and rate are science."""
    with pytest.raises(ConfigError, match=rf"'{STUDY}.{key}' is not a size"):
        resolve_with_preset_sizes(tmp_path, STUDY, {section: sizes})


@pytest.mark.parametrize(
    ("preset", "problems", "seeds", "n_methods"),
    [
        ("smoke", ["poisson", "rd_nu0005"], 1, 5),
        ("quick", ["poisson", "rd_nu0005", "rd_nu001"], 2, 5),
        ("paper", ["ns_forced", "poisson", "rd_nu0005", "rd_nu001", "rd_nu005", "rd_nu01"], 4, 6),
    ],
)
def test_job_counts_are_problems_times_methods_times_seeds(preset, problems, seeds, n_methods):
    """Every problem runs every method the preset runs (pinn96 at paper only), but the forced
    Navier-Stokes problem (paper only) runs the three its ``methods`` names."""
    config = resolve({**BASE, "preset": preset, "studies": [STUDY]})
    study = config["study"][STUDY]
    counts = make_plan(config).job_counts()
    assert list(active_problems(study)) == problems and study["seeds"] == seeds
    assert any(method == "pinn96" for _, method, _ in runs(study)) == (preset == "paper")
    methods = [3 if p == "ns_forced" else n_methods for p in problems]
    assert counts["train_nsm"] == sum(methods) * seeds == len(runs(study))
    assert counts["nsm_data"] == len(problems)
    assert counts["nsm_tables"] == counts["plot_nsm"] == 1


def test_the_rate_decays_as_the_papers_schedule():
    """lr * factor^i = lr * (1e-3)^(i / decay_iterations): the quick preset runs the first
    200 of the paper's 30k steps (its rate ends at 1e-3^(200/30000) of the start)."""
    study = resolve({**BASE, "preset": "quick", "studies": [STUDY]})["study"][STUDY]
    factor = decay_factor(study, "rd_nu0005")
    assert factor**30000 == pytest.approx(1e-3, rel=1e-9)
    settings = inputs.train_params(make_plan_of(study), STUDY, "rd_nu0005", "nsm")
    assert settings["iterations"] == 200 and settings["decay_factor"] == factor
    assert settings["network"]["width"] == 16 and settings["batch_size"] == 8
    paper = resolve({**BASE, "preset": "paper", "studies": [STUDY]})["study"][STUDY]
    assert paper["problems"]["rd_nu01"]["training"]["iterations"] == 200_000
    assert decay_factor(paper, "rd_nu01") ** 200_000 == pytest.approx(1e-3, rel=1e-9)


class _Plan:
    def __init__(self, study, preset="quick"):
        self.studies, self.config = {STUDY: study}, {"preset": preset}


def make_plan_of(study, preset="quick"):
    return _Plan(study, preset)


def test_cost_model_follows_the_measured_steps_and_the_time_limit():
    study = resolve({**BASE, "preset": "quick", "studies": [STUDY]})["study"][STUDY]
    net = {"width": 16, "layers": 4}
    # the measured points, and half of them at batch 8
    assert inputs.seconds_per_iteration(128**2, 16, net, False) == pytest.approx(0.350)
    assert inputs.seconds_per_iteration(64**2, 8, net, False) == pytest.approx(0.044)
    assert inputs.seconds_per_iteration(64**2, 16, {"width": 32, "layers": 4}, False) == (
        pytest.approx(4 * 0.088)
    )
    plan = make_plan_of(study)
    pinn128 = inputs.train_seconds(study, "poisson", "pinn128")
    # the model's 200 steps of ~0.3 s and the evaluations (measured at quick: 0.28-0.33 s
    # a step, 283-334 s for 1000 steps; see quick.yaml)
    assert 50 < pinn128 < 75
    assert inputs.train_seconds(study, "poisson", "nsm") < pinn128 / 4
    # pinn256 stops at the time limit: its runtime is capped, not 1000 s steps
    limit = study["time_limit_s"]
    assert inputs.train_seconds(study, "poisson", "pinn256") < limit + 30
    assert inputs.train_runtime(plan, STUDY, "poisson", "pinn256") <= 10 + 3 * (limit + 30) / 60
    assert inputs.train_gpus(plan, STUDY) == 0
    assert 2000 < inputs.train_mem_mb(plan, STUDY, "rd_nu0005", "supervised") < 8000
    # the cost model's estimate of the quick study, the stopped runs at their probe, within
    # 25 minutes on 2 cores (an estimate; the measured run is in the README)
    total = sum(
        (10 if m == "pinn256" else inputs.train_seconds(study, p, m)) + 5 for p, m, _ in runs(study)
    )
    assert total / 2 < 25 * 60


def test_paper_runs_ask_for_a_gpu_and_keep_host_memory_small():
    study = resolve({**BASE, "preset": "paper", "studies": [STUDY]})["study"][STUDY]
    plan = make_plan_of(study, "paper")
    assert inputs.train_gpus(plan, STUDY) == 1
    assert inputs.train_mem_mb(plan, STUDY, "rd_nu01", "pinn256") < 16_000
    assert inputs.train_runtime(plan, STUDY, "poisson", "nsm") < inputs.train_runtime(
        plan, STUDY, "poisson", "pinn256"
    )


def test_the_source_reading_agrees_with_the_registry():
    pytest.importorskip("torch")
    import pderepro.training.spectral  # noqa: F401  (registers every problem)
    from pderepro.training.spectral.problems import OPERATOR_PROBLEMS

    assert registered_problems() == frozenset(OPERATOR_PROBLEMS)
    assert {"poisson_periodic", "reaction_diffusion"} <= registered_problems()


def test_the_solver_match_takes_the_cheapest_rung_at_least_as_accurate():
    ladder = [
        {"resolution": {"nx": 32}, "rel_l2_pct": 1.0, "s_per_instance": 0.1},
        {"resolution": {"nx": 64}, "rel_l2_pct": 0.1, "s_per_instance": 0.2},
        {"resolution": {"nx": 128}, "rel_l2_pct": 0.01, "s_per_instance": 0.5},
    ]
    assert match_solver(0.5, ladder) == (ladder[1], MATCHED)
    assert match_solver(2.0, ladder) == (ladder[0], UPPER_BOUND)
    assert match_solver(0.001, ladder) == (ladder[2], LOWER_BOUND)


def test_tables_average_trained_seeds_and_count_the_stopped_ones():
    runs_ = pd.DataFrame([
        {"problem": "p", "method": "nsm", "seed": 0, "rel_l2_pct": 1.0, "s_per_iteration": 0.01,
         "train_s": 10.0, "inference_s_per_instance": 1e-3, "peak_memory_mb": 1.0,
         "projected_s": math.nan},
        {"problem": "p", "method": "nsm", "seed": 1, "rel_l2_pct": 3.0, "s_per_iteration": 0.01,
         "train_s": 10.0, "inference_s_per_instance": 1e-3, "peak_memory_mb": 1.0,
         "projected_s": math.nan},
        {"problem": "p", "method": "big", "seed": 0, "rel_l2_pct": math.nan,
         "s_per_iteration": 1.0, "train_s": 3.0, "inference_s_per_instance": math.nan,
         "peak_memory_mb": 1.0, "projected_s": 1000.0},
    ])  # fmt: skip
    methods = {"nsm": {"label": "NSM", "kind": "spectral"}, "big": {"label": "B", "kind": "grid"}}
    errors = errors_table(runs_, {"p": ("zero", 100.0)}, problems={"p": {"iterations": 100}},
                          methods=methods, published={"values": {"p": {"nsm": 0.5}}})  # fmt: skip
    nsm, big, none = (errors.set_index("method").loc[k] for k in ("nsm", "big", "no_learning"))
    assert (nsm["rel_l2_pct_mean"], nsm["rel_l2_pct_std"]) == (2.0, 1.0)  # population std
    assert nsm["published"] == 0.5 and bool(nsm["published_verified"])
    assert big["n_seeds"] == 0 and big["over_limit_seeds"] == 1
    assert math.isnan(big["rel_l2_pct_mean"])
    assert none["rel_l2_pct_mean"] == 100.0
    ladder = {"p": [{"resolution": {"nx": 32}, "rel_l2_pct": 1.5, "s_per_instance": 0.05}]}
    speed = speed_table(errors, ladder, problems={"p": {}})
    row = speed[speed["method"] == "nsm"].iloc[0]
    # the one rung (1.5 %) is more accurate than the model (2 %): an upper bound
    assert row["speedup"] == pytest.approx(50.0) and row["solver_match"] == UPPER_BOUND
    assert (row["speedup_low"], row["speedup_high"]) == (0.0, pytest.approx(50.0))
    assert list(speed["method"]) == ["solver", "nsm"]  # the stopped method has no row
