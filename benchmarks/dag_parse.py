"""How long Snakemake takes to build the DAG, against a bare ``import snakemake``.

Every dry run, every no-op rerun and every cluster job parses the workflow, so the
package must not import torch, xarray or dask while it does. Prints, measured on this
machine in one interleaved run (median of ``--repeats``), the wall time of:

- ``python -c "import snakemake"`` (the reference the targets are set against),
- ``snakemake -n`` of a one-rule workflow (Snakemake's own floor: its command line,
  parser and scheduler, which ``import snakemake`` alone does not load),
- ``snakemake -n`` at the quick and paper presets (in a copy of the workflow, no data),
- a no-op rerun (``snakemake --cores 1``) of a finished smoke run,

and each one's ratio to both references, beside the targets (quick dry run and no-op
rerun <= 3x the import, paper dry run <= 5x).

Usage: ``python benchmarks/dag_parse.py [--repeats 5] [--smoke-dir DIR]``. Without
``--smoke-dir`` the smoke preset is run once first in a temporary directory (about
five minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_FILES = ["Snakefile", "workflow", "config", "envs", "profiles"]
TARGETS = {"dry run, quick": 3.0, "dry run, paper": 5.0, "no-op rerun, smoke": 3.0}


def copy_workflow(target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for name in WORKFLOW_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, target / name, dirs_exist_ok=True)
        else:
            shutil.copy2(src, target / name)
    return target


def timed(command: list[str], cwd: Path, expect: str | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    output = result.stdout + result.stderr
    if result.returncode != 0 or (expect and expect not in output):
        sys.exit(f"{' '.join(command)} failed in {cwd}:\n{output[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--smoke-dir", type=Path, help="a finished smoke run to rerun")
    args = parser.parse_args()
    python = sys.executable
    snakemake = [python, "-m", "snakemake"]
    with tempfile.TemporaryDirectory() as tmp:
        empty = copy_workflow(Path(tmp) / "empty")
        smoke = args.smoke_dir
        if smoke is None:
            smoke = copy_workflow(Path(tmp) / "smoke")
            print("running the smoke preset once (a few minutes)...", flush=True)
            timed([*snakemake, "--cores", "all", "--config", "preset=smoke"], smoke)
        trivial = Path(tmp) / "one_rule"
        trivial.mkdir()
        (trivial / "Snakefile").write_text(
            'rule all:\n    output: "a.txt"\n    shell: "touch {output}"\n'
        )
        cases = {
            "import snakemake": ([python, "-c", "import snakemake"], empty, None),
            "dry run, one rule": ([*snakemake, "-n"], trivial, None),
            "dry run, quick": ([*snakemake, "-n", "--config", "preset=quick"], empty, None),
            "dry run, paper": ([*snakemake, "-n", "--config", "preset=paper"], empty, None),
            "no-op rerun, smoke": (
                [*snakemake, "--cores", "1", "--config", "preset=smoke"],
                smoke,
                "Nothing to be done",
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.repeats):  # interleaved, so drift hits every case alike
            for name, (command, cwd, expect) in cases.items():
                times[name].append(timed(command, cwd, expect))
    reference = statistics.median(times["import snakemake"])
    floor = statistics.median(times["dry run, one rule"])
    print(
        f"{'case':<22} {'median s':>9} {'x import':>9} {'target':>12} {'x one rule':>11}  runs (s)"
    )
    for name, values in times.items():
        median = statistics.median(values)
        ratio = median / reference
        target = TARGETS.get(name)
        verdict = (
            "" if target is None else f"<= {target:g}" + (" ok" if ratio <= target else " MISSED")
        )
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(
            f"{name:<22} {median:>9.2f} {ratio:>9.2f} {verdict:>12} {median / floor:>11.2f}  {runs}"
        )


if __name__ == "__main__":
    main()
