"""Online stages of shallow-water flux closures: coarse runs, the noise floor, tables, figures.

Every coarse run starts from a filtered reference state at the end of the spin-up and runs
under that member's own forcing (kept in the climate file) for as long as the truth
records; it is scored record by record against the filtered reference run
(:func:`pderepro.evaluation.shallow_water_scores.trajectory_scores`). The ``truth`` row
scores the second fine ensemble (the same states with the sub-grid detail dropped) alike:
the noise floor.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from pderepro.data.io import open_netcdf, write_scores
from pderepro.data.shallow_water_truth import coarse_problem
from pderepro.evaluation.shallow_water_scores import (
    available_energy,
    error_series,
    load_flux_closures,
    trajectory_scores,
)
from pderepro.evaluation.tables import closure_table, write_table
from pderepro.runtime import set_threads
from pderepro.solvers.lorenz96.lorenz96 import whole_steps
from pderepro.solvers.shallow_water.coarse import run_coarse_model
from pderepro.solvers.shallow_water.forcing import forcing_cell_averages, kick

log = logging.getLogger(__name__)

OFFLINE_COLUMNS = ["closure", "setup", "mass_flux_correlation", "momentum_flux_correlation",
                   "step_error_ratio", "seeds"]  # fmt: skip
ONLINE_COLUMNS = ["closure", "setup", "h_error", "h_error_std", "hu_error", "energy_bias",
                  "energy_bias_std", "shock_position_error", "missed_shocks", "mass_drift",
                  "blowups", "seeds", "cost_ratio"]  # fmt: skip


def _climate(path: str) -> tuple[np.ndarray, np.ndarray, xr.Dataset]:
    """Reference and floor ensembles ``(member, record, 2, n)`` float64, and the dataset."""
    ds = open_netcdf(path, required=("state", "forcing"), expect_attrs={"role": "climate"})
    state = ds["state"].transpose("member", "time", "var", "x").to_numpy().astype(np.float64)
    ensemble = ds["ensemble"].to_numpy()
    return state[ensemble == 0], state[ensemble == 1], ds


def _curves(runs: np.ndarray, reference: np.ndarray, system: Mapping[str, Any]) -> dict:
    dx = system["length"] / system["coarse_resolution"]
    return {
        "h_error_series": error_series(runs, reference),
        "energy_series": np.nanmean(available_energy(runs, system["gravity"], dx), axis=0),
        "energy_truth": available_energy(reference, system["gravity"], dx).mean(axis=0),
        "h_member0": runs[0, :, 0],
        "h_truth0": reference[0, :, 0],
    }


def _write(rows, setups, curves, ds, *, metrics, curves_path, attrs, title, inputs,
           extra=None) -> None:  # fmt: skip
    dims = {"h_error_series": ("record",), "energy_series": ("record",),
            "energy_truth": ("record",), "h_member0": ("record", "x"),
            "h_truth0": ("record", "x"), "blowup_time": ("member",)}  # fmt: skip
    out = xr.Dataset(
        {name: (("setup", *d), np.stack([c[name] for c in curves])) for name, d in dims.items()},
        # time since the coarse runs' start: the same records in every setup (a forced setup
        # starts after the spin-up, the unforced one at 0)
        coords={"setup": list(setups),
                "time": ("record", ds["time"].to_numpy() - float(ds["time"][0])),
                "x": ds["x"].to_numpy()},
    )  # fmt: skip
    if extra is not None:  # the floor's fine depth of member 0
        out["h_fine"] = (("setup", "record", "x_fine"), extra)
        out = out.assign_coords(x_fine=ds["x_fine"].to_numpy())
    out.attrs.update(attrs)
    write_scores(rows, out, metrics=metrics, curves=curves_path, title=title, rule="online",
                 params={}, input_files=inputs)  # fmt: skip


def run_online_shallow_water(
    *, checkpoint: str, climates: Mapping[str, str], system: Mapping[str, Any], closure: str,
    online: Mapping[str, Any], metrics: str, curves: str, threads: int = 1,
) -> None:  # fmt: skip
    """The coarse model with one closure in every setup, scored against the filtered
    reference run (``online.time_step``: the coarse step; a run blows up as
    :func:`~pderepro.solvers.shallow_water.coarse.run_coarse_model` says).

    A closure fitted from several seeds runs once per seed: its row holds the seeds' mean of
    every score, their spread (``h_error_std``, ``energy_bias_std``: standard deviation over
    seeds) and the blow-ups of all seeds; its curves pool the seeds' runs."""
    set_threads(threads)
    closures, meta = load_flux_closures(checkpoint, expect={"closure": closure})
    problem, dt = coarse_problem(system), online["time_step"]
    rows, curve_list = [], []
    for setup, path in climates.items():
        reference, _, ds = _climate(path)
        amplitude = float(ds.attrs["amplitude"])
        every = whole_steps(float(ds.attrs["save_interval"]), dt,
                            what="truth.climate_save_interval")  # fmt: skip
        forcing = ds["forcing"].to_numpy()[ds["ensemble"].to_numpy() == 0]  # (member, kick, c)

        def kick_step(state, n, alive, forcing=forcing, amplitude=amplitude):
            force = forcing_cell_averages(forcing[alive, n], problem.resolution,
                                          problem.length, amplitude)  # fmt: skip
            return kick(state, force if amplitude else None, dt, system["drag"])

        per_seed, all_runs, all_blowups, clock = [], [], [], time.perf_counter()
        for fitted in closures:
            runs, blowup = run_coarse_model(
                reference[:, 0], problem, dt=dt, steps=(reference.shape[1] - 1) * every,
                every=every, kick_step=kick_step, correction=fitted, limited=meta["limited"],
                blowup_threshold=online["blowup_threshold"],
            )  # fmt: skip
            per_seed.append(
                trajectory_scores(
                    runs,
                    reference,
                    gravity=system["gravity"],
                    dx=problem.dx,
                    shock_jump=online["shock_jump"],
                )
            )
            all_runs.append(runs)
            all_blowups.append(blowup)
        wall = (time.perf_counter() - clock) / len(closures)
        simulated = float(ds["time"][-1] - ds["time"][0])
        scores = pd.DataFrame(per_seed)
        blowup = np.concatenate(all_blowups)
        cost = wall / (len(reference) * simulated) / float(ds.attrs["wall_s_per_member_time"])
        rows.append({
            "closure": closure, "label": meta["label"], "setup": setup,
            **scores.mean().to_dict(),  # NaN-skipping: a seed whose runs all blew up drops
            "h_error_std": float(scores["h_error"].std(ddof=0)),
            "energy_bias_std": float(scores["energy_bias"].std(ddof=0)),
            "blowups": int(np.isfinite(blowup).sum()), "cost_ratio": cost,
            "members": len(reference), "seeds": len(closures),
        })  # fmt: skip
        log.info("%s %s: %s", closure, setup, rows[-1])
        pooled = np.concatenate(all_runs)
        setup_curves = _curves(pooled, np.concatenate([reference] * len(closures)), system)
        curve_list.append({**setup_curves, "blowup_time": blowup})
    _write(rows, climates, curve_list, ds, metrics=metrics, curves_path=curves,
           attrs={"label": meta["label"], "closure": closure, "kind": meta["kind"],
                  "limited": int(meta["limited"]), "seeds": len(closures)},
           title=f"coarse runs with {closure}",
           inputs=[checkpoint, *climates.values()])  # fmt: skip


def run_truth_floor_shallow_water(
    *, climates: Mapping[str, str], system: Mapping[str, Any], online: Mapping[str, Any],
    metrics: str, curves: str,
) -> None:  # fmt: skip
    """The noise floor: the second fine ensemble, filtered, scored against the reference;
    its curves also keep member 0's fine depth for the figures."""
    rows, curve_list, fine = [], [], []
    dx = system["length"] / system["coarse_resolution"]
    for setup, path in climates.items():
        reference, second, ds = _climate(path)
        scores = trajectory_scores(second, reference, gravity=system["gravity"], dx=dx,
                                   shock_jump=online["shock_jump"])  # fmt: skip
        rows.append({"closure": "truth", "label": "fine run (sub-grid detail dropped)",
                     "setup": setup, **scores, "h_error_std": 0.0, "energy_bias_std": 0.0,
                     "blowups": 0, "cost_ratio": 1.0, "members": len(second),
                     "seeds": 1})  # fmt: skip
        curve_list.append({**_curves(second, reference, system),
                           "blowup_time": np.full(len(second), np.nan)})  # fmt: skip
        fine.append(ds["h_fine"].to_numpy())
    _write(rows, climates, curve_list, ds, metrics=metrics, curves_path=curves,
           attrs={"label": "truth (second fine ensemble)", "closure": "truth", "kind": "truth",
                  "limited": 0},
           title="shallow-water noise floor", inputs=list(climates.values()),
           extra=np.stack(fine))  # fmt: skip


def run_closure_tables_shallow_water(
    *, offline: Sequence[str], online: Sequence[str], outputs: Mapping[str, str],
    online_settings: Mapping[str, Any],
) -> None:  # fmt: skip
    """The offline (flux correlation, one-step error) and online tables of shallow water."""
    write_table(
        closure_table([pd.read_csv(p) for p in offline], OFFLINE_COLUMNS),
        outputs["offline_csv"], outputs["offline_md"],
        caption="Offline skill on each setup's test block of filtered fine runs: Pearson "
        "correlation of the closure's mass and momentum flux corrections with the exact ones "
        "(the fine run's time-averaged flux through each coarse face minus the coarse "
        "scheme's), at every coarse face; step_error_ratio: RMS error of one coarse step with "
        "the closure (limited where the closure is) against the filtered fine step, over the "
        "same without a closure (1 = no gain). Networks: the mean over their seeds (seeds). "
        "Closures were fitted at the training setup only; 'none' predicts no correction (no "
        "correlation).",
    )  # fmt: skip
    frames = [pd.read_csv(p) for p in online]
    members = int(max(f["members"].max() for f in frames))
    caption = (
        f"Online: {members} coarse runs per setup (and seed), each from a filtered reference "
        "state and "
        "under that run's own forcing, scored record by record against the filtered "
        "reference fine run; 'truth' scores a second fine ensemble started from the same "
        "states with the sub-grid detail dropped (the noise floor). h_error, hu_error: RMS "
        "error over the truth's RMS departure from its mean (1 = as large as the signal); "
        "energy_bias: time-mean available energy over the truth's, minus 1; "
        "shock_position_error: coarse cells from each of the truth's shocks (depth jumps "
        f"above {online_settings['shock_jump']:g}) to the run's nearest (a jump above half "
        "of it), over the shocks found; missed_shocks: the fraction with none (smeared "
        "below half the threshold, or absent); mass_drift: largest relative "
        "change of total mass in a run; blowups: runs that turned non-finite, negative in "
        f"depth or beyond {online_settings['blowup_threshold']:g}. Every score but blowups "
        "is over the runs that did not blow up. A network fitted from several seeds (seeds) "
        "runs once per seed: its scores are the seeds' mean, h_error_std and "
        "energy_bias_std their standard deviation over seeds, blowups the sum over seeds. "
        "cost_ratio: wall time per run and time unit over the fine run's, both measured here."
    )
    write_table(closure_table(frames, ONLINE_COLUMNS), outputs["online_csv"],
                outputs["online_md"], caption=caption)  # fmt: skip


def run_plot_closures_shallow_water1d(
    *, offline: Sequence[str], online: Sequence[str], table: str, outputs: Mapping[str, str],
    title: str, training_setup: str, setups: Mapping[str, float],
) -> None:  # fmt: skip
    """Every figure of a shallow-water closure study from the evaluated curves and table."""
    from pderepro.plotting.shallow_water import plot_shallow_water_figures

    plot_shallow_water_figures(
        [open_netcdf(p) for p in offline], [open_netcdf(p) for p in online], pd.read_csv(table),
        outputs, title=title, training_setup=training_setup, setups=setups,
    )  # fmt: skip
