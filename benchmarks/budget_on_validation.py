"""Choose a preset's optimiser budget on the validation split, never on the test split.

Trains one model of a study on the preset's processed data (run the workflow up to
``preprocess`` first) once per candidate budget, all with the same optimiser steps'
worth of epochs as the preset, and prints each candidate's validation error (the epoch
the run keeps, and the last epoch) beside the preset's current choice, with ratios.
Nothing here reads a test file.

Run by hand from the repository root, e.g.::

    python benchmarks/budget_on_validation.py --study fno_burgers --preset quick
    python benchmarks/budget_on_validation.py --study fno_darcy --model fno --resolution 85
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pderepro.studies import repository_plan
from pderepro.studies.resolution import model_training, processed
from pderepro.training.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]

#: Candidate budgets per study, as overrides of the preset's training settings. The
#: first, ``preset``, is the preset's own choice; the others are what it was chosen over.
CANDIDATES = {
    "fno_burgers": {
        "preset": {},
        "paper optimiser, batch 20": {"batch_size": 20},
        "cosine from 3e-3": {"learning_rate": 3e-3, "scheduler": "cosine"},
    },
    "fno_darcy": {
        "preset": {},
        "paper optimiser (1e-3, halved every fifth)": {
            "learning_rate": 1e-3,
            "scheduler": "step",
        },
        "cosine from 1e-3": {"learning_rate": 1e-3},
    },
    "fno_navier_stokes": {
        "preset": {},
        "3e-3, halved every epoch": {"scheduler": "step"},
        "1e-3, halved every epoch": {"learning_rate": 1e-3, "scheduler": "step"},
    },
}


#: The model whose budget the preset was tuned for: each study's FNO.
DEFAULT_MODELS = {"fno_burgers": "fno", "fno_darcy": "fno", "fno_navier_stokes": "fno3d"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", required=True, choices=sorted(CANDIDATES))
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--model", help="model key (default: the study's FNO)")
    parser.add_argument("--resolution", type=int, help="default: the finest trained")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from pderepro.stages import run_train  # after argparse: --help stays fast

    plan = repository_plan(ROOT, args.preset)
    unit_name = next(u for u in plan.units if u.split("/")[0] == args.study)
    unit = plan.units[unit_name]
    model = args.model or DEFAULT_MODELS[args.study]
    res = args.resolution or max(unit["resolutions"])
    base = model_training(unit, model)
    spec = {k: v for k, v in unit["models"][model].items() if k != "training"}
    print(f"{unit_name}: {model} at s={res}, seed {args.seed}, preset {args.preset}: {base}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, override in CANDIDATES[args.study].items():
            training = {**base, **override}
            out = Path(tmp) / name.replace(" ", "_").replace("/", "_")
            tic = time.perf_counter()
            run_train(
                train_path=processed(plan, unit_name, res, "train.nc"),
                validation_path=processed(plan, unit_name, res, "validation.nc"),
                stats_path=processed(plan, unit_name, res, "stats.nc"),
                checkpoint=str(out / "checkpoint.pt"),
                history=str(out / "history.csv"),
                study=unit_name,
                model=model,
                spec=spec,
                training=training,
                seed=args.seed,
                resolution=res,
            )
            meta = load_checkpoint(out / "checkpoint.pt")["metadata"]
            rows.append(
                (
                    name,
                    meta["val_rel_l2"],
                    meta["selected_epoch"],
                    meta["history"][-1]["val_rel_l2"],
                    time.perf_counter() - tic,
                )
            )
    reference = rows[0][1]
    print(f"\n{'candidate':45s} {'val (kept)':>10s} {'epoch':>5s} {'val (last)':>10s} "
          f"{'seconds':>8s} {'vs preset':>9s}")  # fmt: skip
    for name, kept, epoch, last, seconds in rows:
        print(
            f"{name:45s} {kept:10.4g} {epoch:5d} {last:10.4g} {seconds:8.1f} "
            f"{kept / reference:9.2f}"
        )


if __name__ == "__main__":
    main()
