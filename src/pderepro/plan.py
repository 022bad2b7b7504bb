"""What a preset will cost before anything is submitted: ``python -m pderepro.plan``.

Runs Snakemake's dry run of the checkout's workflow at a preset (``--config`` as the
workflow takes it) and sums, per study, the jobs' declared resources: jobs, CPU-hours
(``runtime`` of jobs without GPUs), GPU-hours (``runtime`` x ``gpu``), the largest
memory request, the longest job against the cluster's ``max_job_minutes``, the raw data
the study's datasets hold, and a lower bound on the time to finish on N GPUs (the GPU
hours spread over N, or the longest job, whichever is longer). The resources are the
cost models' estimates (``pderepro.resources``, the kinds' input functions), with their
margin: a plan, not a measurement.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pderepro.config import load_yaml
from pderepro.data.specs import dataset_spec
from pderepro.studies import Plan, make_plan, resolve_config

_JOB = re.compile(r"^(?:local)?rule (\w+):$")
_FIELD = re.compile(r"^\s+(wildcards|resources): (.*)$")


@dataclass(frozen=True)
class Job:
    """One planned job: its rule, wildcards and declared resources."""

    rule: str
    wildcards: Mapping[str, str]
    resources: Mapping[str, str]

    @property
    def minutes(self) -> int:
        return int(self.resources.get("runtime", 0))

    @property
    def gpus(self) -> int:
        return int(self.resources.get("gpu", 0))

    @property
    def mem_mb(self) -> int:
        return int(self.resources.get("mem_mb", 0))


def _pairs(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(", ") if "=" in part)


def parse_dry_run(text: str) -> Iterator[Job]:
    """The jobs of ``snakemake -n``'s output."""
    rule, fields = None, {}
    for line in [*text.splitlines(), ""]:
        start = _JOB.match(line)
        if start or not line.strip():
            if rule is not None:
                yield Job(rule, _pairs(fields.get("wildcards", "")),
                          _pairs(fields.get("resources", "")))  # fmt: skip
            rule, fields = (start.group(1), {}) if start else (None, {})
            continue
        field = _FIELD.match(line)
        if field and rule is not None:
            fields[field.group(1)] = field.group(2)


def _dataset_studies(plan: Plan) -> dict[str, str]:
    """The study each dataset serves (its first, where two share one)."""
    out: dict[str, str] = {}
    for name, study in plan.studies.items():
        for dataset in plan.kind(name).datasets(name, study):
            out.setdefault(dataset, name)
    for unit, spec in plan.units.items():
        out.setdefault(spec["dataset"]["name"], unit.split("/")[0])
    return out


def _data_gb(plan: Plan, study: str, owners: Mapping[str, str]) -> float:
    """Raw data of the study's datasets (GB, every split), from the specs' size model."""
    total = 0.0
    for name, cfg in plan.datasets.items():
        if owners.get(name) == study:
            spec = dataset_spec(cfg["solver"])
            splits = [s for s in ("train", "validation", "test") if f"n_{s}" in cfg]
            total += sum(spec.split_mb(cfg, s) for s in splits) / 1e3
    return total


def summarise(jobs: list[Job], plan: Plan, gpus_available: int) -> list[dict[str, Any]]:
    """One row per study (and ``workflow`` for jobs of no study), then ``all``."""
    owners = _dataset_studies(plan)
    by_study: dict[str, list[Job]] = defaultdict(list)
    for job in jobs:
        if job.rule == "all":
            continue
        study = job.wildcards.get("study", "").split("/")[0] or owners.get(
            job.wildcards.get("dataset", ""), "workflow"
        )
        by_study[study].append(job)
    limit = plan.config["cluster"]["max_job_minutes"]
    rows = []
    for study, mine in [*sorted(by_study.items()), ("all", [j for j in jobs if j.rule != "all"])]:
        gpu_hours = sum(j.minutes * j.gpus for j in mine) / 60
        longest = max(mine, key=lambda j: j.minutes)
        rows.append({
            "study": study,
            "jobs": len(mine),
            "cpu_hours": round(sum(j.minutes for j in mine if not j.gpus) / 60, 1),
            "gpu_hours": round(gpu_hours, 1),
            "peak_mem_gb": round(max(j.mem_mb for j in mine) / 1e3, 1),
            "longest_job_h": round(longest.minutes / 60, 1),
            "longest_rule": longest.rule,
            "over_limit": sum(j.minutes > limit for j in mine),
            "data_gb": round(sum(_data_gb(plan, s, owners) for s in (
                plan.studies if study == "all" else [study]) if s in plan.studies), 1),
            f"gpu_days_on_{gpus_available}": round(
                max(gpu_hours / gpus_available, max((j.minutes for j in mine if j.gpus),
                                                    default=0) / 60) / 24, 1),
        })  # fmt: skip
    return rows


def _markdown(rows: list[dict[str, Any]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[k]) for k in head) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pderepro.plan", description=__doc__)
    parser.add_argument("--preset", default="paper")
    parser.add_argument("--gpus", type=int, default=8, help="GPUs for the time to finish")
    parser.add_argument("--root", type=Path, default=Path("."), help="the checkout")
    parser.add_argument("--config", nargs="*", default=[], help="more --config for snakemake")
    args = parser.parse_args(argv)
    config = [f"preset={args.preset}", *args.config]
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--forceall", "--config", *config],
        cwd=args.root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if dry.returncode != 0:
        print(dry.stdout[-2000:] + dry.stderr[-3000:], file=sys.stderr)
        return dry.returncode
    top = {**load_yaml(args.root / "config" / "config.yaml"), "preset": args.preset}
    for item in args.config:  # the same overrides as the dry run
        key, value = item.split("=", 1)
        top[key] = load_yaml_text(value)
    schema = args.root / "workflow" / "schemas" / "config.schema.yaml"
    plan = make_plan(resolve_config(top, config_dir=args.root / "config", schema_path=schema))
    rows = summarise(list(parse_dry_run(dry.stdout)), plan, args.gpus)
    limit = plan.config["cluster"]["max_job_minutes"]
    print(
        f"Plan of preset {args.preset} (every job, as if nothing were built; time limits "
        f"with the cost models' margin; the longest job a cluster takes: {limit} min):\n"
    )
    print(_markdown(rows))
    return 0


def load_yaml_text(text: str) -> Any:
    """A ``--config`` value as YAML reads it."""
    import yaml

    return yaml.safe_load(text)


if __name__ == "__main__":
    raise SystemExit(main())
