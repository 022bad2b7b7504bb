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


def _expected(burgers, darcy, navier_stokes):
    """Jobs of the default studies. ``burgers``/``darcy``: (train shards, test shards,
    resolutions, seeds); ``navier_stokes``: [(train shards, test shards)] per run regime
    and the super-resolution test shards (one resolution, one seed, four models)."""
    setups, closures = 4, 5  # l96_closures: F20, F16, F18, F24; none .. fno
    jobs = {
        "generate_truth": 2 * setups,  # a pairs and a climate run per setup
        "coarse_grain": setups,
        "fit_closure": closures,
        "evaluate_offline": closures,
        "evaluate_online": closures,
        "truth_floor": 1,
        "closure_tables": 1,
        "plot_closures": 1,
        "validate_solvers": 1,
        "summary": 1,
        "all": 1,
    }
    (b_train, b_test, b_res, b_seeds), (d_train, d_test, d_res, d_seeds) = burgers, darcy
    regimes, superres_shards = navier_stokes
    runs = 3 * b_res * b_seeds + 3 * d_res * d_seeds + 4 * len(regimes)
    jobs.update(
        {
            "generate_shard": b_train
            + b_test
            + d_train
            + d_test
            + sum(train + test for train, test in regimes)
            + superres_shards,
            "merge_shards": 2 + 2 + 2 * len(regimes) + 1,
            "preprocess": b_res + d_res + len(regimes),
            "train_model": runs,
            "evaluate_model": runs,
            "evaluate_baseline": b_res,  # heat, Burgers only
            "make_table": 2,
            "plot_resolution": 2,
            "plot_samples": 2,
            "regimes_table": 1,
            "plot_error_vs_time": 1,
            "evaluate_superresolution": 1,
            "plot_superresolution": 1,
        }
    )
    return jobs


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("smoke", _expected((2, 1, 2, 1), (1, 1, 2, 1), ([(1, 1)], 1))),
        ("quick", _expected((2, 1, 3, 2), (2, 1, 2, 1), ([(1, 1)], 1))),
        # Navier-Stokes: nu=1e-3, 1e-4 (N=1000 and N=10000), 1e-5; 20 samples per shard
        (
            "paper",
            _expected((10, 1, 6, 3), (20, 2, 4, 1), ([(50, 10), (50, 10), (500, 10), (50, 10)], 1)),
        ),
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
