"""Dry runs plan the expected jobs per preset; lint and formatting are clean."""

import subprocess
import sys

import pytest

from tests.workflow.helpers import (
    ROOT,
    copy_workflow,
    declared_resources,
    planned_jobs,
    snakemake,
)


def _expected(n_train_shards, n_test_shards, resolutions, seeds, models=3, baselines=1):
    runs = models * resolutions * seeds
    setups, closures = 4, 5  # l96_closures: F20, F16, F18, F24; none .. fno
    return {
        "generate_truth": 2 * setups,  # a pairs and a climate run per setup
        "coarse_grain": setups,
        "fit_closure": closures,
        "evaluate_offline": closures,
        "evaluate_online": closures,
        "truth_floor": 1,
        "closure_tables": 1,
        "plot_closures": 1,
        "generate_shard": n_train_shards + n_test_shards,
        "merge_shards": 2,
        "preprocess": resolutions,
        "train_model": runs,
        "evaluate_model": runs,
        "evaluate_baseline": baselines * resolutions,
        "make_table": 1,
        "plot_resolution": 1,
        "plot_samples": 1,
        "validate_solvers": 1,
        "summary": 1,
        "all": 1,
    }


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("smoke", _expected(2, 1, resolutions=2, seeds=1)),
        ("quick", _expected(2, 1, resolutions=3, seeds=2)),
        ("paper", _expected(10, 1, resolutions=6, seeds=3)),
    ],
)
def test_dry_run_plans_every_job(tmp_path, preset, expected):
    result = snakemake("-n", "--config", f"preset={preset}", cwd=copy_workflow(tmp_path))
    assert result.returncode == 0, result.stderr
    assert planned_jobs(result.stdout + result.stderr) == expected


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("preset=papr", "preset"),
        ("studies=[fno_burger]", "studies.0"),
        ("verification=maybe", "verification"),
        ("epochs=3", "epochs"),
    ],
)
def test_bad_config_fails_before_any_job_and_writes_nothing(tmp_path, override, key):
    result = snakemake("--cores", "1", "--config", override, cwd=copy_workflow(tmp_path))
    assert result.returncode != 0
    assert f"config key '{key}'" in result.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "data").exists()


def test_snakemake_lint_is_clean():
    result = snakemake("--lint", "--config", "preset=smoke")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr


def test_snakefmt_is_clean():
    files = ["Snakefile", *map(str, sorted((ROOT / "workflow/rules").glob("*.smk")))]
    result = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "workflow/scripts", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_closure_jobs_declare_resources_that_grow_with_the_preset(tmp_path):
    workdir = copy_workflow(tmp_path)
    declared = {}
    for preset in ("smoke", "paper"):
        config = (f"preset={preset}", "studies=[l96_closures]", "verification=False")
        result = snakemake("-n", "--config", *config, cwd=workdir)
        assert result.returncode == 0, result.stderr
        declared[preset] = declared_resources(result.stdout)
    for rule in ("generate_truth", "coarse_grain", "fit_closure", "evaluate_online"):
        small, large = declared["smoke"][rule], declared["paper"][rule]
        assert max(j["mem_mb"] for j in large) > max(j["mem_mb"] for j in small), rule
    # a paper pairs run holds 10 x 2000 time units of X and Y in float32 (about 4 GB)
    assert max(j["mem_mb"] for j in declared["paper"]["generate_truth"]) > 8000
    assert max(j["runtime"] for j in declared["paper"]["evaluate_online"]) > 60
