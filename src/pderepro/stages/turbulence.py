"""Closure-study stages of forced 2-D turbulence: DNS truth, LES pairs, fits, offline skill.

The ``turbulence2d`` system of the closures kind (:mod:`pderepro.data.closure_systems`); the
Lorenz-96 system's stages are in :mod:`pderepro.stages.closures`, and the workflow picks one by
``system.solver`` (:func:`pderepro.stages.closure_stage`). The online stages are in
:mod:`pderepro.stages.turbulence_online`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import xarray as xr

from pderepro.data.closure_pairs import write_pair_blocks, write_truth_run
from pderepro.data.closure_systems import truth_run_size, truth_seed
from pderepro.data.dns_segments import DnsSegment
from pderepro.data.io import ensure_free_space, open_netcdf, write_scores
from pderepro.data.turbulence import spin_up_and_snapshots
from pderepro.data.turbulence_pairs import filtered_pairs
from pderepro.data.turbulence_problems import dns_problem, les_problem
from pderepro.evaluation.les_scores import (
    CLASSICAL_KINDS,
    advected_shells,
    load_les_closure,
    offline_scores,
)
from pderepro.evaluation.turbulence import enstrophy_spectrum, spectrum_log_error
from pderepro.models.les_cnn import build_cnn_closure_model, cnn_inputs
from pderepro.models.registry import count_parameters
from pderepro.models.smarl import observation_scales
from pderepro.runtime import set_threads
from pderepro.solvers.turbulence.les_closures import LEITH_CONSTANT, SMAGORINSKY_CONSTANT
from pderepro.solvers.turbulence.les_filters import advected_part
from pderepro.training.checkpoint import fingerprint, save_checkpoint
from pderepro.training.loop import TrainingConfig, train
from pderepro.training.smarl import train_smarl

log = logging.getLogger(__name__)

#: Textbook constants of the classical closures that take one.
DEFAULT_CONSTANTS = {"smagorinsky": SMAGORINSKY_CONSTANT, "leith": LEITH_CONSTANT}
#: Points of the offline scatter written for the figure.
N_SCATTER = 2000


def run_generate_truth_turbulence(
    *, system: Mapping[str, Any], beta: float, role: str, truth: Mapping[str, Any], seed: int,
    output: str | None, title: str, threads: int = 1, resume: Sequence[str] = (),
    stop_step: int | None = None, state: str | None = None,
) -> None:  # fmt: skip
    """One DNS run of a case: ``pairs`` keep snapshots every ``truth.save_interval`` for the LES
    pairs; ``climate`` holds two independent ensembles (``ensemble`` 0: the reference, 1: the
    noise floor) every ``truth.climate_save_interval``. Both discard ``truth.spinup_time``.

    A run longer than a cluster job runs in segments (:mod:`pderepro.data.dns_segments`): a
    segment job steps from the state ``resume[-1]`` up to DNS step ``stop_step`` and saves its
    ``state`` (no ``output``); the run's own job resumes from the last, gathers the snapshots of
    every segment in ``resume`` and writes ``output``.

    The wall time per member and simulated time unit is recorded (``wall_s_per_member_time``,
    over all the segments), the denominator of the LES cost ratio.
    """
    set_threads(threads)
    members, run_time, interval = truth_run_size(truth, role)
    n_snapshots = round(run_time / interval)
    problem = dns_problem(system, beta)
    n = problem.resolution
    if stop_step is None:
        ensure_free_space(output, 1.2 * members * n_snapshots * n * n * 4 + 1e6, what=role)
    run_seed = truth_seed(seed, role, beta)
    ds = spin_up_and_snapshots(
        problem, n_members=members, seed=run_seed, spin_up_time=truth["spinup_time"],
        n_snapshots=n_snapshots, snapshot_interval=interval, device="cpu",
        segment=DnsSegment(resume=tuple(resume), stop=stop_step, save=state),
    )  # fmt: skip
    if ds is None:  # a segment: its state is saved
        return
    wall = ds.attrs.pop("dns_wall_seconds")
    simulated = truth["spinup_time"] + (n_snapshots - 1) * interval
    if role == "climate":
        ds = ds.assign_coords(ensemble=("member", np.arange(members) // (members // 2)))
    attrs = {"beta": float(beta), "save_interval": float(interval), "wall_seconds": wall,
             "wall_s_per_member_time": wall / (members * simulated)}  # fmt: skip
    write_truth_run(
        ds, output, title=f"{title}: DNS {role} run, beta={beta:g}", system=system,
        setting={"beta": beta}, role=role, truth=truth, seed=run_seed, attrs=attrs,
    )  # fmt: skip


def run_coarse_grain_turbulence(
    *, raw: str, outputs: Mapping[str, str], les_resolution: int, filter: str,
    split: Mapping[str, float], threads: int = 1,
) -> None:  # fmt: skip
    """Filter a pairs run into LES pairs ``(w_bar, psi_bar, Pi)`` and split them into contiguous
    time blocks (``split.gap_time`` left out between blocks)."""
    set_threads(threads)
    ds = open_netcdf(raw, required=("w",), expect_attrs={"role": "pairs"})
    pairs = filtered_pairs(ds, n_les=les_resolution, filter=filter, device="cpu")
    write_pair_blocks(
        pairs, outputs, split=split, source=ds, raw=raw,
        title=f"LES pairs of 2-D turbulence, beta={ds.attrs['beta']:g}",
        params={"les_resolution": les_resolution, "filter": filter},
    )  # fmt: skip


def _open_pairs(path: str, split: str) -> xr.Dataset:
    return open_netcdf(path, required=("w_bar", "psi_bar", "Pi"), expect_attrs={"split": split})


def _flat(ds: xr.Dataset, name: str) -> np.ndarray:
    """``(member * time, n, n)`` float32 in the ``(x, y)`` layout, on the modes the LES
    advects (:func:`~pderepro.solvers.turbulence.les_filters.advected_part`): what an LES state
    holds and what of ``Pi`` the LES uses, so closures are trained and scored on that alone."""
    values = ds[name].transpose("member", "time", "x", "y").to_numpy()
    flat = torch.as_tensor(values.reshape(-1, *values.shape[-2:]), dtype=torch.float64)
    return advected_part(flat).numpy().astype(np.float32)


def _fit_cnn(train_ds, val_ds, spec, training, seed, checkpoint) -> tuple[dict, dict]:
    w, psi, pi = (_flat(train_ds, v) for v in ("w_bar", "psi_bar", "Pi"))
    stats = {"w_std": float(w.std()), "psi_std": float(psi.std()), "pi_mean": float(pi.mean()),
             "pi_std": float(pi.std())}  # fmt: skip
    hparams = dict(spec.get("hparams", {}))
    torch.manual_seed(seed)
    model = build_cnn_closure_model(hparams, stats)
    inputs = cnn_inputs(torch.from_numpy(w), torch.from_numpy(psi))  # (N, 2, n, n)
    val = cnn_inputs(*(torch.from_numpy(_flat(val_ds, v)) for v in ("w_bar", "psi_bar")))
    identity = {"kind": "cnn", "hparams": hparams, "training": dict(training), "seed": seed,
                "data_fingerprint": fingerprint(w, psi, pi)}  # fmt: skip
    history = train(
        model, inputs, torch.from_numpy(pi), TrainingConfig.from_mapping(training), seed=seed,
        device=torch.device("cpu"), identity=identity,
        resume_path=Path(checkpoint).with_name("resume.pt"),
        validation=(val, torch.from_numpy(_flat(val_ds, "Pi"))),
    )  # fmt: skip
    meta = {"hparams": hparams, "stats": stats, "history": history,
            "n_params": count_parameters(model.net), "n_train": len(w)}  # fmt: skip
    return meta, {"model": model.state_dict()}


def _fit_smarl(train_ds, system, les_time_step, smarl, seed, blowup_threshold):
    """PPO on the error of the LES enstrophy spectrum against the mean spectrum of
    ``smarl.snapshots`` filtered DNS snapshots, evenly spaced over the train block of the first
    pairs member (episodes start from them): all SMARL sees of the truth."""
    member = _flat(train_ds.isel(member=[0]), "w_bar")  # (time, n, n)
    pick = np.unique(np.linspace(0, len(member) - 1, smarl["snapshots"]).round().astype(int))
    few = member[pick].astype(np.float64)  # (snapshots, n, n)
    box, n_les = system["box_size"], system["les_resolution"]
    target = enstrophy_spectrum(few).mean(axis=0)
    k_max = advected_shells(n_les)

    def reward(w: np.ndarray) -> np.ndarray:  # (batch, n, n) -> (batch,)
        spectra = enstrophy_spectrum(w)
        return -np.array([spectrum_log_error(s, target, k_max=k_max) for s in spectra])

    scales = observation_scales(torch.as_tensor(few), box)
    problem = les_problem(system, float(train_ds.attrs["beta"]), les_time_step,
                          smarl["episode_time"], smarl["action_interval"])  # fmt: skip
    hidden = (64, 64)
    policy, curve = train_smarl(
        problem=problem, starts=few, reward=reward, scales=scales,
        agents_per_side=smarl["agents_per_side"], cs_max=smarl["cs_max"],
        action_interval=smarl["action_interval"], episode_time=smarl["episode_time"],
        timesteps=smarl["timesteps"], batch=smarl["batch"], action_std=smarl["action_std"],
        seed=seed, hidden=hidden,
        blowup_threshold=blowup_threshold,
    )  # fmt: skip
    meta = {
        "hidden": list(hidden), "agents_per_side": smarl["agents_per_side"],
        "cs_max": smarl["cs_max"], "scales": np.asarray(scales).tolist(),
        "steps_per_action": round(smarl["action_interval"] / les_time_step),
        "smarl": dict(smarl), "n_snapshots": len(few), "target_spectrum": target.tolist(),
        "curve": {c: curve[c].astype(float).tolist() for c in curve.columns},
        "n_params": count_parameters(policy),
    }  # fmt: skip
    return meta, {"policy": policy.state_dict()}


def run_fit_closure_turbulence(
    *, train_path: str, validation_path: str, checkpoint: str, closure: str,
    spec: Mapping[str, Any], training: Mapping[str, Any], system: Mapping[str, Any],
    les_time_step: float, smarl: Mapping[str, Any] | None, seed: int,
    blowup_threshold: float, threads: int = 1,
) -> None:  # fmt: skip
    """Fit one LES closure on the training case's train block (classical closures have nothing
    to fit: their checkpoint records the constant) and write a self-describing checkpoint.
    ``blowup_threshold`` (max ``|w|``, 1/time) ends SMARL's training episodes as the online
    runs count blow-ups."""
    set_threads(threads)
    torch.use_deterministic_algorithms(True)
    train_ds, val_ds = _open_pairs(train_path, "train"), _open_pairs(validation_path, "validation")
    kind = spec["kind"]
    meta: dict[str, Any] = {
        "closure": closure, "kind": kind, "label": spec.get("label", closure),
        "constant": spec.get("constant", DEFAULT_CONSTANTS.get(kind)),
        "beta": float(train_ds.attrs["beta"]), "n_params": 0, "seed": seed,
    }  # fmt: skip
    states: dict[str, Any] = {}
    ensure_free_space(checkpoint, 1e7, what=closure)
    if kind == "cnn":
        extra, states = _fit_cnn(train_ds, val_ds, spec, training, seed, checkpoint)
        meta.update(extra)
    elif kind == "smarl":
        if smarl is None:
            raise ValueError(f"closure {closure!r} of kind smarl needs the study's smarl section")
        extra, states = _fit_smarl(train_ds, system, les_time_step, smarl, seed,
                                   blowup_threshold)  # fmt: skip
        meta.update(extra)
    elif kind not in CLASSICAL_KINDS:
        raise ValueError(f"closure {closure!r}: kind {kind!r} is not an LES closure")
    save_checkpoint(checkpoint, metadata=meta, **states)
    fitted, _ = load_les_closure(checkpoint)
    scores, _ = offline_scores(fitted, _flat(val_ds, "w_bar"), _flat(val_ds, "Pi"),
                               system["box_size"])  # fmt: skip
    log.info("%s (%s, %d parameters): validation Pi correlation %.3f", closure, kind,
             meta["n_params"], scores["pi_correlation"])  # fmt: skip
    Path(checkpoint).with_name("resume.pt").unlink(missing_ok=True)


def run_offline_turbulence(
    *, checkpoint: str, tests: Mapping[str, str], metrics: str, curves: str, closure: str,
    n_scatter: int = N_SCATTER,
) -> None:  # fmt: skip
    """Correlation and RMSE of the closure's ``Pi`` on each case's test block; the curves file
    keeps a scatter sample of the training case (the first) and SMARL's training curve."""
    fitted, meta = load_les_closure(checkpoint, expect={"closure": closure})
    rows, scatter = [], None
    for case, path in tests.items():
        ds = _open_pairs(path, "test")
        pi = _flat(ds, "Pi")
        scores, pred = offline_scores(fitted, _flat(ds, "w_bar"), pi, float(ds.attrs["box_size"]))
        rows.append({"closure": closure, "label": meta["label"], "case": case, **scores})
        if scatter is None:
            rng = np.random.default_rng(0)
            pick = rng.choice(pi.size, min(n_scatter, pi.size), replace=False)
            scatter = (pi.ravel()[pick], pred.ravel()[pick], case, scores["pi_correlation"])
    out = xr.Dataset({"pi_true": (("point",), scatter[0]), "pi_pred": (("point",), scatter[1])})
    if meta["kind"] == "smarl":
        curve = meta["curve"]
        out["rl_timesteps"] = (("iteration",), np.asarray(curve["timesteps"]))
        out["rl_reward"] = (("iteration",), np.asarray(curve["episode_reward"]))
        out["rl_mean_cs"] = (("iteration",), np.asarray(curve["mean_cs"]))
    out.attrs.update(label=meta["label"], closure=closure, kind=meta["kind"], case=scatter[2],
                     pi_correlation=scatter[3])  # fmt: skip
    write_scores(
        rows, out, metrics=metrics, curves=curves, title=f"offline curves of {closure}",
        rule="offline", params={"closure": closure}, input_files=[checkpoint],
    )  # fmt: skip
