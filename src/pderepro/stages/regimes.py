"""Stages of a regimes study (Navier-Stokes): the regimes table, error against rollout
time, and FNO-3D's zero-shot super-resolution."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
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
from pderepro.evaluation.tables import regimes_table, write_table
from pderepro.evaluation.uncertainty import bootstrap_interval, paired_ratio_interval

log = logging.getLogger(__name__)

#: Columns of the super-resolution metrics file.
SUPERRES_COLUMNS = [
    "model",
    "label",
    "regime",
    "train_resolution",
    "test_resolution",
    "frames_per_time",
    "rel_l2_as_trained",
    "rel_l2_space_only",
    "rel_l2_time_only",
    "rel_l2",
    "ci_low",
    "ci_high",
    "superres_ratio",
    "superres_ratio_low",
    "superres_ratio_high",
    "n_test",
]


def run_regimes_table(
    *,
    metrics: Sequence[str],
    csv: str,
    markdown: str,
    regimes: Mapping[str, Mapping[str, Any]],
    published: Mapping[str, Mapping[str, Mapping[str, Any]]],
    caption: str,
    model_order: Sequence[str],
) -> None:
    """The regimes table: relative L2 over all target frames, beside the published values.

    ``metrics`` are per-run files of the regime studies ``<study>/<regime>``; the regime
    is read from their ``study`` column. ``published`` holds the published cells (value,
    the paper's N and T, verified flag) and ``caption`` their source and conditions.
    """
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    frame["regime"] = frame["study"].str.split("/").str[1]
    table = regimes_table(frame, regimes=regimes, published=published, model_order=model_order)
    horizons = ", ".join(f"{r.get('label', k)}: T={r['t_final']:g}" for k, r in regimes.items())
    caption = (
        f"Relative L2 error over all predicted frames (t = 11..T; {horizons}): mean over "
        "seeds (std over seeds) with its 95% bootstrap interval over test samples (ci_low, "
        "ci_high); val_rel_l2 is the validation error of the epoch each run kept. Our N "
        "and T (n_train, t_final) stand beside the paper's (published_n_train, "
        f"published_t_final). {caption}"
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

    On the same test samples it scores four grids, so each one's cost is visible: as
    trained (the training grid and frame rate), space only (the solver grid, trained
    frames), time only (the training grid, ``time_factor`` times the frames) and both.
    """
    # torch only here: the table and figure jobs of this module never load a model
    import torch

    from pderepro.evaluation.predict import load_trained_model, predict

    net, meta = load_trained_model(checkpoint)
    fine, layout = open_layout_netcdf(test_path, expect_attrs={"split": "test"})
    inputs, truth = _superres_inputs(fine, layout, time_factor)
    frames_fine = truth.shape[1]
    frames_trained = frames_fine // time_factor
    log.info(
        "%s trained at %d, tested at %d with %d frames (x%d in time)",
        meta["label"], meta["resolution"], fine.sizes["x"], frames_fine, time_factor,
    )  # fmt: skip
    space = slice(None, None, fine.sizes["x"] // meta["resolution"])
    trained_times = slice(time_factor - 1, None, time_factor)  # t = 11, 12, ... of the fine
    coarse_inputs = inputs[:, :, space, space]  # (sample, c, n_train, n_train)
    grids = {  # name: (inputs, frames to ask for, matching truth (sample, frames, n, n))
        "as_trained": (coarse_inputs, frames_trained, truth[:, trained_times, space, space]),
        "space_only": (inputs, frames_trained, truth[:, trained_times]),
        "time_only": (coarse_inputs, frames_fine, truth[:, :, space, space]),
        "space_time": (inputs, frames_fine, truth),
    }
    errors = {}
    for name, (x, frames, target) in grids.items():
        x = torch.from_numpy(np.ascontiguousarray(x))
        pred = predict(net, x, frames, batch_size=4).numpy()  # (sample, frames, n, n)
        errors[name] = relative_l2_numpy(pred, target)
        if not np.isfinite(errors[name]).all():
            raise FloatingPointError(f"{checkpoint}: non-finite predictions on {test_path}")
    # the space-time super-resolved frames, kept for the figure (the loop's last grid)
    ci_low, ci_high = bootstrap_interval(errors["space_time"])
    ratio_low, ratio_high = paired_ratio_interval(errors["space_time"], errors["as_trained"])
    row = {
        "model": meta["model"],
        "label": meta["label"],
        "regime": regime,
        "train_resolution": meta["resolution"],
        "test_resolution": fine.sizes["x"],
        "frames_per_time": time_factor,
        "rel_l2_as_trained": errors["as_trained"].mean(),
        "rel_l2_space_only": errors["space_only"].mean(),
        "rel_l2_time_only": errors["time_only"].mean(),
        "rel_l2": errors["space_time"].mean(),
        "ci_low": ci_low,
        "ci_high": ci_high,
        "superres_ratio": errors["space_time"].mean() / errors["as_trained"].mean(),
        "superres_ratio_low": ratio_low,
        "superres_ratio_high": ratio_high,
        "n_test": len(errors["space_time"]),
    }
    frame = pd.DataFrame([row])[SUPERRES_COLUMNS]
    caption = (
        "Zero-shot super-resolution on the same test samples: trained at train_resolution "
        "with one frame per time unit; rel_l2_as_trained on that grid, rel_l2_space_only at "
        "test_resolution with the trained frames, rel_l2_time_only at train_resolution with "
        "frames_per_time frames per unit, rel_l2 at both (the padding of the time axis "
        "spans the same time at every frame rate), with its 95% bootstrap interval over "
        "the test samples (ci_low, ci_high); superres_ratio = rel_l2 / rel_l2_as_trained, "
        "with its paired bootstrap interval over the same samples (superres_ratio_low, "
        "superres_ratio_high)."
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
