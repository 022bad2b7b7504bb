"""Choose the SMARL closure's PPO budget on the validation block, never on the test runs.

Fits the ``smarl`` closure of ``les_turbulence`` once per candidate budget on the preset's
train block (run the workflow up to ``coarse_grain`` first), then runs the LES with it from the
validation block's filtered DNS states (one LES from each) and prints the log error of its
mean enstrophy spectrum against the validation block's (the advected shells), beside the
classical closures scored the same way and the preset's own choice, with ratios. Nothing here
reads a test file or a climate run.

Run by hand from the repository root::

    python benchmarks/smarl_budget_on_validation.py --preset quick
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from pderepro.data.io import open_netcdf
from pderepro.data.turbulence_problems import les_problem
from pderepro.evaluation.les_scores import advected_shells, load_les_closure
from pderepro.evaluation.turbulence import enstrophy_spectrum, spectrum_log_error
from pderepro.solvers.turbulence.les import run_les
from pderepro.solvers.turbulence.les_filters import advected_part
from pderepro.stages.turbulence import run_fit_closure_turbulence
from pderepro.studies import repository_plan

ROOT = Path(__file__).resolve().parents[1]
STUDY = "les_turbulence"
#: Candidate budgets as overrides of the study's ``smarl`` section; ``preset`` first.
CANDIDATES = {
    "preset": {},
    "sb3's action std 1, episodes of 2": {
        "action_std": 1.0,
        "episode_time": 2.0,
        "scale": 0.25,
        "batch": 1,
    },
    "action std 0.3, episodes of 2": {
        "action_std": 0.3,
        "episode_time": 2.0,
        "scale": 0.25,
        "batch": 1,
    },
    "1/4 of the transitions, 1 LES per step": {"scale": 0.25, "batch": 1},
    "1 LES per step": {"batch": 1},
}
#: LES time discarded, and then recorded, per validation run (time units).
SPINUP, RECORD = 5.0, 10.0


def _study(preset: str) -> dict:
    return repository_plan(ROOT, preset, [STUDY]).studies[STUDY]


def validation_error(checkpoint: str, study: dict, validation) -> float:
    """Enstrophy-spectrum log error of LES runs from the validation states against them."""
    system, dt = study["system"], study["coarse"]["time_step"]
    interval = study["truth"]["climate_save_interval"]
    w_bar = validation["w_bar"].transpose("member", "time", "x", "y").to_numpy()
    w_bar = advected_part(torch.as_tensor(w_bar, dtype=torch.float64)).numpy()  # as the LES holds
    reference = enstrophy_spectrum(w_bar.reshape(-1, *w_bar.shape[-2:])).mean(axis=0)
    problem = les_problem(system, float(validation.attrs["beta"]), dt, SPINUP + RECORD, interval)
    closure, _ = load_les_closure(checkpoint)
    # every validation snapshot starts one LES: single runs' spectra are noisy (with the
    # first snapshot of each member alone, Smagorinsky scored 0.19 and 0.34 in two runs)
    starts = w_bar.reshape(-1, *w_bar.shape[-2:])
    run = run_les(starts, problem, closure, device="cpu")
    w = run.vorticity[:, round(SPINUP / interval) + 1 :].numpy()
    w = w.reshape(-1, *w.shape[-2:])
    w = w[np.isfinite(w).all(axis=(1, 2))]
    if len(w) == 0:
        return float("nan")
    spectrum = enstrophy_spectrum(w).mean(axis=0)
    return spectrum_log_error(spectrum, reference, k_max=advected_shells(system["les_resolution"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--seeds", type=int, default=1, help="seeds of the preset's SMARL")
    args = parser.parse_args()
    study = _study(args.preset)
    processed = ROOT / f"data/processed/{STUDY}/{study['training_setup']}"
    validation = open_netcdf(processed / "validation.nc", expect_attrs={"split": "validation"})
    fit = {
        "train_path": str(processed / "train.nc"),
        "validation_path": str(processed / "validation.nc"),
        "training": study["training"], "system": study["system"],
        "les_time_step": study["coarse"]["time_step"], "seed": study["seed"],
        "blowup_threshold": study["online"]["blowup_threshold"],
    }  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("none", "smagorinsky", "leith"):
            path = f"{tmp}/{name}.pt"
            run_fit_closure_turbulence(checkpoint=path, closure=name, spec={"kind": name},
                                       smarl=None, **fit)  # fmt: skip
            rows.append((name, validation_error(path, study, validation), 0.0))
        runs = [(name, override, offset) for name, override in CANDIDATES.items()
                for offset in range(args.seeds if name == "preset" else 1)]  # fmt: skip
        for name, override, offset in runs:
            smarl = dict(study["smarl"])
            smarl["timesteps"] = round(smarl["timesteps"] * override.get("scale", 1))
            smarl.update({k: v for k, v in override.items() if k != "scale"})
            path = f"{tmp}/smarl.pt"
            start = time.perf_counter()
            seeded = {**fit, "seed": fit["seed"] + offset}
            run_fit_closure_turbulence(checkpoint=path, closure="smarl", spec={"kind": "smarl"},
                                       smarl=smarl, **seeded)  # fmt: skip
            seconds = time.perf_counter() - start
            rows.append((f"smarl: {name} ({smarl['timesteps']}), seed +{offset}",
                         validation_error(path, study, validation), seconds))  # fmt: skip
    preset = next(error for name, error, _ in rows if name.startswith("smarl: preset"))  # seed +0
    print(f"{'closure / budget':52s} {'val. log error':>14s} {'/ preset':>9s} {'fit (s)':>8s}")
    for name, error, seconds in rows:
        print(f"{name:52s} {error:14.4f} {error / preset:9.3f} {seconds:8.1f}")


if __name__ == "__main__":
    main()
