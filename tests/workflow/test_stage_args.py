"""Every rule runs workflow/scripts/stage.py, which calls the stage its params name with
the keyword arguments they give (``stage_params`` in workflow/rules/common.smk): checked
for every job of the smoke DAG (with trainings split into segments, so that
``train_segment`` has jobs too) against the stage functions' signatures, without running
a job."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

from pderepro import stages
from tests.workflow.helpers import copy_workflow

#: Builds the DAG through Snakemake's API and prints, for each job of a rule with a script,
#: its script, params, wildcards, files and threads (params evaluated as the job would).
PROBE = r"""
import json, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import (
    ConfigSettings, DAGSettings, OutputSettings, Quietness, ResourceSettings,
)

workdir = Path(sys.argv[1])
jobs, scripts = [], {}
with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
    workflow_api = api.workflow(
        resource_settings=ResourceSettings(cores=1),
        config_settings=ConfigSettings(config=json.loads(sys.argv[2])),
        snakefile=workdir / "Snakefile",
        workdir=workdir,
    )
    workflow_api.dag(DAGSettings(forceall=True))
    workflow = workflow_api._workflow
    workflow._prepare_dag(
        forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
    )
    workflow._build_dag()
    scripts = {rule.name: rule.script for rule in workflow.rules}
    for job in workflow.dag.jobs:
        if job.rule.script is None:
            continue
        params = job.params
        jobs.append({
            "rule": job.rule.name,
            "params": sorted(params.keys()),
            "stage": params.stage,
            "args": params.args,
            "settings": params.get("settings"),
            "wildcards": dict(job.wildcards_dict),
            "files": [str(f) for f in [*job.input, *job.output]],
            "threads": job.threads,
        })
print(json.dumps({"scripts": scripts, "jobs": jobs}, default=str))
"""

CONFIG = {"preset": "smoke", "cluster": {"min_segments": 2}}


@pytest.fixture(scope="module")
def dag(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("stage_args"))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(workdir), json.dumps(CONFIG)],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def test_every_rule_with_a_script_runs_the_stage_script(dag):
    assert set(dag["scripts"].values()) == {"../scripts/stage.py", None}
    assert [name for name, script in dag["scripts"].items() if script is None] == ["all"]
    # the DAG has a job of every such rule, so the tests below check them all
    assert {job["rule"] for job in dag["jobs"]} == {
        name for name, script in dag["scripts"].items() if script
    }


def _signature(name: str) -> inspect.Signature:
    return inspect.signature(getattr(stages, name))


def test_each_job_gives_its_stage_exactly_the_arguments_it_takes(dag):
    wrong = set()
    for job in dag["jobs"]:
        name, given = job["stage"], set(job["args"])
        if name not in stages._stage_modules():
            wrong.add((job["rule"], name, "is no stage"))
            continue
        parameters = _signature(name).parameters.values()
        takes = {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
        needs = {p.name for p in parameters if p.name in takes and p.default is p.empty}
        if not any(p.kind is p.VAR_KEYWORD for p in parameters) and given - takes:
            wrong.add((job["rule"], name, f"takes no {sorted(given - takes)}"))
        if needs - given:
            wrong.add((job["rule"], name, f"is not given {sorted(needs - given)}"))
    assert not wrong, sorted(wrong)


def _leaves(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def test_what_the_plan_gives_a_stage_is_in_its_rerun_trigger(dag):
    """Snakemake leaves ``args`` (a params function of the job's files and threads) out of
    its params rerun trigger: every argument that is not the job's own (a file, a
    wildcard's value, its threads, None) must come from ``settings``, a param of its own,
    so that a job reruns when the plan changes it."""
    wrong = set()
    for job in dag["jobs"]:
        settings = job["settings"] or {}
        wildcards = job["wildcards"].values()
        own = {*job["files"], *wildcards, job["threads"], None}
        own |= {int(value) for value in wildcards if value.isdigit()}
        for key, value in job["args"].items():
            if key in settings:
                assert settings[key] == value, (job["rule"], key)
            elif any(leaf not in own for leaf in _leaves(value)):
                wrong.add((job["rule"], key))
    assert not wrong, sorted(wrong)


def test_run_stage_names_the_closest_stages_of_an_unknown_one():
    with pytest.raises(ValueError, match="no stage 'run_tabel'.*run_table"):
        stages.run_stage("run_tabel", {})


def test_run_stage_calls_the_stage_with_its_arguments(monkeypatch):
    calls = []
    monkeypatch.setattr(stages, "run_table", lambda **kwargs: calls.append(kwargs) or "done")
    assert stages.run_stage("run_table", {"csv": "t.csv"}) == "done"
    assert calls == [{"csv": "t.csv"}]
