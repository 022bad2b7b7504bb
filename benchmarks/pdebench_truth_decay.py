"""How far PDEBench Burgers truths decay, per viscosity: the evidence behind the values a
preset runs.

Under a zero-mean initial law the viscous Burgers truth decays towards zero, and at large
``nu`` reaches rounding noise before the first predicted frame, where PDEBench's per-frame
nRMSE divides by it. Under PDEBench's released law (:mod:`pderepro.solvers.common.pdebench_ic`)
each sample keeps its mean, which Burgers conserves. This script reads a study's generated
Burgers test files (run the workflow up to ``assemble_split`` first) and prints, per ``nu``:
the share of test trajectories whose RMS over x falls below ``1e-4`` of its start at some
predicted frame (``t >= first``), the median of the smallest such ratio, and the share of
trajectories with ``|mean u0| > 0.1``.

Run from the repository root, e.g.::

    python benchmarks/pdebench_truth_decay.py                 # pdebench_cape, quick
    python benchmarks/pdebench_truth_decay.py --first 0.05 --threshold 1e-4
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from pderepro.data.io import open_netcdf

ROOT = Path(__file__).resolve().parents[1]


def decay_rows(files: list[Path], first: float, threshold: float) -> list[dict]:
    """One row per file (one ``nu``): shares and median ratio, as printed."""
    rows = []
    for path in files:
        ds = open_netcdf(path)
        u = ds["u"].values.astype(np.float64)  # (sample, time, x)
        times = ds["time"].values
        rms = np.sqrt(np.mean(u**2, axis=2))  # (sample, time)
        ratio = rms[:, times >= first - 1e-12].min(axis=1) / rms[:, 0]
        rows.append(
            {
                "nu": float(ds["nu"].values.ravel()[0]),
                "n": len(u),
                "below": float(np.mean(ratio < threshold)),
                "median_min_ratio": float(np.median(ratio)),
                "offset_share": float(np.mean(np.abs(u[:, 0].mean(axis=1)) > 0.1)),
            }
        )
    return sorted(rows, key=lambda r: r["nu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pattern", default="pdebench_cape_burgers_*",
                        help="dataset folders under data/raw")  # fmt: skip
    parser.add_argument("--first", type=float, default=0.05,
                        help="time of the first predicted frame (cape protocol: 0.05)")  # fmt: skip
    parser.add_argument("--threshold", type=float, default=1e-4)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout holding data/raw")
    args = parser.parse_args()
    files = sorted((args.root / "data" / "raw").glob(f"{args.pattern}/test.nc"))
    if not files:
        raise SystemExit(f"no test files under data/raw/{args.pattern}: generate the data first")
    print(f"{'nu':>8} {'n':>4} {'share < ' + format(args.threshold, 'g'):>14} "
          f"{'median min ratio':>17} {'|mean u0| > 0.1':>16}")  # fmt: skip
    for r in decay_rows(files, args.first, args.threshold):
        print(f"{r['nu']:>8g} {r['n']:>4d} {r['below']:>14.2f} {r['median_min_ratio']:>17.3g} "
              f"{r['offset_share']:>16.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
