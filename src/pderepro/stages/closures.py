"""Closure-study stages: truth runs, coarse-graining, fitting and offline skill."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
import xarray as xr

from pderepro.data.closure_pairs import write_truth_run
from pderepro.data.closure_systems import SPLITS, truth_run_size, truth_seed
from pderepro.data.io import ensure_free_space, open_netcdf, write_netcdf, write_scores
from pderepro.data.lorenz96_truth import (
    TARGETS,
    coarse_grain,
    ring_pairs,
    time_blocks,
    truth_run,
)
from pderepro.data.provenance import derived_provenance
from pderepro.data.scheduler import dask_scheduler
from pderepro.evaluation.predict import load_closure
from pderepro.models.closures import NETWORK_KINDS, Closure, build_network, fit_ar1, fit_polynomial
from pderepro.models.normalised import NormalisedModel
from pderepro.models.registry import count_parameters
from pderepro.runtime import set_threads
from pderepro.solvers.lorenz96.lorenz96 import Lorenz96Problem
from pderepro.training.checkpoint import fingerprint, save_checkpoint
from pderepro.training.loop import TrainingConfig, train

log = logging.getLogger(__name__)


def run_generate_truth(
    *,
    system: Mapping[str, Any],
    forcing: float,
    role: str,
    truth: Mapping[str, Any],
    seed: int,
    output: str,
    title: str,
    threads: int = 1,
) -> None:
    """One truth run of the two-scale Lorenz-96 model (``system.solver: lorenz96``) at
    forcing ``F``.

    ``pairs`` runs keep ``Y`` at ``truth.save_interval`` for coarse-graining;
    ``climate`` runs hold two independent ensembles of ``X`` (``ensemble`` 0: the
    reference the closures are scored against; 1: a second truth for the noise floor).
    """
    set_threads(threads)
    if system["solver"] != "lorenz96":
        raise ValueError(f"run_generate_truth runs Lorenz-96 truth, not {system['solver']!r}")
    parameters = {k: v for k, v in system.items() if k != "solver"}
    problem = Lorenz96Problem(**parameters, forcing=forcing)
    members, run_time, interval = truth_run_size(truth, role)
    per_state = problem.K * (problem.J + 1 if role == "pairs" else 1) * 4
    ensure_free_space(output, 1.2 * members * run_time / interval * per_state + 1e6, what=role)
    run_seed = truth_seed(seed, role, forcing)
    ds = truth_run(
        problem, members=members, spinup_time=truth["spinup_time"], run_time=run_time,
        save_interval=interval, seed=run_seed, store_fast=role == "pairs",
    )  # fmt: skip
    if role == "climate":
        ds = ds.assign_coords(ensemble=("sample", np.arange(members) // (members // 2)))
    write_truth_run(
        ds, output, title=f"{title}: truth {role} run, F={forcing:g}", system=system,
        setting={"forcing": forcing}, role=role, truth=truth, seed=run_seed,
    )  # fmt: skip


def run_coarse_grain(
    *,
    raw: str,
    outputs: Mapping[str, str],
    coarse_step: float,
    coupling: float,
    split: Mapping[str, float],
    threads: int = 1,
) -> None:
    """Coarse-grain a pairs run with dask and split it into contiguous time blocks."""
    fractions = {name: split[name] for name in SPLITS}
    with dask_scheduler(threads):
        ds = open_netcdf(
            raw, chunks={"time": 2000}, required=("X", "Y"), expect_attrs={"role": "pairs"}
        )
        pairs = coarse_grain(ds, coarse_step=coarse_step, coupling=coupling)
        gap = round(split["gap_time"] / coarse_step)
        blocks = time_blocks(pairs.sizes["time"], fractions, gap=gap)
        for name, block in blocks.items():
            part = pairs.isel(time=block)
            params = {
                **json.loads(ds.attrs["params"]),
                "coarse_step": coarse_step,
                "split": dict(split),
            }
            part.attrs.update(split=name)
            part.attrs.update(
                derived_provenance(
                    ds.attrs,
                    title=f"Lorenz-96 closure pairs, F={ds.attrs['forcing']:g}, {name} block",
                    rule="coarse_grain",
                    params=params,
                    input_files=[raw],
                )
            )
            log.info("%s block: %d coarse times", name, part.sizes["time"])
            write_netcdf(part, outputs[name])


def _open_split(path: str, split: str) -> xr.Dataset:
    return open_netcdf(path, required=("X", *TARGETS.values()), expect_attrs={"split": split})


def run_fit_closure(
    *,
    train_path: str,
    validation_path: str,
    checkpoint: str,
    closure: str,
    spec: Mapping[str, Any],
    target: str,
    training: Mapping[str, Any],
    seed: int,
    threads: int = 1,
) -> None:
    """Fit one closure on the train block and write a self-describing checkpoint."""
    set_threads(threads)
    torch.use_deterministic_algorithms(True)
    train_ds, val_ds = _open_split(train_path, "train"), _open_split(validation_path, "validation")
    x, u = ring_pairs(train_ds, target)  # (N, K) each
    kind = spec["kind"]
    meta: dict[str, Any] = {
        "closure": closure,
        "kind": kind,
        "label": spec.get("label", closure),
        "target": target,
        "forcing": float(train_ds.attrs["forcing"]),
        "coarse_step": float(train_ds.attrs["coarse_step"]),
        "data_fingerprint": fingerprint(x, u),
        "n_train": len(x),
        "n_params": 0,
    }
    states: dict[str, Any] = {}
    fitted = Closure("none")
    if kind == "polynomial":
        coefficients = fit_polynomial(x, u, spec["degree"])
        meta["coefficients"] = coefficients.tolist()
        meta["n_params"] = len(coefficients)
        fitted = Closure(kind, coefficients=coefficients)
    elif kind in NETWORK_KINDS:
        hparams = dict(spec.get("hparams", {}))
        torch.manual_seed(seed)
        net = build_network(kind, hparams)
        stats = {
            "input_mean": x.mean(), "input_std": x.std(), "target_mean": u.mean(),
            "target_std": u.std(),
        }  # fmt: skip
        model = NormalisedModel(net, stats)
        cfg = TrainingConfig.from_mapping(training)
        identity = {
            "closure": closure, "kind": kind, "hparams": hparams, "training": dict(training),
            "seed": seed, "data_fingerprint": meta["data_fingerprint"],
        }  # fmt: skip
        ensure_free_space(checkpoint, 16 * count_parameters(net) + 1e6, what=closure)
        resume = Path(checkpoint).with_name("resume.pt")
        history = train(
            model, torch.from_numpy(x), torch.from_numpy(u), cfg, seed=seed,
            device=torch.device("cpu"), identity=identity, resume_path=resume,
        )  # fmt: skip
        meta.update(hparams=hparams, history=history, n_params=count_parameters(net), seed=seed)
        states["model"] = model.state_dict()
        fitted = Closure(kind, network=model)
    if spec.get("noise") == "ar1":
        train_x = train_ds["X"].to_numpy().astype(np.float64)  # (sample, time, K)
        flat = train_x.reshape(-1, train_x.shape[-1])
        deterministic = fitted.tendency(flat).reshape(train_x.shape)
        noise = fit_ar1(train_ds[TARGETS[target]].to_numpy() - deterministic)
        meta["noise"] = {"kind": "ar1", "phi": noise.phi, "sigma": noise.sigma}
        log.info("AR(1) noise: phi=%.4f sigma=%.4f", noise.phi, noise.sigma)
    val_x, val_u = ring_pairs(val_ds, target)
    meta["validation_rmse"] = float(np.sqrt(np.mean((fitted.tendency(val_x) - val_u) ** 2)))
    log.info(
        "%s: validation RMSE %.4f (%d parameters)",
        closure,
        meta["validation_rmse"],
        meta["n_params"],
    )
    save_checkpoint(checkpoint, metadata=meta, **states)
    Path(checkpoint).with_name("resume.pt").unlink(missing_ok=True)


#: X values at which local closures are drawn in the offline figure.
CURVE_X = np.linspace(-15.0, 25.0, 161)


def run_offline(
    *,
    checkpoint: str,
    tests: Mapping[str, str],
    metrics: str,
    curves: str,
    closure: str,
    n_scatter: int = 2000,
) -> None:
    """R^2 and RMSE of the deterministic closure on each setup's test block.

    Also writes the closure's curve ``U(X)`` (local kinds) and a random subset of its
    predictions on the training setup's test block, for the offline figure.
    """
    fitted, meta = load_closure(checkpoint, expect={"closure": closure})
    rows, scatter = [], None
    for setup, path in tests.items():
        x, u = ring_pairs(_open_split(path, "test"), meta["target"])
        pred = fitted.tendency(x)
        residual = float(np.sum((pred - u) ** 2))
        total = float(np.sum((u - u.mean()) ** 2))
        rows.append(
            {"closure": closure, "label": meta["label"], "setup": setup,
             "r2": 1.0 - residual / total, "rmse": float(np.sqrt(residual / u.size))}
        )  # fmt: skip
        if scatter is None:  # the first setup is the training setup
            pick = np.random.default_rng(0).choice(len(x), min(n_scatter, len(x)), replace=False)
            scatter = (x[pick, 0], u[pick, 0], pred[pick, 0], setup)
    local = meta["kind"] in ("none", "polynomial", "mlp")
    curve = fitted.tendency(CURVE_X[:, None])[:, 0] if local else np.full(CURVE_X.shape, np.nan)
    ds = xr.Dataset(
        {
            "curve": (("x_value",), curve),
            "x_test": (("point",), scatter[0]),
            "u_test": (("point",), scatter[1]),
            "u_pred": (("point",), scatter[2]),
        },
        coords={"x_value": CURVE_X},
    )
    ds.attrs.update(label=meta["label"], closure=closure, setup=scatter[3], target=meta["target"])
    write_scores(
        rows, ds, metrics=metrics, curves=curves, title=f"offline curves of {closure}",
        rule="offline", params={"closure": closure}, input_files=[checkpoint],
    )  # fmt: skip
