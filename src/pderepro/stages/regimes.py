"""Stages of a regimes study (Navier-Stokes): the regimes table, error against rollout
time, and FNO-3D's zero-shot super-resolution."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
import xarray as xr

from pderepro.data.io import (
    DataFileError,
    open_layout_netcdf,
    open_netcdf,
    write_netcdf,
)
from pderepro.data.layouts import Layout
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.metrics import relative_l2_numpy
from pderepro.evaluation.predict import load_trained_model, predict
from pderepro.evaluation.tables import regimes_table, write_table

log = logging.getLogger(__name__)

#: Columns of the super-resolution metrics file.
SUPERRES_COLUMNS = [
    "model",
    "label",
    "regime",
    "train_resolution",
    "test_resolution",
    "frames_per_time",
    "rel_l2",
    "rel_l2_train_grid",
    "n_test",
]


def run_regimes_table(
    *,
    metrics: Sequence[str],
    csv: str,
    markdown: str,
    regimes: Mapping[str, Mapping[str, Any]],
    published: Mapping[str, Any],
    model_order: Sequence[str],
) -> None:
    """The regimes table: relative L2 over all target frames, beside the published values.

    ``metrics`` are per-run files of the regime studies ``<study>/<regime>``; the regime
    is read from their ``study`` column.
    """
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    frame["regime"] = frame["study"].str.split("/").str[1]
    table = regimes_table(
        frame, regimes=regimes, published=published.get("values", {}), model_order=model_order
    )
    horizons = ", ".join(f"{r.get('label', k)}: T={r['t_final']:g}" for k, r in regimes.items())
    caption = (
        f"Relative L2 error over all predicted frames (t = 11..T; {horizons}). "
        f"published: {published.get('source', 'none')} (the paper's T and N may differ "
        "from this preset's)."
    )
    write_table(table, csv, markdown, caption=caption)


def run_plot_error_vs_time(
    *, predictions: Sequence[str], regimes: Sequence[str], figures: Sequence[str], title: str
) -> None:
    """Figure of the mean relative L2 error of each predicted frame, per model and regime
    (``regimes[i]`` labels ``predictions[i]``)."""
    from pderepro.plotting.fields import plot_error_vs_time

    rows = []
    for path, regime in zip(predictions, regimes, strict=True):
        ds = open_netcdf(path, required=("rel_l2_per_frame",))
        for t, err in zip(ds["time"].to_numpy(), ds["rel_l2_per_frame"].to_numpy(), strict=True):
            rows.append({"model": ds.attrs["label"], "regime": regime, "time": t, "rel_l2": err})
    plot_error_vs_time(pd.DataFrame(rows), *figures, title=title)


def _superres_inputs(
    fine: xr.Dataset, layout: Layout, time_factor: int
) -> tuple[np.ndarray, np.ndarray]:
    """Input frames (one per time unit) and all target frames of the fine test data."""
    inputs, truth = fine[layout.input].to_numpy(), fine[layout.target].to_numpy()
    if inputs.ndim != 4 or truth.ndim != 4:
        raise DataFileError("super-resolution data must hold (sample, time, y, x) frames")
    if truth.shape[1] % time_factor:
        raise DataFileError(
            f"{truth.shape[1]} target frames are not a whole number of time units "
            f"at {time_factor} frames per unit"
        )
    return inputs, truth


def run_evaluate_superresolution(
    *,
    checkpoint: str,
    test_path: str,
    metrics: str,
    markdown: str,
    predictions: str,
    regime: str,
    time_factor: int,
    n_keep: int,
) -> None:
    """Zero-shot super-resolution: a model trained on the coarse grid at one frame per time
    unit, applied unchanged to the solver grid at ``time_factor`` frames per unit.

    The error on the coarse grid (the same predictions subsampled in space and time)
    is reported beside it, so the cost of going finer is visible.
    """
    net, meta = load_trained_model(checkpoint)
    fine, layout = open_layout_netcdf(test_path, expect_attrs={"split": "test"})
    inputs, truth = _superres_inputs(fine, layout, time_factor)
    frames_out = truth.shape[1]
    log.info(
        "%s trained at %d, tested at %d with %d frames (x%d in time)",
        meta["label"], meta["resolution"], fine.sizes["x"], frames_out, time_factor,
    )  # fmt: skip
    # the same model, asked for the finer frame count; (sample, frames_out, n, n)
    pred = predict(net, torch.from_numpy(inputs), frames_out, batch_size=4).numpy()
    errors = relative_l2_numpy(pred, truth)
    space = slice(None, None, fine.sizes["x"] // meta["resolution"])
    coarse = (slice(None), slice(time_factor - 1, None, time_factor), space, space)
    errors_coarse = relative_l2_numpy(pred[coarse], truth[coarse])
    if not np.isfinite(errors).all():
        raise FloatingPointError(f"{checkpoint}: non-finite predictions on {test_path}")
    row = {
        "model": meta["model"],
        "label": meta["label"],
        "regime": regime,
        "train_resolution": meta["resolution"],
        "test_resolution": fine.sizes["x"],
        "frames_per_time": time_factor,
        "rel_l2": errors.mean(),
        "rel_l2_train_grid": errors_coarse.mean(),
        "n_test": len(errors),
    }
    frame = pd.DataFrame([row])[SUPERRES_COLUMNS]
    caption = (
        "Zero-shot super-resolution: trained at train_resolution with one frame per time "
        "unit, tested at test_resolution with frames_per_time frames per unit; "
        "rel_l2_train_grid scores the same predictions on the training grid and frames."
    )
    write_table(frame, metrics, markdown, caption=caption)
    kept = fine.isel(sample=slice(0, n_keep))[[layout.input, layout.target]]
    kept["prediction"] = (fine[layout.target].dims, pred[:n_keep].astype(np.float32))
    kept.attrs = {
        **layout.attrs(),
        **{k: str(v) for k, v in row.items()},
        **provenance_attrs(
            title=f"zero-shot super-resolution of {meta['label']}",
            rule="evaluate_superresolution",
            params={"regime": regime, "time_factor": time_factor},
            input_files=[checkpoint, test_path],
        ),
    }
    write_netcdf(kept, predictions)


def run_plot_superresolution(*, predictions: str, figures: Sequence[str]) -> None:
    """Figure of super-resolved frames: truth, prediction and error at a few times."""
    from pderepro.plotting.fields import plot_superresolution

    plot_superresolution(open_netcdf(predictions), *figures)
