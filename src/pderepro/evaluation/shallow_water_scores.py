"""Scores of shallow-water sub-grid flux closures: offline on held-out pairs, online against
the filtered fine run.

Offline (:func:`offline_scores`): the correlation of the predicted mass and momentum
corrections with the exact ones, and the one-step error of the coarse step with the
closure (as applied online, limited or not) over the one without, against the filtered
fine step.

Online (:func:`trajectory_scores`): coarse runs from the filtered reference states, under
the same forcing, against the filtered reference run, record by record:

* ``h_error`` / ``hu_error``: root-mean-square error over the grid, members and records
  over the truth's spread about its spatial mean (1 = an error as large as the signal);
* ``energy_bias``: the time-mean available energy ``sum (h u^2 + g (h - H)^2) / 2 dx``
  (``H``: the mean depth) over the truth's, minus 1: the long-run energy balance;
* ``mass_drift``: the largest relative change of total mass over a run;
* ``shock_position_error``: for every shock of the truth (a depth jump between coarse
  cells above ``shock_jump``, larger than its neighbouring faces'), the periodic distance in
  coarse cells to the run's nearest shock (a jump above half of it), averaged over the
  shocks found, records and runs (:func:`shock_distances`); ``missed_shocks``: the fraction
  of the truth's shocks with none in the run (smeared below half the threshold, or absent).

Every score but the blow-up count is over the runs that did not blow up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pderepro.models.flux_stencil import StencilFluxNet, diffusive_flux
from pderepro.solvers.shallow_water.coarse import corrected_step
from pderepro.solvers.shallow_water.problem import ShallowWaterProblem
from pderepro.solvers.shallow_water.shallow_water import velocity
from pderepro.training.checkpoint import CheckpointError, load_checkpoint

#: Closure families of the shallow-water system.
FLUX_CLOSURE_KINDS = ("none", "diffusion", "stencil_mlp")


def load_flux_closures(
    path: str | Path, *, expect: Mapping[str, Any] | None = None
) -> tuple[list[Callable[[np.ndarray], np.ndarray] | None], dict]:
    """The closures in a ``fit_closure`` checkpoint, one per fitted seed (``[None]`` for no
    closure), and the metadata (``limited`` says whether they run limited)."""
    checkpoint = load_checkpoint(path, expect=expect)
    meta = checkpoint["metadata"]
    kind = meta["kind"]
    if kind == "none":
        return [None], meta
    if kind == "diffusion":
        kappa, gravity = meta["kappa"], meta["gravity"]
        return [lambda state: diffusive_flux(state, kappa, gravity)], meta
    if kind == "stencil_mlp":
        closures = []
        for k in range(meta["seeds"]):
            net = StencilFluxNet(hidden=meta["hparams"]["hidden"])
            net.load_state_dict(checkpoint[f"model_{k}"])
            closures.append(net.eval().physical)
        return closures, meta
    raise CheckpointError(f"{path}: unknown flux closure kind {kind!r}")


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel() - a.mean(), b.ravel() - b.mean()
    denominator = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / denominator) if denominator > 0 else float("nan")


def offline_scores(
    closure: Callable[[np.ndarray], np.ndarray] | None, limited: bool, states: np.ndarray,
    corrections: np.ndarray, problem: ShallowWaterProblem, dt: float,
) -> tuple[dict[str, float], np.ndarray]:  # fmt: skip
    """Offline skill on pairs ``states``, ``corrections`` (both ``(N, 2, n)``) and the
    predicted corrections (zeros without a closure)."""
    predicted = np.zeros_like(corrections) if closure is None else closure(states)
    exact_next = corrected_step(states, dt, problem, lambda _: corrections)
    plain = corrected_step(states, dt, problem)
    closed = corrected_step(states, dt, problem, closure, limited=limited)
    scores = {
        "mass_flux_correlation": _correlation(predicted[:, 0], corrections[:, 0]),
        "momentum_flux_correlation": _correlation(predicted[:, 1], corrections[:, 1]),
        "step_error_ratio": float(
            np.sqrt(((closed - exact_next) ** 2).mean() / ((plain - exact_next) ** 2).mean())
        ),  # fmt: skip
    }
    return scores, predicted


def available_energy(records: np.ndarray, gravity: float, dx: float) -> np.ndarray:
    """``sum (h u^2 + g (h - H)^2) / 2 dx`` of ``(..., 2, n)`` states, shape ``(...)``."""
    h, hu = records[..., 0, :], records[..., 1, :]
    u = velocity(h, hu, 1e-8)
    depth = h.mean(axis=-1, keepdims=True)
    return 0.5 * (h * u * u + gravity * (h - depth) ** 2).sum(axis=-1) * dx


def shock_faces(h: np.ndarray, threshold: float) -> np.ndarray:
    """Faces of ``h`` ``(n,)`` where the depth jumps by more than ``threshold`` and by more
    than at both neighbouring faces (one face per shock, periodic), ascending."""
    jumps = np.abs(h - np.roll(h, 1))
    peak = (jumps > np.roll(jumps, 1)) & (jumps >= np.roll(jumps, -1))
    return np.flatnonzero(peak & (jumps > threshold))


def shock_distances(run_h: np.ndarray, truth_h: np.ndarray, threshold: float) -> np.ndarray:
    """For every shock of the truth's depth, the periodic distance (cells) to the nearest
    shock of the run's, a shock there being a jump above half the threshold; NaN where the
    run has none (the shock is missed: smeared below it, or absent). ``(..., n)`` arrays; a
    flat vector out."""
    n = truth_h.shape[-1]
    out = []
    for run, truth in zip(run_h.reshape(-1, n), truth_h.reshape(-1, n), strict=True):
        ours, theirs = shock_faces(truth, threshold), shock_faces(run, threshold / 2)
        if not len(ours):
            continue
        if not len(theirs):
            out.extend([np.nan] * len(ours))
            continue
        gap = np.abs(ours[:, None] - theirs[None, :])
        out.extend(np.minimum(gap, n - gap).min(axis=1).tolist())
    return np.asarray(out, dtype=float)


def trajectory_scores(
    runs: np.ndarray, truth: np.ndarray, *, gravity: float, dx: float, shock_jump: float
) -> dict[str, float]:
    """Online scores of the surviving runs (see the module).

    Parameters
    ----------
    runs, truth : numpy.ndarray
        ``(members, records, 2, n)``: the runs (NaN after a blow-up) and the filtered
        reference, member by member.
    gravity, dx : float
        ``g`` and the coarse cell width.
    shock_jump : float
        Depth jump (length units) beyond which the truth has a shock on the coarse grid.
    """
    kept = np.isfinite(runs).all(axis=(1, 2, 3))
    nan_scores = ("h_error", "hu_error", "energy_bias", "mass_drift", "shock_position_error",
                  "missed_shocks")  # fmt: skip
    if not kept.any():
        return dict.fromkeys(nan_scores, float("nan"))
    runs, truth = runs[kept], truth[kept]
    anomaly = truth - truth.mean(axis=-1, keepdims=True)
    errors = np.sqrt(((runs - truth) ** 2).mean(axis=(0, 1, 3)) / (anomaly**2).mean(axis=(0, 1, 3)))
    energy = available_energy(runs, gravity, dx).mean()
    mass = runs[:, :, 0].sum(axis=-1)  # (members, records)
    distance = shock_distances(runs[:, :, 0], truth[:, :, 0], shock_jump)
    found = np.isfinite(distance)
    return {
        "h_error": float(errors[0]),
        "hu_error": float(errors[1]),
        "energy_bias": float(energy / available_energy(truth, gravity, dx).mean() - 1.0),
        "mass_drift": float(np.abs(mass / mass[:, :1] - 1.0).max()),
        "shock_position_error": float(np.nanmean(distance)) if found.any() else float("nan"),
        "missed_shocks": float(np.isnan(distance).mean()) if distance.size else float("nan"),
    }


def error_series(runs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``h`` error per record (members pooled, NaN runs left out): ``(records,)``."""
    anomaly = truth - truth.mean(axis=-1, keepdims=True)
    squared = ((runs[:, :, 0] - truth[:, :, 0]) ** 2).mean(axis=-1)  # (members, records)
    with np.errstate(all="ignore"):
        return np.sqrt(np.nanmean(squared, axis=0) / (anomaly[:, :, 0] ** 2).mean(axis=(0, 2)))
