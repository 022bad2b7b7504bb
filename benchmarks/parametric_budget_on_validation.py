"""Choose a parametric study's budget and CAPE settings on the validation split, never on
the test split or the unseen values.

Trains runs of a parametric study (default: ``pdebench_cape``'s FNO and FNO + CAPE on
advection) on the preset's processed files (run the workflow up to ``preprocess`` first)
once per candidate and seed, each with the preset's settings and the candidate's
overrides, and prints the validation rollout error of the epoch the run keeps (relative
L2 over the predicted frames of the seen values' validation trajectories, the criterion
the workflow keeps epochs by), its epoch, the optimiser steps and the time, with the
candidate's mean over seeds against the first candidate's. Nothing here reads a test file.

With ``--holdout VALUE`` a run trains on the seen values but that one and is validated on
that value's validation trajectories alone: a value the run has not seen, as the unseen
test values are, chosen among the training values so that no test value is read.

Run by hand from the repository root, e.g.::

    python benchmarks/parametric_budget_on_validation.py --preset quick --seeds 2
    python benchmarks/parametric_budget_on_validation.py --pde burgers --runs fno fno_cape \\
        --candidates "preset" "20 epochs (the earlier quick budget)"
    python benchmarks/parametric_budget_on_validation.py --runs fno_cape --holdout 4.0
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from pderepro.studies import repository_plan
from pderepro.studies.parametric import runs
from pderepro.studies.parametric_inputs import train_inputs, train_params
from pderepro.training.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]

#: Candidates as overrides of a run's ``training`` and ``hparams``; the first, ``preset``,
#: is the preset's own choice. A candidate with ``architectures`` applies to runs of those
#: architectures only (the CAPE norm to CAPE models, the U-Net norm to U-Nets).
CANDIDATES = {
    "preset": {},
    "20 epochs (the earlier quick budget)": {"training": {"epochs": 20, "step_epochs": 5}},
    "CAPE layer norm over x": {
        "hparams": {"cape_norm": "x"},
        "architectures": ("fno1d_cape", "unet1d_cape"),
    },
    "CAPE sigmoid gates": {
        "hparams": {"cape_gate": "sigmoid"},
        "architectures": ("fno1d_cape", "unet1d_cape"),
    },
    "CAPE layer norm over x, sigmoid gates": {
        "hparams": {"cape_norm": "x", "cape_gate": "sigmoid"},
        "architectures": ("fno1d_cape", "unet1d_cape"),
    },
    "U-Net GroupNorm": {
        "hparams": {"norm": "group"},
        "architectures": ("unet1d_step", "unet1d_cape"),
    },
}


def _hold_out(plan, args, run: str, inputs: dict, base: dict) -> tuple[dict, dict]:
    """Inputs and settings of ``run`` trained without the seen value ``args.holdout`` and
    validated on its validation trajectories only."""
    seen = runs(plan.studies[args.study])[args.pde, run]["train"]
    if args.holdout not in seen:
        raise SystemExit(f"--holdout {args.holdout} is not a seen value of {run}: {seen}")
    keep = [i for i, value in enumerate(seen) if value != args.holdout]
    held = seen.index(args.holdout)
    inputs = {
        "train": [inputs["train"][i] for i in keep],
        "validation": [inputs["validation"][held]],
    }
    return inputs, {**base, "fractions": [base["fractions"][i] for i in keep]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", default="pdebench_cape")
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--pde", default="advection")
    parser.add_argument("--runs", nargs="+", default=["fno", "fno_cape"])
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--holdout", type=float, help="a seen value held out for validation")
    args = parser.parse_args()
    unknown = sorted(set(args.candidates) - set(CANDIDATES))
    if unknown:
        parser.error(f"unknown candidates {unknown}; known: {list(CANDIDATES)}")

    from pderepro.stages import run_train_parametric  # after argparse: --help stays fast

    plan = repository_plan(ROOT, args.preset, [args.study])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in args.runs:
            inputs = train_inputs(plan, args.study, args.pde, run)
            base = train_params(plan, args.study, args.pde, run)
            if args.holdout is not None:
                inputs, base = _hold_out(plan, args, run, inputs, base)
            architecture = base["spec"]["architecture"]
            for name in args.candidates:
                override = CANDIDATES[name]
                if architecture not in override.get("architectures", (architecture,)):
                    continue
                hparams = {**base["spec"].get("hparams", {}), **override.get("hparams", {})}
                spec = {**base["spec"], "hparams": hparams}
                training = {**base["training"], **override.get("training", {})}
                for seed in range(args.seeds):
                    out = Path(tmp) / f"{run}-{len(rows)}"
                    tic = time.perf_counter()
                    run_train_parametric(
                        train_paths=inputs["train"],
                        validation_paths=inputs["validation"],
                        checkpoint=str(out / "checkpoint.pt"),
                        history=str(out / "history.csv"),
                        pde=args.pde,
                        model=run,
                        spec=spec,
                        training=training,
                        protocol=base["protocol"],
                        parameter=base["parameter"],
                        fractions=base["fractions"],
                        seed=seed,
                    )
                    meta = load_checkpoint(out / "checkpoint.pt")["metadata"]
                    rows.append(
                        (run, name, seed, meta["val_rollout_rel_l2"], meta["selected_epoch"],
                         meta["optimizer_steps"], time.perf_counter() - tic)
                    )  # fmt: skip
                    print(f"{run:10s} {name:40s} seed {seed}: {rows[-1][3]:.4f}", flush=True)
    held = "" if args.holdout is None else f", validated on the held-out value {args.holdout}"
    print(f"\n{args.study} {args.pde}, preset {args.preset}{held}: validation rollout error")
    print(f"{'run':10s} {'candidate':40s} {'seed':>4s} {'val (kept)':>10s} {'epoch':>5s} "
          f"{'steps':>6s} {'seconds':>8s}")  # fmt: skip
    for run, name, seed, kept, epoch, steps, seconds in rows:
        print(f"{run:10s} {name:40s} {seed:4d} {kept:10.4f} {epoch:5d} {steps:6d} {seconds:8.1f}")
    print(f"\n{'run':10s} {'candidate':40s} {'mean':>8s} {'vs first':>8s}")
    for run in args.runs:
        means = {
            name: float(np.mean([r[3] for r in rows if r[0] == run and r[1] == name]))
            for name in args.candidates
            if any(r[0] == run and r[1] == name for r in rows)
        }
        if not means:
            continue  # no candidate applied to this run's architecture
        first = next(iter(means.values()))
        for name, mean in means.items():
            print(f"{run:10s} {name:40s} {mean:8.4f} {mean / first:8.2f}")


if __name__ == "__main__":
    main()
