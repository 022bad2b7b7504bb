"""The GPU check behind ``benchmarks/gpu_check.sh``: one command, one JSON.

On a CUDA machine, in about 8 minutes or less: runs the ``gpu``-marked tests; trains the
FNO-1D of the Burgers study at the paper preset for one resolution and seed (s = 1024,
seed 0: 1000 samples solved at 8192 points, 500 epochs) through the workflow itself and
reports its test error against the target (rel. L2 <= 0.0025; the paper printed 0.0160);
times an FNO epoch and Navier-Stokes steps at the paper's sizes with and without bf16
autocast, against the CPU (``benchmarks/gpu_timing.py``). Everything lands in
``<out>/gpu_check.json``.

``--dry-run`` runs on a CPU in seconds (CI): the gpu tests are collected and skipped,
the training is only planned (``snakemake -n``), the timings use tiny sizes.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_FILES = ["Snakefile", "workflow", "config", "envs", "profiles"]
TARGET_REL_L2 = 0.0025
PUBLISHED_REL_L2 = 0.0160  # Li et al. 2021, Burgers table, s = 1024
METRICS = "results/fno_burgers/metrics/fno/res1024/seed0.csv"
CONFIG = ["preset=paper", "studies=[fno_burgers]", "verification=False"]


def run(command: list[str], cwd: Path, log: Path) -> tuple[int, str, float]:
    """Run ``command``, keep its output in ``log``; return code, output and seconds."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    output = result.stdout + result.stderr
    log.write_text(output)
    return result.returncode, output, time.perf_counter() - start


def gpu_tests(out: Path) -> dict:
    code, output, seconds = run(
        [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-p", "no:cacheprovider"],
        ROOT,
        out / "gpu_tests.log",
    )
    counts = dict(
        (word, int(n)) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)", output)
    )
    return {"exit_code": code, "counts": counts, "seconds": round(seconds, 1)}


def burgers_fno(out: Path, dry_run: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in WORKFLOW_FILES:
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / name)
        command = [sys.executable, "-m", "snakemake", "--cores", "all", "--config", *CONFIG]
        command += ["-n"] if dry_run else []
        code, output, seconds = run([*command, "--", METRICS], work, out / "burgers_fno.log")
        result = {"exit_code": code, "seconds": round(seconds, 1), "dry_run": dry_run}
        if code == 0 and not dry_run:
            with open(work / METRICS) as f:
                rows = list(csv.DictReader(f))  # one row per test sample
            rel_l2 = sum(float(row["rel_l2"]) for row in rows) / len(rows)
            result.update(
                rel_l2=rel_l2, device=rows[0]["device"], n_test=len(rows),
                target=TARGET_REL_L2, target_met=rel_l2 <= TARGET_REL_L2,
                published=PUBLISHED_REL_L2,
            )  # fmt: skip
        elif dry_run:
            jobs = re.search(r"^total\s+(\d+)", output, flags=re.MULTILINE)
            result["planned_jobs"] = int(jobs.group(1)) if jobs else None
    return result


def timings(out: Path, dry_run: bool) -> dict:
    path = out / "timing.json"
    command = [sys.executable, str(ROOT / "benchmarks/gpu_timing.py"), "--out", str(path)]
    command += ["--dry-run", "--repeats", "1"] if dry_run else []
    code, _, seconds = run(command, ROOT, out / "timing.log")
    result = json.loads(path.read_text()) if code == 0 else {}
    return {"exit_code": code, "seconds": round(seconds, 1), **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "results/gpu_check")
    parser.add_argument("--dry-run", action="store_true", help="CPU, seconds: plan only")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    import torch  # after argument parsing: --help stays fast

    report = {
        "cuda": torch.cuda.is_available(),
        "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "torch": torch.__version__,
        "dry_run": args.dry_run,
    }
    if not report["cuda"] and not args.dry_run:
        sys.exit("no CUDA device: run with --dry-run to check the script on a CPU")
    for name, step in (
        ("gpu_tests", lambda: gpu_tests(args.out)),
        ("burgers_fno_s1024", lambda: burgers_fno(args.out, args.dry_run)),
        ("timings", lambda: timings(args.out, args.dry_run)),
    ):
        print(f"{name} ...", flush=True)
        report[name] = step()
        print(json.dumps(report[name])[:2000], flush=True)
    (args.out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    failed = [k for k in ("gpu_tests", "burgers_fno_s1024", "timings") if report[k]["exit_code"]]
    if failed:
        sys.exit(f"failed: {failed}; logs in {args.out}")


if __name__ == "__main__":
    main()
