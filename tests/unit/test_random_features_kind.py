"""The random-features kind's config: bad entries and preset keys that are not sizes fail
at DAG build naming the file and key; job counts, targets, the jobs' parameters and
cost model."""

import pytest
import yaml

from pderepro.config import ConfigError
from pderepro.studies import make_plan
from pderepro.studies import random_features as kind
from tests.unit.configs import set_key
from tests.unit.test_config import BASE, _study_dir, resolve

STUDY = "rann"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("dimensions.d3.C", 1.0, "outside the box"),
        ("dimensions.d2.t", [2.0, 1.0], "t0 < t1"),
        ("dimensions.d2.t", [0.0, 1.0], "minimum of 0"),
        ("dimensions.d1.m", 1.0, "minimum of 1"),
        ("n_features", [64, 16, 32], "not ascending"),
        ("slope.sizes", 12, "more than n_features has"),
        ("samples_per_feature", 1, "samples_per_feature"),
        ("features.activation", "relu", "activation"),
        ("features.cond", 2.0, "cond"),
        ("target", "heat_kernel", "target"),
    ],
)
def test_bad_entries_fail_naming_the_file_and_key(tmp_path, path, value, message):
    config_dir = _study_dir(tmp_path, set_key(path, value), name=STUDY)
    with pytest.raises(ConfigError, match=message) as err:
        resolve({**BASE, "preset": "smoke", "studies": [STUDY]}, config_dir=config_dir)
    text = str(err.value)
    assert f"{STUDY}.yaml" in text and f"'study.{STUDY}.{path}" in text


@pytest.mark.parametrize(
    ("sizes", "key"),
    [
        ({"features": {"weight_scale": 1.0}}, "features"),
        ({"dimensions": {"d1": {"C": 0.01}}}, "dimensions"),
        ({"slope": {"confidence": 0.9}}, "slope.confidence"),
        ({"samples_per_feature": 4}, "samples_per_feature"),
    ],
)
def test_a_preset_may_set_sizes_only(tmp_path, sizes, key):
    """The target, the feature law, the sampling factor and the interval's coverage are
    the science; N, test points, seeds and the fit window are sizes."""
    config_dir = _study_dir(tmp_path, lambda study: None, name=STUDY)
    path = config_dir / "presets/quick.yaml"
    preset = yaml.safe_load(path.read_text())
    preset[STUDY] = sizes
    path.write_text(yaml.safe_dump(preset))
    with pytest.raises(ConfigError, match=rf"'{STUDY}.{key}' is not a size"):
        resolve({**BASE, "preset": "smoke", "studies": [STUDY]}, config_dir=config_dir)


def test_a_preset_sets_the_sizes(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: None, name=STUDY)
    path = config_dir / "presets/quick.yaml"
    preset = yaml.safe_load(path.read_text())
    preset[STUDY] = {"n_features": [8, 16, 32], "n_test": 256, "seeds": 2,
                     "slope": {"sizes": 2}}  # fmt: skip
    path.write_text(yaml.safe_dump(preset))
    config = resolve({**BASE, "preset": "quick", "studies": [STUDY]}, config_dir=config_dir)
    study = config["study"][STUDY]
    assert study["n_features"] == [8, 16, 32] and study["slope"]["sizes"] == 2
    assert study["slope"]["confidence"] == 0.95  # the study's (defaults filled)
    plan = make_plan(config)
    counts = plan.job_counts()
    assert counts["fit_random_features"] == len(study["dimensions"]) * 2 == 10
    assert counts["random_features_tables"] == 1 and counts["plot_random_features"] == 1
    assert kind.metric_files(plan, STUDY)[:2] == [
        "results/rann/d1/seed0/metrics.csv", "results/rann/d1/seed1/metrics.csv",
    ]  # fmt: skip


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_job_counts_targets_and_parameters(preset):
    config = resolve({**BASE, "preset": preset, "studies": [STUDY]})
    plan = make_plan(config)
    study = config["study"][STUDY]
    counts = plan.job_counts()
    assert counts["fit_random_features"] == 5 * study["seeds"] == len(kind.runs(study))
    assert counts["random_features_tables"] == 1 and counts["plot_random_features"] == 1
    targets = plan.targets()
    for name in ("errors", "slopes"):
        assert f"results/rann/tables/{name}.csv" in targets
    assert "results/rann/figures/error_vs_features.pdf" in targets
    assert set(kind.KIND.claim_tables(STUDY, study)) == {"errors", "slopes"}
    assert kind.dimension_keys(plan) == ["d1", "d2", "d3", "d4", "d5"]
    params = kind.fit_params(plan, STUDY, "d3")
    assert params["dimension"]["d"] == 3 and params["n_features"] == study["n_features"]
    assert kind.n_samples(study, 100) == int(study["samples_per_feature"] * 100)
    assert kind.fit_runtime(plan, STUDY) >= 5 and kind.fit_mem_mb(plan, STUDY) >= 1000
    assert len(kind.KIND.benchmarks(STUDY, study)) == counts["fit_random_features"]
    section = kind.KIND.summary(STUDY, study, preset)
    assert [t["path"] for t in section.report_tables] == [
        "results/rann/tables/slopes.csv", "results/rann/tables/errors.csv",
    ]  # fmt: skip
    assert f"preset {preset}" in section.report_tables[0]["caption"]


def test_the_cost_model_grows_with_the_sizes():
    small = {"dimensions": {"d1": {"d": 1}}, "n_features": [16, 64], "samples_per_feature": 8,
             "n_test": 1000}  # fmt: skip
    large = {**small, "n_features": [1024, 8192]}
    assert kind._fit_seconds(large) > 1000 * kind._fit_seconds(small)


def test_the_stages_fit_tabulate_and_plot_a_tiny_study(tmp_path):
    """Two dimensions x two seeds at tiny sizes through the stage functions: finite
    metrics, both tables with the no-learning rows, the figure."""
    import pandas as pd

    from pderepro.stages.random_features import (
        run_fit_random_features,
        run_plot_random_features,
        run_random_features_tables,
    )

    config = resolve({**BASE, "preset": "smoke", "studies": [STUDY]})
    plan = make_plan(config)
    metrics = []
    for key in ("d1", "d3"):
        settings = {**kind.fit_params(plan, STUDY, key), "n_features": [4, 8, 16],
                    "n_test": 256}  # fmt: skip
        for seed in (0, 1):
            metrics.append(str(tmp_path / f"{key}-{seed}.csv"))
            run_fit_random_features(output=metrics[-1], dimension_key=key, seed=seed,
                                    settings=settings)  # fmt: skip
    again = tmp_path / "again.csv"
    run_fit_random_features(output=str(again), dimension_key="d3", seed=1, settings=settings)
    # the same seed, the same numbers (wall times aside)
    first = pd.read_csv(tmp_path / "d3-1.csv").drop(columns="fit_s")
    pd.testing.assert_frame_equal(pd.read_csv(again).drop(columns="fit_s"), first)
    params = {**kind.tables_params(plan, STUDY), "dimensions": {"d1": "d = 1", "d3": "d = 3"},
              "slope": {**config["study"][STUDY]["slope"], "sizes": 3}}  # fmt: skip
    outputs = {f"{t}_{e}": str(tmp_path / f"{t}.{e}") for t in kind.TABLES for e in ("csv", "md")}
    run_random_features_tables(metrics=metrics, outputs=outputs, **params)
    errors, slopes = pd.read_csv(outputs["errors_csv"]), pd.read_csv(outputs["slopes_csv"])
    assert len(errors) == 2 * 4 and (errors["model"] == "no_learning").sum() == 2
    assert errors["rel_l2_mean"].notna().all() and (errors["n_seeds"] == 2).all()
    assert list(slopes["dimension"]) == ["d1", "d3"] and slopes["slope"].notna().all()
    assert "preset smoke" in (tmp_path / "slopes.md").read_text()
    figure = {"png": str(tmp_path / "f.png"), "pdf": str(tmp_path / "f.pdf")}
    run_plot_random_features(metrics=metrics, slopes=outputs["slopes_csv"], outputs=figure,
                             title="t", dimensions=params["dimensions"],
                             reference=-0.5)  # fmt: skip
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.pdf").stat().st_size > 0
