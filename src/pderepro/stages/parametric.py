"""Stages of a parametric study (PDEBench 1-D, CAPE): train a one-step autoregressive
surrogate on the trajectories of some parameter values, roll it out on the test
trajectories of every value, and score the predicted frames only.

The processed files hold the trajectories ``u(sample, time, x)`` of one parameter value
each, already strided in space; the protocol strides time (``time_stride``) and says how
many true frames condition a rollout (``context``). Fields are normalised by the mean and
standard deviation of ``u`` over the training files; the parameter enters the model as
``transform(value)`` standardised over the training values (or as nothing, for a model
that is not conditioned on it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import atomic_write, open_layout_netcdf, open_netcdf, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.parametric_tables import PDEBENCH_COLUMNS
from pderepro.evaluation.tables import write_table
from pderepro.evaluation.trajectory_metrics import band_rmse, nrmse, nrmse_per_step
from pderepro.models.registry import build_model, count_parameters, effective_hparams
from pderepro.models.step1d import rollout
from pderepro.runtime import set_threads
from pderepro.training.autoregressive import AutoregressiveConfig, train_autoregressive
from pderepro.training.checkpoint import fingerprint, load_checkpoint, save_checkpoint

log = logging.getLogger(__name__)

#: How a parameter value enters a model before standardisation.
TRANSFORMS = {"log10": np.log10, "identity": lambda v: np.asarray(v, dtype=np.float64)}
#: Columns of a parametric metrics file: one row per test sample, model (or reference),
#: parameter value and seed.
PARAMETRIC_METRIC_COLUMNS = [
    "pde",
    "model",
    "label",
    "value",
    "split",
    "seed",
    "sample",
    "nrmse",
    "rmse_low",
    "rmse_mid",
    "rmse_high",
]


def load_trajectories(
    paths: Sequence[str], *, split: str, parameter: str, time_stride: int
) -> tuple[torch.Tensor, np.ndarray]:
    """Trajectories of several parameter values, strided in time.

    Returns
    -------
    tuple
        ``u`` as float32 ``(N, frames, x)`` and the parameter of each trajectory
        ``(N,)``, float64.
    """
    fields, values = [], []
    for path in paths:
        ds, layout = open_layout_netcdf(path, expect_attrs={"split": split})
        u = ds[layout.target].isel(time=slice(None, None, time_stride))
        fields.append(torch.from_numpy(u.to_numpy().astype(np.float32)))  # (n, frames, x)
        values.append(ds[parameter].to_numpy().astype(np.float64))
    return torch.cat(fields), np.concatenate(values)


def _parameter_stats(values: np.ndarray, transform: str) -> dict[str, float]:
    transformed = TRANSFORMS[transform](values)
    std = float(transformed.std())
    return {"mean": float(transformed.mean()), "std": std if std > 0 else 1.0}


def _model_params(
    values: np.ndarray, stats: Mapping[str, float], transform: str, conditioned: bool
) -> torch.Tensor | None:
    if not conditioned:
        return None
    standard = (TRANSFORMS[transform](values) - stats["mean"]) / stats["std"]
    return torch.from_numpy(standard.astype(np.float32))[:, None]  # (N, 1)


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
    parameter: str,
    seed: int,
    threads: int = 1,
) -> None:
    """Train one one-step model on the training values' trajectories; the weights of
    the epoch with the lowest validation rollout error are kept.

    ``spec`` holds ``architecture``, ``hparams`` and ``conditioned`` (whether the model
    reads the parameter); ``protocol`` holds ``context``, ``time_stride`` and
    ``transform``; ``training`` the :class:`AutoregressiveConfig` keys.
    """
    set_threads(threads)
    torch.use_deterministic_algorithms(True)
    stride, transform = protocol["time_stride"], protocol["transform"]
    u, values = load_trajectories(
        train_paths, split="train", parameter=parameter, time_stride=stride
    )
    val_u, val_values = load_trajectories(
        validation_paths, split="validation", parameter=parameter, time_stride=stride
    )
    u_stats = {"mean": float(u.mean()), "std": float(u.std())}
    p_stats = _parameter_stats(values, transform)
    conditioned = bool(spec.get("conditioned", False))

    def normalise(frames: torch.Tensor) -> torch.Tensor:
        return (frames - u_stats["mean"]) / u_stats["std"]

    hparams = {**spec.get("hparams", {}), "n_params": 1 if conditioned else 0}
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
        model, pde, len(u), sorted(set(values.tolist())), count_parameters(net), cfg.curriculum,
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
        "train_values": sorted(set(values.tolist())),
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


def _persistence(truth: np.ndarray, context: int) -> np.ndarray:
    """The last context frame held for every predicted step (no learning)."""
    steps = truth.shape[1] - context
    return np.repeat(truth[:, context - 1 : context], steps, axis=1)


def _score_rows(pred: np.ndarray, truth: np.ndarray, **run: Any) -> pd.DataFrame:
    """Per-sample rows of :data:`PARAMETRIC_METRIC_COLUMNS` for predicted frames."""
    bands = band_rmse(pred, truth)
    return pd.DataFrame(
        {
            **run,
            "sample": np.arange(len(pred)),
            "nrmse": nrmse(pred, truth),
            **{f"rmse_{band}": values for band, values in bands.items()},
        }
    )


def run_evaluate_parametric(
    *,
    checkpoint: str,
    test_paths: Sequence[str],
    seen_values: Sequence[float],
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
    seen = {float(v) for v in seen_values}
    for path in test_paths:
        u, values = load_trajectories(
            [path], split="test", parameter=meta["parameter"], time_stride=protocol["time_stride"]
        )
        value = float(values[0])
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
        split = "seen" if value in seen else "unseen"
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
            "context": context, "seen_values": ",".join(f"{v:g}" for v in sorted(seen)),
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


def run_parametric_tables(
    *,
    metrics: Sequence[str],
    outputs: Mapping[str, str],
    model_order: Sequence[str],
    published: Mapping[str, Mapping[float, float]],
    version: str,
) -> None:
    """The ``parameters`` and ``pdebench`` tables (CSV and Markdown) from per-sample
    metrics of every run; ``outputs`` maps ``parameters_csv`` ... ``pdebench_md``."""
    from pderepro.evaluation.parametric_tables import parameters_table, pdebench_table

    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    per_value = frame["model"].str.startswith("pdebench-")
    reference = frame["model"] == "persistence"
    keys = frame["pde"] + "/" + frame["value"].astype(str)

    def with_references(trained: pd.Series) -> pd.DataFrame:
        """The trained rows, and the references at the (PDE, value)s they are scored at."""
        return frame[trained | (reference & keys.isin(keys[trained]))].copy()

    cape = with_references(~per_value & ~reference)
    pdebench = with_references(per_value)
    pdebench.loc[pdebench["model"] != "persistence", "model"] = "pdebench"
    write_table(
        parameters_table(cape, model_order=list(model_order)),
        outputs["parameters_csv"], outputs["parameters_md"],
        caption="nRMSE over predicted frames of the models trained across the seen values; "
        "persistence of the last true frame is the no-learning reference.",
    )  # fmt: skip
    table = (
        pdebench_table(pdebench, published=published, version=version)
        if per_value.any()
        else pd.DataFrame(columns=PDEBENCH_COLUMNS)
    )
    write_table(
        table, outputs["pdebench_csv"], outputs["pdebench_md"],
        caption=f"One model per value (PDEBench protocol); published: {version or 'none'}.",
    )  # fmt: skip


def run_plot_parametric(
    *,
    parameters: str,
    per_step: Sequence[str],
    predictions: Sequence[str],
    outputs: Mapping[str, str],
    title: str,
) -> None:
    """The figures: nRMSE against the parameter, against the rollout step, and rollouts."""
    from pderepro.plotting.parametric import (
        plot_error_vs_parameter,
        plot_error_vs_step,
        plot_rollouts,
    )

    def paths(name: str) -> list[str]:
        return [outputs[f"{name}_png"], outputs[f"{name}_pdf"]]

    plot_error_vs_parameter(pd.read_csv(parameters), *paths("error_vs_parameter"), title=title)
    steps = pd.concat([pd.read_csv(p) for p in per_step], ignore_index=True)
    plot_error_vs_step(steps, *paths("error_vs_step"), title=title)
    plot_rollouts([open_netcdf(p) for p in predictions], *paths("rollouts"))
