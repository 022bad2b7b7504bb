"""Closure-study stages of forced 1-D shallow water: truth, exact flux pairs, fits, offline skill.

The ``shallow_water1d`` system of the closures kind (:mod:`pderepro.data.closure_systems`),
picked by ``system.solver`` (:func:`pderepro.stages.closure_stage`); its online stages, tables
and figures are in :mod:`pderepro.stages.shallow_water_online`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.closure_pairs import write_pair_blocks, write_truth_run
from pderepro.data.closure_systems import truth_run_size, truth_seed
from pderepro.data.io import ensure_free_space, open_netcdf, write_scores
from pderepro.data.shallow_water_truth import coarse_problem, truth_run
from pderepro.evaluation.shallow_water_scores import (
    FLUX_CLOSURE_KINDS,
    load_flux_closures,
    offline_scores,
)
from pderepro.models.flux_stencil import StencilFluxNet, fit_diffusion, stencil_features
from pderepro.models.registry import count_parameters
from pderepro.runtime import set_threads
from pderepro.solvers.shallow_water.coarse import exact_correction
from pderepro.training.checkpoint import fingerprint, save_checkpoint
from pderepro.training.loop import TrainingConfig, train

log = logging.getLogger(__name__)


def run_generate_truth_shallow_water(
    *, system: Mapping[str, Any], forcing_amplitude: float, role: str,
    truth: Mapping[str, Any], seed: int, output: str, title: str, threads: int = 1,
) -> None:  # fmt: skip
    """One truth run of a setup on the fine grid, kept on the coarse grid
    (:func:`pderepro.data.shallow_water_truth.truth_run`): ``pairs`` every
    ``truth.save_interval`` with the coarse-face fluxes, ``climate`` two ensembles every
    ``truth.climate_save_interval``."""
    set_threads(threads)
    members, run_time, interval = truth_run_size(truth, role)
    members = members // 2 if role == "climate" else members  # per ensemble
    run_seed = truth_seed(seed, role, forcing_amplitude)
    ds = truth_run(
        system, forcing_amplitude, members=members, spinup_time=truth["spinup_time"],
        run_time=run_time, record_interval=interval, seed=run_seed, role=role,
    )  # fmt: skip
    write_truth_run(
        ds, output, title=f"{title}: {role} run, A={forcing_amplitude:g}", system=system,
        setting={"forcing_amplitude": forcing_amplitude}, role=role, truth=truth, seed=run_seed,
    )  # fmt: skip


def run_coarse_grain_shallow_water(
    *, raw: str, outputs: Mapping[str, str], system: Mapping[str, Any],
    split: Mapping[str, float], threads: int = 1,
) -> None:  # fmt: skip
    """Closure pairs ``(state, correction)`` from a pairs run, in contiguous time blocks.

    ``correction`` is the exact sub-grid flux correction
    (:func:`~pderepro.solvers.shallow_water.coarse.exact_correction`): the fine run's
    time-averaged flux through each coarse face over the coarse step, minus the coarse
    scheme's from the filtered state."""
    set_threads(threads)
    ds = open_netcdf(raw, required=("state", "flux"), expect_attrs={"role": "pairs"})
    coarse = coarse_problem(system)
    state = ds["state"].to_numpy().astype(np.float64)  # (member, time, var, x)
    flux = ds["flux"].to_numpy().astype(np.float64)
    flat = state.reshape(-1, *state.shape[2:])
    correction = exact_correction(flat, flux.reshape(flat.shape), system["time_step"], coarse)
    pairs = xr.Dataset(
        {"state": (("member", "time", "var", "x"), state),
         "correction": (("member", "time", "var", "x"), correction.reshape(state.shape))},
        coords={"time": ds["time"], "var": ds["var"], "x": ds["x"]},
    )  # fmt: skip
    write_pair_blocks(
        pairs, outputs, split=split, source=ds, raw=raw,
        title=f"Shallow-water flux pairs, A={ds.attrs['amplitude']:g}", params={},
        attrs={"amplitude": ds.attrs["amplitude"], "coarse_time_step": system["time_step"]},
    )  # fmt: skip


def _open_pairs(path: str, split: str) -> xr.Dataset:
    return open_netcdf(path, required=("state", "correction"), expect_attrs={"split": split})


def _pairs(ds: xr.Dataset) -> tuple[np.ndarray, np.ndarray]:
    """``(N, 2, n)`` states and corrections of a split's pairs, float64."""
    state, correction = (ds[v].to_numpy().astype(np.float64) for v in ("state", "correction"))
    return state.reshape(-1, *state.shape[2:]), correction.reshape(-1, *state.shape[2:])


def _fit_networks(train_pairs, val_pairs, spec, training, seed, checkpoint):
    """``spec.seeds`` stencil networks from seeds ``seed, seed + 1, ...``, each keeping the
    epoch of its lowest validation loss (:func:`pderepro.training.loop.train`)."""
    states, corrections = train_pairs
    hidden = list(spec.get("hparams", {}).get("hidden", [64, 64]))
    features = stencil_features(torch.from_numpy(states)).reshape(-1, 10)
    scale = corrections.std(axis=(0, 2))

    def tensors(pair):  # inputs and normalised targets, float32
        return (torch.from_numpy(pair[0]).float(),
                torch.from_numpy(pair[1] / scale[None, :, None]).float())  # fmt: skip

    inputs, targets = tensors(train_pairs)
    validation = tensors(val_pairs)
    histories, models = [], {}
    for k in range(spec.get("seeds", 1)):
        torch.manual_seed(seed + k)
        net = StencilFluxNet(hidden=hidden, feature_mean=features.mean(0).tolist(),
                             feature_std=features.std(0).clamp_min(1e-12).tolist(),
                             target_scale=scale.tolist())  # fmt: skip
        identity = {"kind": "stencil_mlp", "hidden": hidden, "training": dict(training),
                    "seed": seed + k, "data_fingerprint": fingerprint(*train_pairs)}  # fmt: skip
        resume = Path(checkpoint).with_name(f"resume_{k}.pt")
        histories.append(train(
            net, inputs, targets, TrainingConfig.from_mapping(training), seed=seed + k,
            device=torch.device("cpu"), identity=identity, resume_path=resume,
            validation=validation,
        ))  # fmt: skip
        models[f"model_{k}"] = net.state_dict()
    meta = {"hparams": {"hidden": hidden}, "history": histories, "seeds": len(histories),
            "n_params": count_parameters(net), "n_train": len(states),
            "target_scale": scale.tolist()}  # fmt: skip
    return meta, models


def run_fit_closure_shallow_water(
    *, train_path: str, validation_path: str, checkpoint: str, closure: str,
    spec: Mapping[str, Any], training: Mapping[str, Any], system: Mapping[str, Any],
    seed: int, threads: int = 1,
) -> None:  # fmt: skip
    """Fit one flux closure on the training setup's train block and write a self-describing
    checkpoint (``none`` records only its name; ``diffusion`` its least-squares ``kappa``;
    ``stencil_mlp`` the network, its epoch chosen on the validation block)."""
    set_threads(threads)
    torch.use_deterministic_algorithms(True)
    kind = spec["kind"]
    if kind not in FLUX_CLOSURE_KINDS:
        raise ValueError(f"closure {closure!r}: kind {kind!r} is not a shallow-water flux closure")
    train_pairs = _pairs(_open_pairs(train_path, "train"))
    val_pairs = _pairs(_open_pairs(validation_path, "validation"))
    meta: dict[str, Any] = {
        "closure": closure, "kind": kind, "label": spec.get("label", closure),
        "limited": bool(spec.get("limited", False)), "gravity": float(system["gravity"]),
        "n_params": 0, "seed": seed,
    }  # fmt: skip
    states: dict[str, Any] = {}
    ensure_free_space(checkpoint, 1e7, what=closure)
    if kind == "diffusion":
        meta["kappa"] = fit_diffusion(*train_pairs, float(system["gravity"]))
        meta["n_params"] = 2
        log.info("%s: kappa (h, hu) = %s", closure, meta["kappa"])
    elif kind == "stencil_mlp":
        extra, states = _fit_networks(train_pairs, val_pairs, spec, training, seed, checkpoint)
        meta.update(extra)
    save_checkpoint(checkpoint, metadata=meta, **states)
    for k, fitted in enumerate(load_flux_closures(checkpoint)[0]):
        scores, _ = offline_scores(fitted, meta["limited"], *val_pairs, coarse_problem(system),
                                   system["time_step"])  # fmt: skip
        log.info("%s (%s, %d parameters), seed %d: validation %s", closure, kind,
                 meta["n_params"], seed + k, scores)  # fmt: skip
        Path(checkpoint).with_name(f"resume_{k}.pt").unlink(missing_ok=True)


def run_offline_shallow_water(
    *, checkpoint: str, tests: Mapping[str, str], metrics: str, curves: str, closure: str,
    n_scatter: int = 2000,
) -> None:  # fmt: skip
    """Offline skill on every setup's test block (the mean over a closure's seeds); the
    curves keep a scatter sample of the first seed's predicted against the exact corrections
    at the training setup (the first)."""
    closures, meta = load_flux_closures(checkpoint, expect={"closure": closure})
    rows, scatter = [], None
    for setup, path in tests.items():
        ds = _open_pairs(path, "test")
        params = json.loads(ds.attrs["params"])
        states, corrections = _pairs(ds)
        problem, dt = coarse_problem(params["system"]), float(ds.attrs["coarse_time_step"])
        per_seed = [offline_scores(fitted, meta["limited"], states, corrections, problem, dt)
                    for fitted in closures]  # fmt: skip
        mean = pd.DataFrame([scores for scores, _ in per_seed]).mean().to_dict()
        rows.append({"closure": closure, "label": meta["label"], "setup": setup, **mean,
                     "seeds": len(closures)})  # fmt: skip
        if scatter is None:  # the first seed's predictions at the training setup
            rng = np.random.default_rng(0)
            flat = corrections.transpose(1, 0, 2).reshape(2, -1)
            pick = rng.choice(flat.shape[1], min(n_scatter, flat.shape[1]), replace=False)
            guess = per_seed[0][1].transpose(1, 0, 2).reshape(2, -1)
            scatter = (flat[:, pick], guess[:, pick], setup)
    out = xr.Dataset({"correction_true": (("var", "point"), scatter[0]),
                      "correction_pred": (("var", "point"), scatter[1])},
                     coords={"var": ["h", "hu"]})  # fmt: skip
    out.attrs.update(label=meta["label"], closure=closure, kind=meta["kind"], setup=scatter[2],
                     limited=int(meta["limited"]))  # fmt: skip
    write_scores(
        rows, out, metrics=metrics, curves=curves, title=f"offline curves of {closure}",
        rule="offline", params={"closure": closure}, input_files=[checkpoint],
    )  # fmt: skip
