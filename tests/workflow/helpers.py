"""Running Snakemake from tests: bounded in time, in a copy of the workflow."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_FILES = ["Snakefile", "workflow", "config", "envs"]


def copy_workflow(target: Path) -> Path:
    """Copy what Snakemake needs (not data or results) into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for name in WORKFLOW_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, target / name)
        else:
            shutil.copy2(src, target / name)
    return target


def snakemake(*args: str, cwd: Path = ROOT, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run ``python -m snakemake`` with a timeout, capturing output."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def declared_resources(output: str) -> dict[str, list[dict[str, int]]]:
    """``mem_mb`` and ``runtime`` (0 if absent) of every planned job, by rule, from a dry run."""
    jobs: dict[str, list[dict[str, int]]] = {}
    rule = None
    for line in output.splitlines():
        if line.strip().startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        if line.strip().startswith("resources:") and rule:
            values = dict(re.findall(r"(\w+)=([^,\s]+)", line))
            if "mem_mb" in values:
                jobs.setdefault(rule, []).append(
                    {"mem_mb": int(values["mem_mb"]), "runtime": int(values.get("runtime", 0))}
                )
    return jobs


def planned_jobs(output: str) -> dict[str, int]:
    """Job counts per rule from the "Job stats" table of a dry run."""
    block = output.split("Job stats:", 1)[1]
    counts = {}
    for line in block.splitlines()[3:]:
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not match:
            break
        counts[match.group(1)] = int(match.group(2))
    counts.pop("total", None)
    return counts


def replace_in_file(path: Path, old: str, new: str) -> str:
    """Replace ``old``, which must be there, by ``new`` in the file ``path``; returns the
    text before (to restore it)."""
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))
    return text


def planned_after_edit(workdir: Path, study: str, old: str, new: str) -> dict[str, int]:
    """Jobs a smoke dry run in ``workdir`` plans after replacing ``old`` by ``new`` in the
    study file of ``study`` (restored afterwards)."""
    path = workdir / f"config/studies/{study}.yaml"
    original = replace_in_file(path, old, new)
    try:
        result = snakemake("-n", "--config", "preset=smoke", cwd=workdir)
    finally:
        path.write_text(original)
    assert result.returncode == 0, result.stderr
    return planned_jobs(result.stdout)
