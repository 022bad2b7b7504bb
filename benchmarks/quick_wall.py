"""Where the quick preset's wall time goes: run it in a clean copy of the tree (or read a
finished run) and print, per study, the jobs, their CPU and wall seconds and the seconds
they spent starting up (interpreter and imports), then the total wall time, the jobs' CPU
against the cores' wall time (parallel efficiency) and Snakemake's own CPU.

Usage, from the repository root::

    python benchmarks/quick_wall.py                       # every study, a fresh copy
    python benchmarks/quick_wall.py --studies rann,sdgd   # a subset
    python benchmarks/quick_wall.py --from-run /path/to/finished/copy   # read only

Every job's log opens with its start-up seconds and ends with its wall and CPU seconds
(:data:`pderepro.runtime.STARTUP_LINE`, :data:`~pderepro.runtime.FINISH_LINE`); a job is
counted for the study its log path names (``results/logs/<rule>/<study or dataset>/...``;
a dataset is matched to the study whose name or dataset name it starts with). Each run
appends one row per study and a total row to ``benchmarks/results/quick_wall.csv`` with
the commit and the machine's cores. Compare two commits by running this on each on the
same machine, one after the other, and quoting the ratio of their totals.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STARTUP = re.compile(r"job start-up \(interpreter and imports\): ([0-9.]+) s")
FINISH = re.compile(r"job finished: wall ([0-9.]+) s, cpu ([0-9.]+) s")
RESULTS = ROOT / "benchmarks" / "results" / "quick_wall.csv"


def _commit(tree: Path) -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, text=True,
                         capture_output=True, check=False)  # fmt: skip
    return out.stdout.strip() or "unknown"


def _study_of(name: str, studies: dict[str, str]) -> str:
    """The study a log directory names: a study itself, or a dataset of one."""
    if name in studies:
        return name
    for study, dataset in studies.items():
        if name.startswith(study) or (dataset and name.startswith(dataset)):
            return study
    return "shared"


def _studies(tree: Path) -> dict[str, str]:
    """``{study: its dataset name or ""}`` from the tree's study files."""
    import yaml

    found = {}
    for path in sorted((tree / "config" / "studies").glob("*.yaml")):
        dataset = (yaml.safe_load(path.read_text()).get("dataset") or {}).get("name", "")
        found[path.stem] = dataset
    return found


def job_costs(tree: Path) -> dict[str, dict[str, float]]:
    """Per study: jobs, CPU, wall and start-up seconds, from the run's job logs."""
    studies = _studies(tree)
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for log in sorted((tree / "results" / "logs").rglob("*.log")):
        parts = log.relative_to(tree / "results" / "logs").parts
        study = _study_of(parts[1].removesuffix(".log") if len(parts) > 1 else parts[0],
                          studies)  # fmt: skip
        text = log.read_text(errors="replace")
        startup, finish = STARTUP.findall(text), FINISH.findall(text)
        row = totals[study]
        row["jobs"] += 1
        row["startup_s"] += sum(float(s) for s in startup)
        row["wall_s"] += sum(float(w) for w, _ in finish)
        row["cpu_s"] += sum(float(c) for _, c in finish)
        row["unaccounted_jobs"] += 0 if finish else 1
    return {k: dict(v) for k, v in sorted(totals.items())}


def run_quick(tree: Path, studies: str | None, cores: int) -> tuple[float, float]:
    """Run the quick preset in ``tree``; its wall seconds and the whole process tree's
    CPU seconds (Snakemake and every job)."""
    command = [str(Path(sys.executable).parent / "snakemake"), "--cores", str(cores)]
    if studies:
        command += ["--config", f"studies=[{studies}]"]
    before = os.times()
    start = time.monotonic()
    subprocess.run(command, cwd=tree, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    wall = time.monotonic() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--studies", help="comma-separated studies (default: every study)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--from-run", type=Path, help="a finished copy to read, not run")
    args = parser.parse_args()
    if args.from_run:
        tree, wall, cpu_all = args.from_run, float("nan"), float("nan")
    else:
        tree = Path(tempfile.mkdtemp(prefix="quick_wall-")) / "tree"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(tree)], check=True)
        wall, cpu_all = run_quick(tree, args.studies, args.cores)
    costs = job_costs(tree)
    print(f"{'study':<20} {'jobs':>5} {'cpu s':>9} {'wall s':>9} {'start-up s':>11}")
    for study, row in costs.items():
        print(f"{study:<20} {row['jobs']:>5.0f} {row['cpu_s']:>9.1f} {row['wall_s']:>9.1f} "
              f"{row['startup_s']:>11.1f}")  # fmt: skip
    jobs_cpu = sum(r["cpu_s"] for r in costs.values())
    jobs_wall = sum(r["wall_s"] for r in costs.values())
    startup = sum(r["startup_s"] for r in costs.values())
    print(f"{'all':<20} {sum(r['jobs'] for r in costs.values()):>5.0f} {jobs_cpu:>9.1f} "
          f"{jobs_wall:>9.1f} {startup:>11.1f}")  # fmt: skip
    if wall == wall:  # measured here
        print(f"wall {wall:.0f} s on {args.cores} cores; jobs' wall / (wall x cores) "
              f"{jobs_wall / (wall * args.cores):.2f} (parallel efficiency); Snakemake and "
              f"unlogged work {cpu_all - jobs_cpu:.0f} CPU s")  # fmt: skip
    missing = sum(r["unaccounted_jobs"] for r in costs.values())
    if missing:
        print(f"{missing:.0f} job logs without a finish line (jobs older than this accounting)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    new = not RESULTS.exists()
    with RESULTS.open("a", newline="") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(["commit", "cores", "study", "jobs", "cpu_s", "wall_s",
                             "startup_s", "run_wall_s"])  # fmt: skip
        commit = _commit(tree)
        for study, row in costs.items():
            writer.writerow([commit, args.cores, study, int(row["jobs"]), round(row["cpu_s"], 1),
                             round(row["wall_s"], 1), round(row["startup_s"], 1), ""])  # fmt: skip
        writer.writerow([commit, args.cores, "all", "", round(jobs_cpu, 1), round(jobs_wall, 1),
                         round(startup, 1), round(wall, 1)])  # fmt: skip


if __name__ == "__main__":
    main()
