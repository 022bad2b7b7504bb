"""Choose the SMARL closure's PPO budget on the validation block, never on the test runs.

Fits the ``smarl`` closure of ``les_turbulence`` once per candidate budget on the preset's
train block (run the workflow up to ``coarse_grain`` first), then runs the LES with it from the
validation block's filtered DNS states and prints the log error of its mean enstrophy spectrum
against the validation block's (the advected shells), beside the classical closures scored the
same way and the preset's own choice, with ratios. Nothing here reads a test file or a climate
run.

Run by hand from the repository root::

    python benchmarks/smarl_budget_on_validation.py --preset quick
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from pderepro.data.io import open_netcdf
from pderepro.data.turbulence_problems import les_problem
from pderepro.evaluation.les_scores import advected_shells, load_les_closure
from pderepro.evaluation.turbulence import enstrophy_spectrum, spectrum_log_error
from pderepro.solvers.les import run_les
from pderepro.stages.turbulence import run_fit_closure_turbulence
from pderepro.studies import make_plan, resolve_config

ROOT = Path(__file__).resolve().parents[1]
STUDY = "les_turbulence"
#: Candidate budgets as overrides of the study's ``smarl`` section; ``preset`` first.
CANDIDATES = {
    "preset": {},
    "sb3's action std 1, episodes of 2": {"action_std": 1.0, "episode_time": 2.0},
    "action std 0.3, episodes of 2": {"action_std": 0.3, "episode_time": 2.0},
    "4x, 4 LES per step": {"scale": 4, "batch": 4},
    "4x the transitions": {"scale": 4},
}
#: LES time discarded, and then recorded, per validation run (time units).
SPINUP, RECORD = 5.0, 10.0


def _study(preset: str) -> dict:
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    config.update(preset=preset, studies=[STUDY])
    resolved = resolve_config(
        config, config_dir=ROOT / "config", schema_path=ROOT / "workflow/schemas/config.schema.yaml"
    )
    return make_plan(resolved).studies[STUDY]


def validation_error(checkpoint: str, study: dict, validation) -> float:
    """Enstrophy-spectrum log error of LES runs from the validation states against them."""
    system, dt = study["system"], study["coarse"]["time_step"]
    interval = study["truth"]["climate_save_interval"]
    w_bar = validation["w_bar"].transpose("member", "time", "x", "y").to_numpy()
    reference = enstrophy_spectrum(w_bar.reshape(-1, *w_bar.shape[-2:])).mean(axis=0)
    problem = les_problem(system, float(validation.attrs["beta"]), dt, SPINUP + RECORD, interval)
    closure, _ = load_les_closure(checkpoint)
    run = run_les(w_bar[:, 0], problem, closure, device="cpu")
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
        for name, override in CANDIDATES.items():
            smarl = dict(study["smarl"])
            smarl["timesteps"] *= override.get("scale", 1)
            smarl.update({k: v for k, v in override.items() if k != "scale"})
            path = f"{tmp}/smarl.pt"
            start = time.perf_counter()
            run_fit_closure_turbulence(checkpoint=path, closure="smarl", spec={"kind": "smarl"},
                                       smarl=smarl, **fit)  # fmt: skip
            seconds = time.perf_counter() - start
            rows.append((f"smarl: {name} ({smarl['timesteps']})",
                         validation_error(path, study, validation), seconds))  # fmt: skip
    preset = next(error for name, error, _ in rows if name.startswith("smarl: preset"))
    print(f"{'closure / budget':52s} {'val. log error':>14s} {'/ preset':>9s} {'fit (s)':>8s}")
    for name, error, seconds in rows:
        print(f"{name:52s} {error:14.4f} {error / preset:9.3f} {seconds:8.1f}")


if __name__ == "__main__":
    main()
