"""Stages of a parametric study (PDEBench 1-D, CAPE): train a one-step autoregressive
surrogate on the trajectories of some parameter values, roll it out on the test
trajectories of every value, and score the predicted frames only.

The processed files hold the trajectories ``u(sample, time, x)`` of one parameter value
each, already strided in space; the protocol strides time (``time_stride``) and says how
many true frames condition a rollout (``context``). Fields are normalised by the mean and
standard deviation of ``u`` over the training files; each parameter enters the model as
``transform(value)`` standardised over the training values (or not at all, for a model
that is not conditioned on them). The tables and figures are made in
:mod:`.parametric_reports`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import atomic_write, open_layout_netcdf, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.trajectory_metrics import (
    SAMPLE_METRICS,
    SPLIT_METRICS,
    boundary_rmse,
    nrmse,
    nrmse_per_step,
    pooled_rel_l2,
    rmse,
    split_metrics,
)
from pderepro.models.registry import build_model, count_parameters, effective_hparams
from pderepro.models.step1d import rollout
from pderepro.runtime import set_threads
from pderepro.training.autoregressive import AutoregressiveConfig, train_autoregressive
from pderepro.training.checkpoint import fingerprint, load_checkpoint, save_checkpoint

log = logging.getLogger(__name__)

#: How a parameter value enters a model before standardisation.
TRANSFORMS = {"log10": np.log10, "identity": lambda v: np.asarray(v, dtype=np.float64)}
#: Columns of a parametric metrics file: one row per test sample, model (or reference),
#: parameter value and seed. ``nrmse``, ``rmse`` and ``brmse`` are PDEBench's per-sample
#: values, ``rel_l2_pooled`` the space-time pooled ratio (not PDEBench's); ``crmse``,
#: ``max_error`` and ``frmse_*`` are PDEBench's metrics over the value's whole test split,
#: repeated on each of its rows (:mod:`pderepro.evaluation.trajectory_metrics`).
PARAMETRIC_METRIC_COLUMNS = [
    "pde",
    "model",
    "label",
    "value",
    "split",
    "seed",
    "sample",
    *SAMPLE_METRICS,
    *SPLIT_METRICS,
]


def _names(parameter: str | Sequence[str]) -> list[str]:
    return [parameter] if isinstance(parameter, str) else list(parameter)


def load_trajectories(
    paths: Sequence[str],
    *,
    split: str,
    parameter: str | Sequence[str],
    time_stride: int,
    fractions: Sequence[float] | None = None,
) -> tuple[torch.Tensor, np.ndarray]:
    """Trajectories of several parameter values, strided in time.

    Parameters
    ----------
    fractions : sequence of float, optional
        Per path, the share of its trajectories kept (the first ``ceil(fraction * n)``);
        all of them by default.

    Returns
    -------
    tuple
        ``u`` as float32 ``(N, frames, x)`` and the parameters of each trajectory
        ``(N, n_parameters)``, float64.
    """
    fields, values = [], []
    for path, fraction in zip(paths, fractions or [1.0] * len(paths), strict=True):
        ds, layout = open_layout_netcdf(path, expect_attrs={"split": split})
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"{path}: fraction {fraction} is not in (0, 1]")
        ds = ds.isel(sample=slice(0, math.ceil(fraction * ds.sizes["sample"])))
        u = ds[layout.target].isel(time=slice(None, None, time_stride))
        fields.append(torch.from_numpy(u.to_numpy().astype(np.float32)))  # (n, frames, x)
        values.append(np.stack([ds[p].to_numpy() for p in _names(parameter)], axis=1))
    return torch.cat(fields), np.concatenate(values).astype(np.float64)


def _parameter_stats(values: np.ndarray, transform: str) -> dict[str, list[float]]:
    """Per parameter, the mean and std of the transformed training values (std 1 where a
    parameter does not vary)."""
    transformed = TRANSFORMS[transform](values)  # (N, n_parameters)
    std = transformed.std(axis=0)
    return {"mean": transformed.mean(axis=0).tolist(), "std": np.where(std > 0, std, 1.0).tolist()}


def _model_params(
    values: np.ndarray, stats: Mapping[str, Any], transform: str, conditioned: bool
) -> torch.Tensor | None:
    if not conditioned:
        return None
    mean, std = np.asarray(stats["mean"]), np.asarray(stats["std"])
    standard = (TRANSFORMS[transform](values) - mean) / std
    return torch.from_numpy(standard.astype(np.float32))  # (N, n_parameters)


def epochs_for_steps(training: Mapping[str, Any], n_train: int) -> dict[str, Any]:
    """Training settings with ``epochs`` (and ``step_epochs``, keeping the number of
    rate halvings) set so that the run makes about ``optimizer_steps`` optimiser steps
    over ``n_train`` trajectories; unchanged without ``optimizer_steps``."""
    if "optimizer_steps" not in training:
        return dict(training)
    out = {k: v for k, v in training.items() if k != "optimizer_steps"}
    per_epoch = math.ceil(n_train / training["batch_size"])
    epochs = max(1, round(training["optimizer_steps"] / per_epoch))
    halvings = training["epochs"] / training.get("step_epochs", training["epochs"])
    out.update(epochs=epochs, step_epochs=max(1, round(epochs / halvings)))
    return out


def run_train_parametric(
    *,
    train_paths: Sequence[str],
    validation_paths: Sequence[str],
    checkpoint: str,
    history: str,
    pde: str,
    model: str,
    spec: Mapping[str, Any],
    training: Mapping[str, Any],
    protocol: Mapping[str, Any],
    parameter: str | Sequence[str],
    seed: int,
    fractions: Sequence[float] | None = None,
    threads: int = 1,
) -> None:
    """Train one one-step model on the training values' trajectories; the weights of
    the epoch with the lowest validation rollout error are kept.

    ``spec`` holds ``architecture``, ``hparams`` and ``conditioned`` (whether the model
    reads the parameters); ``protocol`` holds ``context``, ``time_stride`` and
    ``transform``; ``training`` the :class:`AutoregressiveConfig` keys, or
    ``optimizer_steps`` in place of a fixed epoch count (:func:`epochs_for_steps`);
    ``fractions`` the share of each training file's trajectories used.
    """
    set_threads(threads)
    torch.use_deterministic_algorithms(True)
    stride, transform = protocol["time_stride"], protocol["transform"]
    u, values = load_trajectories(
        train_paths, split="train", parameter=parameter, time_stride=stride, fractions=fractions
    )
    training = epochs_for_steps(training, len(u))
    val_u, val_values = load_trajectories(
        validation_paths, split="validation", parameter=parameter, time_stride=stride
    )
    u_stats = {"mean": float(u.mean()), "std": float(u.std())}
    p_stats = _parameter_stats(values, transform)
    conditioned = bool(spec.get("conditioned", False))

    def normalise(frames: torch.Tensor) -> torch.Tensor:
        return (frames - u_stats["mean"]) / u_stats["std"]

    hparams = {**spec.get("hparams", {}), "n_params": values.shape[1] if conditioned else 0}
    torch.manual_seed(seed)
    net = build_model(
        spec["architecture"],
        hparams,
        resolution=u.shape[-1],
        n_train=len(u),
        input_shape=(protocol["context"], u.shape[-1]),
    )
    cfg = AutoregressiveConfig(
        **{k: v for k, v in training.items() if k in AutoregressiveConfig.__dataclass_fields__}
    )
    log.info(
        "training %s (%s) on %d trajectories of %s, %d parameters, curriculum %s",
        model, pde, len(u), sorted({tuple(v) for v in values.tolist()}), count_parameters(net),
        cfg.curriculum,
    )  # fmt: skip
    tic = time.perf_counter()
    rows = train_autoregressive(
        net,
        normalise(u),
        _model_params(values, p_stats, transform, conditioned),
        cfg,
        seed=seed,
        validation=(
            normalise(val_u),
            _model_params(val_values, p_stats, transform, conditioned),
        ),
    )
    best = min(rows, key=lambda row: row["val_rollout_rel_l2"])
    meta = {
        "pde": pde,
        "model": model,
        "label": spec.get("label", model),
        "architecture": spec["architecture"],
        "hparams": effective_hparams(net),
        "conditioned": conditioned,
        "protocol": dict(protocol),
        "parameter": parameter,
        "training": dict(training),
        "seed": seed,
        "u_stats": u_stats,
        "parameter_stats": p_stats,
        "train_values": [
            k[0] if len(k) == 1 else list(k) for k in sorted({tuple(v) for v in values.tolist()})
        ],
        "optimizer_steps": cfg.epochs * math.ceil(len(u) / cfg.batch_size),
        "resolution": int(u.shape[-1]),
        "n_train": len(u),
        "n_params": count_parameters(net),
        "selected_epoch": int(best["epoch"]),
        "val_rollout_rel_l2": best["val_rollout_rel_l2"],
        "train_seconds": time.perf_counter() - tic,
        "data_fingerprint": fingerprint(u, val_u),
        "history": rows,
    }
    save_checkpoint(checkpoint, metadata=meta, model=net.state_dict())
    atomic_write(history, lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False))


def _value_key(value: float | Sequence[float]) -> tuple[float, ...]:
    return tuple(float(v) for v in value) if isinstance(value, list | tuple) else (float(value),)


def _value_text(names: Sequence[str], key: tuple[float, ...]) -> float | str:
    """A value in the metrics: the number for one parameter, ``nu=0.5 rho=1`` for several."""
    if len(key) == 1:
        return key[0]
    return " ".join(f"{n}={v:g}" for n, v in zip(names, key, strict=True))


def _persistence(truth: np.ndarray, context: int) -> np.ndarray:
    """The last context frame held for every predicted step (no learning)."""
    steps = truth.shape[1] - context
    return np.repeat(truth[:, context - 1 : context], steps, axis=1)


def _score_rows(pred: np.ndarray, truth: np.ndarray, **run: Any) -> pd.DataFrame:
    """Per-sample rows of :data:`PARAMETRIC_METRIC_COLUMNS` for predicted frames."""
    return pd.DataFrame(
        {
            **run,
            "sample": np.arange(len(pred)),
            "nrmse": nrmse(pred, truth),
            "rel_l2_pooled": pooled_rel_l2(pred, truth),
            "rmse": rmse(pred, truth),
            "brmse": boundary_rmse(pred, truth),
            **split_metrics(pred, truth),  # one value per split, on every row
        }
    )


def run_evaluate_parametric(
    *,
    checkpoint: str,
    test_paths: Sequence[str],
    seen_values: Sequence[float | Sequence[float]],
    metrics: str,
    per_step: str,
    predictions: str,
    n_keep: int = 1,
    threads: int = 1,
) -> None:
    """Roll a trained model out from the first ``context`` true frames of every test
    trajectory of every value, and score the predicted frames (and persistence, the
    no-learning reference, on the same frames).

    Writes per-sample metrics (:data:`PARAMETRIC_METRIC_COLUMNS`), the mean nRMSE of
    each predicted step per value (``per_step``: ``model, value, split, step, nrmse``)
    and the first ``n_keep`` rollouts of every value with their truth (``predictions``:
    ``u, prediction (value, sample, time, x)``, the context frames included in ``u``).
    """
    set_threads(threads)
    payload = load_checkpoint(checkpoint)
    meta = payload["metadata"]
    protocol, u_stats = meta["protocol"], meta["u_stats"]
    net = build_model(
        meta["architecture"],
        meta["hparams"],
        resolution=meta["resolution"],
        n_train=meta["n_train"],
        input_shape=(protocol["context"], meta["resolution"]),
    )
    net.load_state_dict(payload["model"])
    net.eval()
    context = protocol["context"]
    frames, steps_rows, kept = [], [], []
    names = _names(meta["parameter"])
    seen = {_value_key(v) for v in seen_values}
    for path in test_paths:
        u, values = load_trajectories(
            [path], split="test", parameter=meta["parameter"], time_stride=protocol["time_stride"]
        )
        key = _value_key(values[0].tolist())
        value = _value_text(names, key)
        params = _model_params(
            values, meta["parameter_stats"], protocol["transform"], meta["conditioned"]
        )
        start = (u[:, :context] - u_stats["mean"]) / u_stats["std"]
        with torch.no_grad():
            pred = rollout(net, start, params, u.shape[1] - context).frames
        pred = pred.numpy().astype(np.float64) * u_stats["std"] + u_stats["mean"]
        truth = u.numpy().astype(np.float64)
        if not np.isfinite(pred).all():
            raise FloatingPointError(f"{checkpoint}: non-finite rollout on {path}")
        split = "seen" if key in seen else "unseen"
        common = {"pde": meta["pde"], "value": value, "split": split}
        frames.append(
            _score_rows(
                pred, truth[:, context:], **common, model=meta["model"], label=meta["label"],
                seed=meta["seed"],
            )
        )  # fmt: skip
        frames.append(
            _score_rows(
                _persistence(truth, context), truth[:, context:], **common,
                model="persistence", label="persistence (no learning)", seed=0,
            )
        )  # fmt: skip
        per_step_error = nrmse_per_step(pred, truth[:, context:])  # (sample, step)
        steps_rows += [
            {"model": meta["label"], "value": value, "split": split, "step": k + 1,
             "nrmse": float(err)}
            for k, err in enumerate(per_step_error.mean(axis=0))
        ]  # fmt: skip
        padded = np.concatenate([np.full_like(truth[:, :context], np.nan), pred], axis=1)
        kept.append((value, truth[:n_keep], padded[:n_keep]))
    table = pd.concat(frames, ignore_index=True)[PARAMETRIC_METRIC_COLUMNS]
    atomic_write(metrics, lambda tmp: table.to_csv(tmp, index=False, float_format="%.8g"))
    atomic_write(per_step, lambda tmp: pd.DataFrame(steps_rows).to_csv(tmp, index=False))
    dims = ("value", "sample", "time", "x")
    rollouts = xr.Dataset(
        {
            "u": (dims, np.stack([u for _, u, _ in kept]).astype(np.float32)),
            "prediction": (dims, np.stack([p for _, _, p in kept]).astype(np.float32)),
        },
        coords={"value": [v for v, _, _ in kept]},
        attrs={
            "label": meta["label"], "pde": meta["pde"], "parameter": meta["parameter"],
            "context": context,
            "seen_values": ",".join(str(_value_text(names, v)) for v in sorted(seen)),
            **provenance_attrs(
                title=f"rollouts of {meta['label']} ({meta['pde']})",
                rule="evaluate_parametric", params={"n_keep": n_keep},
                input_files=[checkpoint, *test_paths],
            ),
        },
    )  # fmt: skip
    rollouts["u"].attrs.update(long_name="true trajectory, context frames included")
    rollouts["prediction"].attrs.update(long_name="rollout from the context (NaN there)")
    write_netcdf(rollouts, predictions)
