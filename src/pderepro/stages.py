"""L3: one function per workflow stage, called by the thin scripts in workflow/scripts.

Each function takes plain paths and config slices, so it runs (and is tested) without
Snakemake.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.generate import GENERATORS
from pderepro.data.io import atomic_write, open_netcdf, write_netcdf
from pderepro.data.preprocess import normalisation_stats, subsample
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.metrics import relative_l2_numpy
from pderepro.evaluation.predict import load_trained_model, predict
from pderepro.evaluation.summary import render_summary
from pderepro.evaluation.tables import METRIC_COLUMNS, resolution_table, write_table
from pderepro.models.registry import build_model, count_parameters, effective_hparams
from pderepro.runtime import describe_device, select_device, set_threads
from pderepro.solvers.burgers import heat_solution
from pderepro.solvers.verification import burgers_convergence
from pderepro.training.checkpoint import fingerprint, save_checkpoint
from pderepro.training.loop import NormalisedModel, TrainingConfig, train

log = logging.getLogger(__name__)


def run_generate(
    *, dataset: Mapping[str, Any], split: str, start: int, count: int, output: str, threads: int = 1
) -> None:
    """Generate samples ``start .. start+count-1`` of one split of a dataset.

    ``dataset`` is the dataset's science (solver parameters, seed); the samples do not
    depend on how the split is sharded, because each has its own derived seed.
    """
    set_threads(threads)
    ds = GENERATORS[dataset["solver"]](
        dataset, split=split, start=start, count=count, device=select_device()
    )
    ds.attrs.update(
        provenance_attrs(
            title=f"{dataset['name']} {split} samples {start}-{start + count - 1}",
            rule="generate_shard",
            params={**dataset, "split": split, "start": start, "count": count},
            seed=dataset["seed"],
        )
    )
    write_netcdf(ds, output)


def run_merge(*, inputs: Sequence[str], output: str) -> None:
    """Concatenate the shards of a split along ``sample``, checking they are contiguous."""
    parts = [open_netcdf(p, chunks={"sample": 256}, required=("u0", "u")) for p in inputs]
    merged = xr.concat(parts, dim="sample", combine_attrs="drop_conflicts")
    samples = merged["sample"].to_numpy()
    if not np.array_equal(samples, np.arange(len(samples))):
        raise ValueError(f"shards {list(inputs)} do not hold samples 0..{len(samples) - 1}")
    first = parts[0].attrs
    merged.attrs = {k: first[k] for k in first if k not in ("title", "history")}
    merged.attrs.update(
        provenance_attrs(
            title=f"{first['title'].rsplit(' samples', 1)[0]}",
            rule="merge_shards",
            params={
                **{
                    k: v
                    for k, v in json.loads(first["params"]).items()
                    if k not in ("start", "count")
                },
                "n_samples": len(samples),
            },
            seed=first.get("seed"),
            input_files=inputs,
            history=first.get("history", ""),
        )
    )
    write_netcdf(merged, output)


def run_preprocess(
    *,
    raw_train: str,
    raw_test: str,
    resolution: int,
    out_train: str,
    out_test: str,
    out_stats: str,
    threads: int = 1,
    chunk: int = 128,
) -> None:
    """Subsample both splits to ``resolution`` with dask; statistics from train only."""
    with dask.config.set(scheduler="threads", num_workers=threads):
        outputs = {}
        for name, path, out in (("train", raw_train, out_train), ("test", raw_test, out_test)):
            ds = subsample(
                open_netcdf(path, chunks={"sample": chunk}, required=("u0", "u")),
                resolution=resolution,
            )
            ds.attrs.update(
                provenance_attrs(
                    title=f"{ds.attrs.get('title', name)} at resolution {resolution}",
                    rule="preprocess",
                    params={"resolution": resolution},
                    seed=ds.attrs.get("seed"),
                    input_files=[path],
                    history=ds.attrs.get("history", ""),
                )
            )
            outputs[name] = ds
            write_netcdf(ds, out)
        stats = normalisation_stats(outputs["train"])
        stats.attrs.update(
            provenance_attrs(
                title=f"normalisation statistics, train split, resolution {resolution}",
                rule="preprocess",
                params={"resolution": resolution},
                input_files=[raw_train],
            )
        )
        stats.attrs.update(split="train")
        write_netcdf(stats, out_stats)


def _load_pairs(path: str) -> tuple[torch.Tensor, torch.Tensor, xr.Dataset]:
    ds = open_netcdf(path, required=("u0", "u"))
    return (torch.from_numpy(ds["u0"].to_numpy()), torch.from_numpy(ds["u"].to_numpy()), ds)


def run_train(
    *,
    train_path: str,
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
) -> None:
    """Train one (model, resolution, seed) and write its checkpoint and history."""
    set_threads(threads)
    device = select_device()
    torch.use_deterministic_algorithms(device.type == "cpu")
    inputs, targets, _ = _load_pairs(train_path)
    stats_ds = open_netcdf(stats_path, required=("input_mean", "target_std"))
    if stats_ds.attrs.get("split") != "train":
        raise ValueError(f"{stats_path}: statistics are not from the train split")
    stats = {
        k: float(stats_ds[k]) for k in ("input_mean", "input_std", "target_mean", "target_std")
    }
    torch.manual_seed(seed)
    net = build_model(
        spec["architecture"], spec["hparams"], resolution=resolution, n_train=len(inputs)
    )
    if hasattr(net, "fit_to_data"):
        net.fit_to_data(
            (inputs - stats["input_mean"]) / stats["input_std"],
            (targets - stats["target_mean"]) / stats["target_std"],
        )
    wrapped = NormalisedModel(net, stats)
    cfg = TrainingConfig.from_mapping(training)
    identity = {
        "study": study,
        "model": model,
        "architecture": spec["architecture"],
        "hparams": effective_hparams(net),
        "training": dict(training),
        "seed": seed,
        "resolution": resolution,
        "data_fingerprint": fingerprint(inputs, targets),
    }
    log.info(
        "training %s at s=%d, seed %d, on %s (%d parameters)",
        model,
        resolution,
        seed,
        describe_device(device),
        count_parameters(net),
    )
    rows = train(
        wrapped,
        inputs,
        targets,
        cfg,
        seed=seed,
        device=device,
        identity=identity,
        resume_path=Path(checkpoint).with_name("resume.pt"),
    )
    meta = {
        **identity,
        "label": spec.get("label", model),
        "n_train": len(inputs),
        "n_params": count_parameters(net),
        "device": describe_device(device),
        "epoch": cfg.epochs,
        "history": rows,
    }
    save_checkpoint(checkpoint, metadata=meta, model=wrapped.cpu().state_dict())
    atomic_write(history, lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False))
    Path(checkpoint).with_name("resume.pt").unlink(missing_ok=True)


def _write_metrics(path: str, **row: Any) -> None:
    frame = pd.DataFrame([row])[METRIC_COLUMNS]
    atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False, float_format="%.8g"))


def _write_predictions(
    test: xr.Dataset, prediction: np.ndarray, path: str, *, label: str, n_keep: int
) -> None:
    kept = test.isel(sample=slice(0, n_keep))[["u0", "u"]]
    kept["prediction"] = (("sample", "x"), prediction[:n_keep].astype(np.float32))
    kept.attrs = {
        "label": label,
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
) -> None:
    """Relative L2 error of a trained model on the test split; keeps a few predictions."""
    net, meta = load_trained_model(
        checkpoint, expect={"study": study, "model": model, "resolution": resolution, "seed": seed}
    )
    inputs, targets, test = _load_pairs(test_path)
    pred = predict(net, inputs).numpy()
    errors = relative_l2_numpy(pred, targets.numpy())
    _write_metrics(
        metrics,
        study=study,
        model=model,
        label=meta["label"],
        resolution=resolution,
        seed=seed,
        rel_l2=errors.mean(),
        n_test=len(errors),
        n_params=meta["n_params"],
        device=meta["device"],
    )
    _write_predictions(test, pred, predictions, label=meta["label"], n_keep=n_keep)


#: Reference solutions that need no training, by baseline name.
BASELINES = {
    "heat": lambda u0, ds_cfg: heat_solution(u0, ds_cfg["viscosity"], ds_cfg["t_final"]),
}


def run_baseline(
    *,
    test_path: str,
    metrics: str,
    predictions: str,
    study: str,
    baseline: str,
    label: str,
    resolution: int,
    dataset: Mapping[str, Any],
    n_keep: int,
) -> None:
    """Score a no-learning reference (e.g. the linear heat equation) on the test split."""
    _, targets, test = _load_pairs(test_path)
    pred = BASELINES[baseline](test["u0"].to_numpy().astype(np.float64), dataset)
    errors = relative_l2_numpy(pred, targets.numpy())
    _write_metrics(
        metrics,
        study=study,
        model=baseline,
        label=label,
        resolution=resolution,
        seed=0,
        rel_l2=errors.mean(),
        n_test=len(errors),
        n_params=0,
        device="CPU (numpy)",
    )
    _write_predictions(test, pred, predictions, label=label, n_keep=n_keep)


def run_table(
    *,
    metrics: Sequence[str],
    csv: str,
    markdown: str,
    published: Mapping[str, Any],
    model_order: Sequence[str],
) -> None:
    """Aggregate per-run metrics into the resolution table beside the published numbers."""
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    table = resolution_table(frame, published=published.get("values", {}), model_order=model_order)
    write_table(table, csv, markdown, caption=f"published: {published.get('source', 'none')}")


def run_plot_resolution(
    *, metrics: Sequence[str], table: str, figures: Sequence[str], title: str
) -> None:
    """Figure of error against resolution from the evaluated metrics and the table."""
    from pderepro.plotting.figures import plot_error_vs_resolution

    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    plot_error_vs_resolution(frame, pd.read_csv(table), *figures, title=title)


def run_plot_samples(*, predictions: Sequence[str], figures: Sequence[str], n_samples: int) -> None:
    """Figure of test samples with every model's prediction."""
    from pderepro.plotting.figures import plot_samples_1d

    plot_samples_1d([open_netcdf(p) for p in predictions], *figures, n_samples=n_samples)


def run_validate_solvers(*, csv: str, figures: Sequence[str]) -> None:
    """Convergence of every solver against exact solutions: table and figure."""
    from pderepro.plotting.figures import plot_convergence

    table = burgers_convergence()
    atomic_write(csv, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    plot_convergence(table, *figures)


def run_summary(
    *,
    output: str,
    preset: str,
    studies: Mapping[str, dict],
    validation: str | None,
    benchmarks: Sequence[str],
) -> None:
    """Write ``results/summary.md``."""
    text = render_summary(
        preset=preset, studies=studies, validation_table=validation, benchmark_files=benchmarks
    )
    atomic_write(output, lambda tmp: Path(tmp).write_text(text))
