"""Where a finished run's time went, per study, from its Snakemake benchmark files.

Every benchmarked job (data generation, preprocessing, training, truth runs, closure
fits and online runs: the rules in ``pderepro.studies.base.BENCHMARKS``) is attributed to
the study whose kind lists it (``StudyKind.benchmarks``), and its wall time ``s`` and
CPU time ``cpu_time`` are summed per study and per rule. CPU time does not grow when
jobs share their cores, so it says what a run costs on free cores better than the wall
times of a loaded machine. Evaluation, tables and figures are not benchmarked and are
left out of the sums (they are in the run's total wall time).

Usage: ``python benchmarks/quick_run_breakdown.py RUN_DIR [--preset quick]`` where
``RUN_DIR`` is a checkout that ran the preset (its ``results/benchmarks`` is read).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import pandas as pd

from pderepro.studies import repository_plan


def _rule(path: str) -> str:
    return re.match(r"results/benchmarks/([^/]+)/", path).group(1)


def breakdown(root: Path, preset: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per study and per (study, rule): jobs, summed wall and CPU seconds."""
    plan = repository_plan(root, preset)
    rows = []
    files = {name: plan.kind(name).benchmarks(name, study) for name, study in plan.studies.items()}
    files["(solver verification)"] = [
        "results/benchmarks/validate_solvers/validate_solvers.tsv"
    ] if plan.config["verification"] else []  # fmt: skip
    missing = defaultdict(int)
    for study, paths in files.items():
        for path in dict.fromkeys(paths):
            tsv = root / path
            if not tsv.exists():
                missing[study] += 1
                continue
            last = pd.read_csv(tsv, sep="\t").iloc[-1]
            rows.append({"study": study, "rule": _rule(path), "wall_s": float(last["s"]),
                         "cpu_s": float(last["cpu_time"])})  # fmt: skip
    jobs = pd.DataFrame(rows)
    by_rule = jobs.groupby(["study", "rule"], sort=False).agg(
        jobs=("wall_s", "size"), wall_min=("wall_s", "sum"), cpu_min=("cpu_s", "sum")
    )
    by_study = jobs.groupby("study", sort=False).agg(
        jobs=("wall_s", "size"), wall_min=("wall_s", "sum"), cpu_min=("cpu_s", "sum")
    )
    for frame in (by_rule, by_study):
        frame[["wall_min", "cpu_min"]] /= 60
    by_study["missing"] = [missing[s] for s in by_study.index]
    by_study.loc["total"] = by_study.sum(numeric_only=True)
    return by_study, by_rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--preset", default="quick")
    args = parser.parse_args()
    by_study, by_rule = breakdown(args.root, args.preset)
    print("Benchmarked jobs per study (minutes summed over jobs; 2 cores halve the CPU sum):")
    print(by_study.to_markdown(floatfmt=".1f"))
    print("\nPer rule:")
    print(by_rule.to_markdown(floatfmt=".1f"))


if __name__ == "__main__":
    main()
