"""The physics-informed kind's config: names that are not registered, figure and method
entries naming no problem or method, and preset keys that are not sizes fail at DAG
build naming the file and key; job counts and per-problem method overrides."""

import pytest

from pderepro.config import ConfigError
from pderepro.studies import make_plan
from pderepro.studies.physics_informed import run_settings, runs
from tests.unit.configs import edit_preset, set_key
from tests.unit.test_config import BASE, ROOT, _study_dir, resolve, resolve_with_preset_sizes

STUDY = "r3_sampling"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("problems.convection.problem", "burgers_typo", "not a registered problem"),
        ("methods.r3.sampler", "r4", "not a registered sampler"),
        ("methods.causal_pinn.weighting", "causual", "not a registered weighting"),
        ("methods.rar_g.problems", {"heat": {"sampler_options": {"add": 1}}}, "no such problem"),
        ("figures.failure_problem", "heat", "not a problem"),
        ("figures.failure_methods", ["pinn_fixed", "r4"], "not a method"),
        ("problems.convection.training.iterations", 0, "nothing to train"),
        ("problems.convection.network.embedding", "wavelets", "embedding"),
        ("problems.convection.network.gaussians", 10, "gaussians"),
        (
            "methods.r3.network",
            {"architecture": "pig", "gaussians": 8, "embedding": "none"},
            "embedding",
        ),
        ("methods.r3.training", {"iterations": 10}, "iterations"),
    ],
)
def test_bad_entries_fail_naming_the_file_and_key(tmp_path, path, value, message):
    config_dir = _study_dir(tmp_path, set_key(path, value), name=STUDY)
    with pytest.raises(ConfigError, match=message) as err:
        resolve({**BASE, "preset": "smoke"}, config_dir=config_dir)
    assert f"{STUDY}.yaml" in str(err.value) and f"study.{STUDY}." in str(err.value)


@pytest.mark.parametrize(
    ("section", "sizes", "key"),
    [
        ("problems", {"convection": {"network": {"width": 10}}}, "problems.convection.network"),
        ("problems", {"convection": {"training": {"learning_rate": 1.0}}},
         "problems.convection.training.learning_rate"),
        ("problems", {"convection": {"losses": {"initial_weight": 1.0}}},
         "problems.convection.losses.initial_weight"),
        ("methods", {"rad": {"sampler_options": {"c": 1.0}}}, "methods.rad.sampler_options.c"),
    ],
)  # fmt: skip
def test_a_preset_may_set_sizes_only_down_to_the_inner_keys(tmp_path, section, sizes, key):
    """The network, the rate, the loss weights and a sampler's law are the science."""
    with pytest.raises(ConfigError, match=rf"'{STUDY}.{key}' is not a size"):
        resolve_with_preset_sizes(tmp_path, STUDY, {section: sizes})


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_job_counts_are_problems_times_methods_times_seeds(preset):
    config = resolve({**BASE, "preset": preset, "studies": [STUDY]})
    study = config["study"][STUDY]
    counts = make_plan(config).job_counts()
    assert counts["train_pinn"] == len(study["problems"]) * len(study["methods"]) * study["seeds"]
    assert counts["train_pinn"] == len(runs(study))
    assert counts["pinn_reference"] == len(study["problems"]) == 2
    assert counts["pinn_tables"] == 1
    assert counts["plot_pinn"] == 3  # error, propagation failure, predictions


def test_per_problem_method_overrides_merge_into_the_options():
    study = resolve({**BASE, "preset": "paper", "studies": [STUDY]})["study"][STUDY]
    convection = run_settings(study, "convection", "rar_g")["method"]
    allen_cahn = run_settings(study, "allen_cahn", "rar_g")["method"]
    assert convection["sampler_options"]["add"] == 10 and allen_cahn["sampler_options"]["add"] == 1
    assert allen_cahn["sampler_options"]["pool"] == convection["sampler_options"]["pool"]
    assert "problems" not in allen_cahn
    # the causal PINN's tolerance lasts at most a fifth of each problem's Adam budget
    causal = run_settings(study, "convection", "causal_pinn")["method"]["weighting_options"]
    assert causal["steps_per_tolerance"] == 300_000 // 5
    assert "budget_share_per_tolerance" not in causal
    paper = study["problems"]["convection"]["training"]
    assert paper["iterations"] == 300_000 and study["seeds"] == 3
    assert (ROOT / "config/studies/r3_sampling.yaml").exists()


def test_a_method_brings_its_own_network_and_rate_with_per_problem_sizes():
    """PIG replaces the problem's MLP with its Gaussians (sizes per problem); the PINN keeps
    the problem's MLP with the MLP's defaults; rates merge, iterations never differ."""
    study = resolve({**BASE, "preset": "quick", "studies": ["pig"]})["study"]["pig"]
    pig = run_settings(study, "klein_gordon", "pig")["problem"]
    pinn = run_settings(study, "klein_gordon", "pinn")["problem"]
    assert pig["network"]["architecture"] == "pig"
    assert (pig["network"]["gaussians"], pig["network"]["sigma0"]) == (100, 0.5)
    assert pinn["network"] == {"architecture": "mlp", "width": 64, "depth": 4, "embedding": "none",
                               "features": 0, "sigma": 1.0, "scale_inputs": True}  # fmt: skip
    assert (pig["training"]["learning_rate"], pinn["training"]["learning_rate"]) == (1e-2, 1e-3)
    assert pig["training"]["iterations"] == pinn["training"]["iterations"] == 1000
    helmholtz = run_settings(study, "helmholtz", "pig")["problem"]
    assert helmholtz["network"]["gaussians"] == 200  # quick's, per problem
    assert helmholtz["training"]["iterations"] == 0 and helmholtz["training"]["lbfgs_iterations"]


@pytest.mark.parametrize(
    ("sizes", "accepted"),
    [({"gaussians": 50}, True), ({"sigma0": 0.3}, False)],
)
def test_a_preset_sizes_a_methods_network_per_problem_and_nothing_else(tmp_path, sizes, accepted):
    config_dir = _study_dir(tmp_path, lambda study: None, name="pig")
    edit_preset(config_dir, set_key("pig.methods.pig.problems.helmholtz.network", sizes))
    if accepted:
        study = resolve({**BASE, "studies": ["pig"]}, config_dir=config_dir)["study"]["pig"]
        assert run_settings(study, "helmholtz", "pig")["problem"]["network"]["gaussians"] == 50
    else:
        with pytest.raises(
            ConfigError, match=r"pig\.methods\.pig\.problems\.helmholtz\.network\.sigma0"
        ):
            resolve({**BASE, "studies": ["pig"]}, config_dir=config_dir)


@pytest.mark.parametrize(
    ("preset", "dimensions"),
    [("smoke", [10, 100]), ("quick", [10, 100, 1000]), ("paper", [100, 1000, 10**4, 10**5])],
)
def test_sdgd_presets_run_their_dimensions_and_the_paper_asks_for_gpus(preset, dimensions):
    """Each preset runs its own dimensions (run: false leaves the others out of every
    rule); the paper's runs ask the scheduler for a GPU, each capped by the time limit."""
    from pderepro.studies import physics_informed_inputs as inputs
    from pderepro.studies.physics_informed import active_problems

    config = resolve({**BASE, "preset": preset, "studies": ["sdgd"]})
    plan = make_plan(config)
    study = config["study"]["sdgd"]
    active = active_problems(study)
    assert sorted({spec["parameters"]["dimension"] for spec in active.values()}) == dimensions
    assert len(active) == 2 * len(dimensions)
    counts = plan.job_counts()
    assert counts["train_pinn"] == len(active) * 2 * study["seeds"] == len(runs(study))
    assert counts["pinn_reference"] == len(active) and counts["pinn_scaling"] == 1
    assert counts["plot_pinn"] == 2  # the error and the scaling figures, no predictions
    largest = f"poisson_d{dimensions[-1]}"
    wildcards = {"study": "sdgd", "problem": largest, "method": "pinn"}
    assert inputs.train_gpus(plan, **wildcards) == (preset == "paper")
    limit_minutes = 10 + 3 * study["time_limit_s"] / 60
    assert inputs.train_runtime(plan, **wildcards) <= limit_minutes
    sdgd = run_settings(study, largest, "sdgd")["problem"]["parameters"]
    assert sdgd["sampled_dims"] == 4
    assert "sampled_dims" not in study["problems"][largest]["parameters"]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("figures", {}, "predictions"),
        ("problems.poisson_d10.reference_grid", {"nx": 10}, "exactly one"),
        ("scaling", {"parameter": "radius"}, "family and the parameter"),
    ],
)
def test_bad_sdgd_entries_fail_naming_the_key(tmp_path, path, value, message):
    config_dir = _study_dir(tmp_path, set_key(path, value), name="sdgd")
    with pytest.raises(ConfigError, match=message) as err:
        resolve({**BASE, "preset": "smoke", "studies": ["sdgd"]}, config_dir=config_dir)
    assert "sdgd.yaml" in str(err.value)
