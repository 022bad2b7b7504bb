"""Learning stages: train a model, evaluate it, score no-learning baselines."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import (
    DataFileError,
    atomic_write,
    ensure_free_space,
    open_layout_netcdf,
    open_netcdf,
    write_netcdf,
)
from pderepro.data.layouts import Layout, layout_of
from pderepro.data.provenance import dataset_params, provenance_attrs
from pderepro.evaluation.baselines import BASELINES
from pderepro.evaluation.metrics import relative_l2_numpy
from pderepro.evaluation.predict import load_trained_model, predict
from pderepro.evaluation.tables import METRIC_COLUMNS
from pderepro.models.normalised import NormalisedModel
from pderepro.models.registry import build_model, count_parameters, effective_hparams
from pderepro.runtime import describe_device, select_device, set_threads
from pderepro.training import distributed
from pderepro.training.checkpoint import fingerprint, load_checkpoint, save_checkpoint
from pderepro.training.loop import TrainingConfig, selected_epoch, train

log = logging.getLogger(__name__)


def _load_pairs(
    path: str, *, split: str, resolution: int
) -> tuple[torch.Tensor, torch.Tensor, xr.Dataset]:
    """Inputs and targets of a processed split (``(N, ...)`` as the layout stores them),
    checked to be that split at that resolution."""
    ds, layout = open_layout_netcdf(path, expect_attrs={"split": split})
    if ds.sizes["x"] != resolution:
        raise DataFileError(f"{path}: holds resolution {ds.sizes['x']}, expected {resolution}")
    inputs = torch.from_numpy(ds[layout.input].to_numpy())
    return inputs, torch.from_numpy(ds[layout.target].to_numpy()), ds


def _role_stat_names(layout: Layout) -> dict[str, str]:
    """Which per-variable statistic of stats.nc each statistic of a
    :class:`NormalisedModel` is: those of the (single) input field and of the target."""
    return {
        "input_mean": f"{layout.input}_mean",
        "input_std": f"{layout.input}_std",
        "target_mean": f"{layout.target}_mean",
        "target_std": f"{layout.target}_std",
    }


def _load_stats(path: str, train: xr.Dataset) -> dict[str, float]:
    """The statistics of a :class:`NormalisedModel` (its ``STAT_NAMES``), read from the
    per-variable statistics of the train split's layout; refused unless computed from
    the train split given."""
    names = _role_stat_names(layout_of(train.attrs))
    stats = open_netcdf(path, expect_attrs={"split": "train"})
    missing = [v for v in names.values() if v not in stats.data_vars]
    if missing:
        raise DataFileError(
            f"{path}: lacks the statistics {missing} (made by an older pderepro?); remake "
            "it with `snakemake --forcerun preprocess`"
        )
    if "data_params" not in stats.attrs:
        raise DataFileError(
            f"{path}: has no data_params attribute (made by an older pderepro?); remake it "
            "with `snakemake --forcerun preprocess`"
        )
    if stats.attrs["data_params"] != train.attrs["params"]:
        raise DataFileError(
            f"{path}: statistics were computed from other data than the "
            "train split being used (data_params differ)"
        )
    return {role: float(stats[name]) for role, name in names.items()}


def _epoch(state: str | Path) -> int:
    """The epoch a resumable state was saved at (0 where there is none)."""
    return load_checkpoint(state)["metadata"]["epoch"] if Path(state).exists() else 0


def run_train(
    *,
    train_path: str,
    validation_path: str,
    stats_path: str,
    checkpoint: str,
    history: str,
    study: str,
    model: str,
    spec: Mapping[str, Any],
    training: Mapping[str, Any],
    seed: int,
    resolution: int,
    threads: int = 1,
    resume_from: str | None = None,
    stop_epoch: int | None = None,
) -> None:
    """Train one (model, resolution, seed) and write its checkpoint and history.

    The checkpoint holds the weights of the epoch with the lowest validation error (the
    validation split, never the test split), recorded as ``selected_epoch`` and
    ``val_rel_l2`` in its metadata. A killed job resumes from ``resume.pt`` beside the
    checkpoint when rerun with the same configuration and data.

    A training longer than a cluster job runs in segments (rule ``train_segment``): a
    segment gets ``stop_epoch`` and writes its full state to ``checkpoint`` (the segment
    file; ``history`` is then None); the next segment, and the last one (this rule's
    own job, which writes the checkpoint and history), start from ``resume_from``.
    """
    arguments = dict(locals())  # first: exactly this stage's keyword arguments
    cfg = TrainingConfig.from_mapping(training)
    rank, local_rank, world_size = distributed.world()
    if cfg.devices > 1 and world_size == 1:
        # one process per device runs this stage again, with plain-dict config slices
        kwargs = {**arguments, "spec": dict(spec), "training": dict(training)}
        distributed.launch(run_train, kwargs, cfg.devices)
        return
    set_threads(max(1, threads // world_size))
    device = select_device()
    if device.type == "cuda" and world_size > 1:
        device = torch.device("cuda", local_rank)
    if world_size > 1:
        distributed.init_process_group(device)
    torch.use_deterministic_algorithms(device.type == "cpu")
    inputs, targets, train_ds = _load_pairs(train_path, split="train", resolution=resolution)
    val_inputs, val_targets, val_ds = _load_pairs(
        validation_path, split="validation", resolution=resolution
    )
    if dataset_params(val_ds.attrs) != dataset_params(train_ds.attrs):
        raise DataFileError(f"{validation_path} and {train_path} come from different datasets")
    stats = _load_stats(stats_path, train_ds)
    torch.manual_seed(seed)
    shapes = {"input_shape": list(inputs.shape[1:]), "target_shape": list(targets.shape[1:])}
    net = build_model(
        spec["architecture"], spec["hparams"], resolution=resolution, n_train=len(inputs), **shapes
    )
    n_params = count_parameters(net)
    # weights, two Adam moments and the resumable copy, float32, plus headroom
    ensure_free_space(checkpoint, 16 * n_params + 1e6, what=f"checkpoints of {model}")
    if hasattr(net, "fit_to_data"):
        net.fit_to_data(
            (inputs - stats["input_mean"]) / stats["input_std"],
            (targets - stats["target_mean"]) / stats["target_std"],
        )
    wrapped = NormalisedModel(net, stats)
    identity = {
        "study": study,
        "model": model,
        "architecture": spec["architecture"],
        "hparams": effective_hparams(net),
        "training": dict(training),
        "seed": seed,
        "resolution": resolution,
        **shapes,
        "data_fingerprint": fingerprint(inputs, targets, val_inputs, val_targets),
    }
    log.info(
        "training %s at s=%d, seed %d, on %s (%d parameters)",
        model,
        resolution,
        seed,
        describe_device(device),
        n_params,
    )
    # a segment's state is its output; a whole run's, resume.pt beside its checkpoint
    resume = Path(checkpoint) if stop_epoch is not None else Path(checkpoint).with_name("resume.pt")
    if resume_from is not None and rank == 0 and _epoch(resume) < _epoch(resume_from):
        shutil.copyfile(resume_from, resume)  # the previous segment's state
    if world_size > 1:
        torch.distributed.barrier()  # every rank resumes from the copied state
    rows = train(
        wrapped,
        inputs,
        targets,
        cfg,
        seed=seed,
        device=device,
        identity=identity,
        resume_path=resume,
        validation=(val_inputs, val_targets),
        rank=rank,
        world_size=world_size,
        stop_epoch=stop_epoch,
    )
    if rank != 0 or (stop_epoch is not None and stop_epoch < cfg.epochs):
        return  # rank 0 alone writes outputs; a segment's output is its saved state
    chosen = selected_epoch(rows)
    log.info(
        "selected epoch %d of %d: validation relative L2 %.4g",
        chosen, cfg.epochs, rows[chosen - 1]["val_rel_l2"],
    )  # fmt: skip
    meta = {
        **identity,
        "label": spec.get("label", model),
        "n_train": len(inputs),
        "n_params": n_params,
        "device": describe_device(device) + (f" x {world_size}" if world_size > 1 else ""),
        "epoch": cfg.epochs,
        "selected_epoch": chosen,
        "val_rel_l2": rows[chosen - 1]["val_rel_l2"],
        "n_validation": len(val_inputs),
        "history": rows,
    }
    save_checkpoint(checkpoint, metadata=meta, model=wrapped.cpu().state_dict())
    atomic_write(history, lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False))
    resume.unlink(missing_ok=True)


#: The metrics columns of a no-learning reference that a trained run fills from its training.
_BASELINE_RUN = {
    "seed": 0,
    "n_params": 0,
    "selected_epoch": np.nan,
    "val_rel_l2": np.nan,
    "device": "CPU (numpy)",
    "inference_s_per_sample": np.nan,  # not timed: the cost table compares surrogates
    "inference_device": "",
}


def _write_metrics(path: str, errors: np.ndarray, **run: Any) -> None:
    """Per-sample metrics (:data:`METRIC_COLUMNS`): one row per test sample's error."""
    if not np.isfinite(errors).all():
        raise FloatingPointError(f"{path}: non-finite errors of {run['model']}")
    frame = pd.DataFrame({**run, "sample": np.arange(len(errors)), "rel_l2": errors})
    atomic_write(
        path, lambda tmp: frame[METRIC_COLUMNS].to_csv(tmp, index=False, float_format="%.8g")
    )


def _write_predictions(
    test: xr.Dataset, prediction: np.ndarray, path: str, *, label: str, n_keep: int
) -> None:
    """Keep the first ``n_keep`` test samples with their predictions; targets with a
    ``time`` dimension also get the error of each frame over the whole test split."""
    layout = layout_of(test.attrs)
    target = test[layout.target]
    kept = test.isel(sample=slice(0, n_keep))[[layout.input, layout.target]]
    kept["prediction"] = (target.dims, prediction[:n_keep].astype(np.float32))
    if "time" in target.dims:
        truth = target.to_numpy()
        per_frame = np.stack(
            [relative_l2_numpy(prediction[:, k], truth[:, k]) for k in range(truth.shape[1])],
            axis=1,
        )  # (sample, time)
        kept["rel_l2_per_frame"] = ("time", per_frame.mean(axis=0))
    kept.attrs = {
        "label": label,
        **layout.attrs(),
        **provenance_attrs(
            title=f"predictions of {label}", rule="evaluate", params={"label": label}
        ),
    }
    write_netcdf(kept, path)


def run_evaluate(
    *,
    checkpoint: str,
    test_path: str,
    metrics: str,
    predictions: str,
    study: str,
    model: str,
    resolution: int,
    seed: int,
    n_keep: int,
    threads: int = 1,
) -> None:
    """Relative L2 error of a trained model on each test sample, with the validation
    error of the epoch it was selected at and the inference time per sample (on the CPU
    with ``threads`` threads, batches of 100, after one warm-up call); keeps a few
    predictions."""
    set_threads(threads)
    net, meta = load_trained_model(
        checkpoint, expect={"study": study, "model": model, "resolution": resolution, "seed": seed}
    )
    inputs, targets, test = _load_pairs(test_path, split="test", resolution=resolution)
    predict(net, inputs[:1])  # warm-up: allocations and kernels of the first call
    tic = time.perf_counter()
    pred = predict(net, inputs).numpy()
    inference_s = (time.perf_counter() - tic) / len(inputs)
    errors = relative_l2_numpy(pred, targets.numpy())
    if not np.isfinite(errors).all():
        raise FloatingPointError(f"{checkpoint}: non-finite predictions on {test_path}")
    _write_metrics(
        metrics,
        errors,
        study=study,
        model=model,
        label=meta["label"],
        resolution=resolution,
        seed=seed,
        n_params=meta["n_params"],
        selected_epoch=meta.get("selected_epoch", np.nan),  # NaN: made without validation
        val_rel_l2=meta.get("val_rel_l2", np.nan),
        device=meta["device"],
        inference_s_per_sample=inference_s,
        inference_device=f"{describe_device(torch.device('cpu'))} x {torch.get_num_threads()}",
    )
    _write_predictions(test, pred, predictions, label=meta["label"], n_keep=n_keep)


def run_baseline(
    *,
    test_path: str,
    train_path: str,
    metrics: str,
    predictions: str,
    study: str,
    baseline: str,
    label: str,
    resolution: int,
    dataset: Mapping[str, Any],
    n_keep: int,
) -> None:
    """Score a no-learning reference (:mod:`pderepro.evaluation.baselines`) on the test
    split; the training-mean references read the train split's targets, nothing else."""
    _, targets, test = _load_pairs(test_path, split="test", resolution=resolution)
    inputs = test[layout_of(test.attrs).input].to_numpy().astype(np.float64)
    context: dict[str, Any] = {"dataset": dataset}
    if "time" in test.coords:  # frames: their times (time units) for the extrapolations
        context["target_times"] = test["time"].to_numpy()
        context["input_times"] = test["time_in"].to_numpy() if "time_in" in test.coords else None
    if baseline == "training_mean":
        _, train_targets, _ = _load_pairs(train_path, split="train", resolution=resolution)
        context["train_targets"] = train_targets.numpy().astype(np.float64)
    pred = BASELINES[baseline](inputs, **context)
    errors = relative_l2_numpy(pred, targets.numpy())
    run = {"study": study, "model": baseline, "label": label, "resolution": resolution}
    _write_metrics(metrics, errors, **run, **_BASELINE_RUN)
    _write_predictions(test, pred, predictions, label=label, n_keep=n_keep)
