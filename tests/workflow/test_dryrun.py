"""Dry runs plan the expected jobs per preset; lint and formatting are clean."""

import subprocess
import sys

import pytest

from pderepro.plan import parse_dry_run
from pderepro.studies import repository_plan
from tests.workflow import dry_runs
from tests.workflow.helpers import (
    ROOT,
    copy_workflow,
    declared_resources,
    planned_jobs,
    snakemake,
)

FNO_AND_L96 = ["fno_burgers", "fno_darcy", "fno_navier_stokes", "l96_closures"]


def _plan(preset, studies=None):
    """The plan of the shipped config at ``preset``, built by the real config loader."""
    return repository_plan(ROOT, preset, studies)


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_dry_run_plans_the_jobs_the_kinds_count(preset):
    """Snakemake's DAG and the kinds' own accounting (pderepro.studies) agree."""
    result, _ = dry_runs.result(f"all_{preset}")
    assert result.returncode == 0, result.stderr
    assert planned_jobs(result.stdout + result.stderr) == dict(_plan(preset).job_counts())


def test_default_studies_are_every_study_file():
    """The first Quick start command builds every study (issue 30)."""
    shipped = sorted(path.stem for path in (ROOT / "config/studies").glob("*.yaml"))
    assert sorted(_plan("smoke").config["studies"]) == shipped


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_turbulence_study_dry_run_plans_the_jobs_the_kind_counts(preset):
    """les_turbulence alone: two cases (k_f = 4 and its beta plane), six
    closures, each fitted once and scored offline and online in both."""
    result, _ = dry_runs.result(f"turbulence_{preset}")
    assert result.returncode == 0, result.stderr
    counts = _plan(preset, ["les_turbulence"]).job_counts()
    assert planned_jobs(result.stdout + result.stderr) == dict(counts)
    assert counts["generate_truth"] == 2 * 2 and counts["fit_closure"] == 6


def test_paper_plan_has_the_papers_sizes():
    """A hand count of the paper preset, so that a kind's accounting cannot drift unseen:
    Burgers 6 resolutions x 3 seeds x 3 models, Darcy 4 x 1 x 3, Navier-Stokes 4 regimes
    x 4 models; 744 generation shards (100, 50 and 20 samples each; train, validation and
    test splits); the references."""
    counts = _plan("paper", FNO_AND_L96).job_counts()
    assert counts["train_model"] == 54 + 12 + 16
    # train + validation + test shards: Burgers, Darcy, the 4 regimes (a one-shard split,
    # Burgers' validation and test and super-resolution's test, is generated whole by its
    # assemble_split job)
    assert counts["generate_shard"] == 10 + 24 + 65 + 65 + 515 + 65
    assert counts["assemble_split"] == 3 + 3 + 3 * 4 + 1
    # no-learning references: Burgers heat at 6 resolutions, Darcy training mean at 4,
    # Navier-Stokes persistence, linear extrapolation and training mean in 4 regimes
    assert counts["evaluate_baseline"] == 6 + 4 + 3 * 4
    # the solver timed at every training resolution, one cost table per trained study
    assert counts["time_solver"] == 6 + 4 + 4 and counts["cost_table"] == 3
    # trainings longer than a 24-hour job, on the default GPU model: Navier-Stokes at
    # N = 10000 in 7 segments (6 before the last) and at nu = 1e-3 in 2, Darcy at 421 in 2
    assert counts["train_segment"] == 4 * 6 + 4 * 1 + 3 * 1
    assert sum(counts.values()) == 1025 + 31  # with rules claims and all


def test_claims_rule_is_planned_by_default():
    """`snakemake` with no arguments builds results/claims.csv from the claimed tables."""
    result, _ = dry_runs.result("all_smoke")
    assert result.returncode == 0, result.stderr
    assert planned_jobs(result.stdout + result.stderr)["claims"] == 1
    plan = _plan("smoke")
    assert {"results/claims.csv", "results/claims.md"} <= set(plan.targets())
    # the rule waits for every table an active claim reads
    assert _plan("smoke").claims_inputs() == [
        "results/l96_closures/tables/online.csv",
        "results/les_turbulence/tables/online.csv",
        "results/sw_closures/tables/online.csv",  # its stability and conservation claims
    ]
    assert set(_plan("quick").claims_inputs()) >= {
        "results/fno_burgers/tables/resolution.csv",
        "results/l96_closures/tables/online.csv",
        "results/r3_sampling/tables/errors.csv",
    }


@pytest.mark.parametrize("key", sorted(dry_runs.BAD_CONFIG))
def test_bad_config_fails_before_any_job_and_writes_nothing(key):
    result, workdir = dry_runs.result(f"bad_{key}")
    assert result.returncode != 0
    assert f"config key '{key}'" in result.stderr
    assert not (workdir / "results").exists() and not (workdir / "data").exists()


def test_a_malformed_study_file_not_enabled_fails_before_any_job():
    """Every study file is checked at DAG build, enabled or not (issue 29): the run enables
    fno_burgers only, and les_turbulence's file holds the malformed value."""
    result, workdir = dry_runs.result("malformed_les")
    assert result.returncode != 0
    assert (
        "config/studies/les_turbulence.yaml: config key "
        "'study.les_turbulence.coarse.time_step'" in result.stderr
    ), result.stderr
    assert not (workdir / "results").exists() and not (workdir / "data").exists()


def test_snakemake_lint_is_clean():
    result, _ = dry_runs.result("lint")
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


def _paper_jobs():
    result, _ = dry_runs.result("all_paper")
    assert result.returncode == 0, result.stderr
    return list(parse_dry_run(result.stdout))


def test_paper_step_runs_fit_the_longest_cluster_job_in_segments():
    """PIG's runs of 2-18 days on a CPU core (Allen-Cahn's Adam, Helmholtz's L-BFGS) run as
    train_pinn_segment jobs, NSM's grid-PINN runs (up to 3.7 days on a GPU) as
    train_nsm_segment jobs, and every job of both kinds fits the longest job."""
    limit = _plan("paper").config["cluster"]["max_job_minutes"]
    rules = ("train_pinn", "train_pinn_segment", "train_nsm", "train_nsm_segment")
    jobs = [j for j in _paper_jobs() if j.rule in rules]
    pig = {j.wildcards["problem"] for j in jobs if j.rule == "train_pinn_segment"}
    assert {"allen_cahn", "helmholtz"} <= pig
    assert any(j.rule == "train_nsm_segment" for j in jobs)
    assert max(j.minutes for j in jobs) <= limit


def test_paper_trainings_fit_the_longest_cluster_job():
    """Every FNO-family training job (segments included) asks for at most the default
    cluster's longest job (24 h), and a segmented one for GPUs like the rest."""
    limit = _plan("paper").config["cluster"]["max_job_minutes"]
    training = [j for j in _paper_jobs() if j.rule in ("train_model", "train_segment")]
    assert any(j.rule == "train_segment" for j in training)
    assert max(j.minutes for j in training) <= limit
    assert all(j.gpus == 1 for j in training)


def test_paper_dns_truth_runs_fit_the_longest_cluster_job_in_segments():
    """The LES study's DNS truth runs (up to 22 days on a core) run as generate_truth_segment
    jobs, each of a run's jobs reading the one before, the last reading them all."""
    limit = _plan("paper").config["cluster"]["max_job_minutes"]
    jobs = [j for j in _paper_jobs() if j.rule in ("generate_truth", "generate_truth_segment")]
    segments = [j for j in jobs if j.rule == "generate_truth_segment"]
    assert {j.wildcards["study"] for j in segments} == {"les_turbulence"}
    assert max(j.minutes for j in jobs) <= limit


def test_every_paper_job_fits_the_longest_cluster_job():
    limit = _plan("paper").config["cluster"]["max_job_minutes"]
    over = [(j.rule, j.minutes) for j in _paper_jobs() if j.minutes > limit]
    assert not over, over
