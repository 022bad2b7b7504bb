"""Tables: tidy per-sample metrics aggregated over test samples and seeds, with bootstrap
intervals, beside the published numbers and the paper's conditions (per resolution:
Burgers, Darcy; per regime: Navier-Stokes), and the offline and online Lorenz-96 closure
tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from pderepro.data.io import atomic_write
from pderepro.evaluation.uncertainty import bootstrap_interval

#: Columns of a per-run metrics file: one row per test sample of one model, resolution
#: and seed (a no-learning reference has seed 0 and no validation columns).
METRIC_COLUMNS = [
    "study",
    "model",
    "label",
    "resolution",
    "seed",
    "sample",
    "rel_l2",
    "n_params",
    "selected_epoch",
    "val_rel_l2",
    "device",
    "inference_s_per_sample",
    "inference_device",
]
#: Columns the aggregation of per-sample errors adds to a table (see :func:`error_summary`).
ERROR_COLUMNS = ["rel_l2_mean", "rel_l2_std", "ci_low", "ci_high", "n_seeds", "n_test"]
#: The paper's value, its training samples N, its horizon T and whether the project's
#: references read it from the paper (empty where the paper has no value).
PUBLISHED_COLUMNS = ["published", "published_n_train", "published_t_final", "published_verified"]
#: Columns of the resolution table, in order: ours (with our N), then the paper's. The
#: paper's T is the same in every row and stated in the caption.
RESOLUTION_COLUMNS = [
    "model",
    "resolution",
    "n_train",
    *ERROR_COLUMNS,
    "val_rel_l2",
    "n_params",
    *[c for c in PUBLISHED_COLUMNS if c != "published_t_final"],
]
#: Marker of an unverified published value in the Markdown tables, and its footnote.
UNVERIFIED_MARK = "\N{DAGGER}"
UNVERIFIED_FOOTNOTE = (
    f"{UNVERIFIED_MARK} published value marked unverified (published_verified false): "
    "recalled, not read from the paper; treat it as approximate."
)


def error_summary(rows: pd.DataFrame, where: str, metric: str = "rel_l2") -> dict[str, float]:
    """Seed mean and spread of the mean test error, and its bootstrap interval.

    Parameters
    ----------
    rows : pandas.DataFrame
        Per-sample metrics (:data:`METRIC_COLUMNS`) of one table row: every seed of one
        model at one resolution (or regime), each scored on the same test samples.
    where : str
        What the rows are, for the error message.
    metric : str
        The per-sample error column (``rel_l2``; ``nrmse`` for trajectories).

    Returns
    -------
    dict
        :data:`ERROR_COLUMNS` (the first two named after ``metric``): ``rel_l2_mean``
        the mean over seeds of each seed's mean error, ``rel_l2_std`` their sample
        standard deviation (0 for one seed),
        ``ci_low``/``ci_high`` the 95% bootstrap interval over test samples
        (:func:`~pderepro.evaluation.uncertainty.bootstrap_interval`), and the counts.

    Raises
    ------
    ValueError
        When the seeds were scored on different test samples.
    """
    by_seed = rows.groupby("seed")["sample"].apply(lambda s: tuple(sorted(s)))
    if by_seed.nunique() != 1:
        raise ValueError(f"{where}: the seeds were scored on different test samples")
    seed_means = rows.groupby("seed")[metric].mean().to_numpy(dtype=float)
    low, high = bootstrap_interval(rows.groupby("sample")[metric].mean().to_numpy(dtype=float))
    return {
        f"{metric}_mean": seed_means.mean(),
        f"{metric}_std": seed_means.std(ddof=1) if len(seed_means) > 1 else 0.0,
        "ci_low": low,
        "ci_high": high,
        "n_seeds": len(seed_means),
        "n_test": len(by_seed.iloc[0]),
    }


def published_columns(cell: Mapping[str, object] | None) -> dict[str, object]:
    """:data:`PUBLISHED_COLUMNS` of one row from its published cell, empty without one.

    ``cell`` is ``{"value", "n_train", "t_final", "verified"}`` (``t_final`` ``None``
    for a steady map), as :func:`pderepro.studies.base.published_cells` makes it.
    """
    if cell is None:
        return {
            "published": np.nan,
            "published_n_train": pd.NA,
            "published_t_final": np.nan,
            "published_verified": pd.NA,
        }
    t_final = cell.get("t_final")
    return {
        "published": float(cell["value"]),
        "published_n_train": int(cell["n_train"]),
        "published_t_final": np.nan if t_final is None else float(t_final),
        "published_verified": bool(cell["verified"]),
    }


def _typed(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``columns`` of ``table`` with counts as integers and flags as booleans, either
    empty where the paper has no value (pandas' nullable dtypes), so the CSV keeps
    ``1000`` and ``True`` rather than ``1000.0`` and ``1.0``."""
    table = table.astype({"published_n_train": "Int64", "published_verified": "boolean"})
    return table[list(columns)].reset_index(drop=True)


def validation_mean(rows: pd.DataFrame) -> float:
    """Mean over seeds of the validation error of the selected epochs (NaN for a
    reference, which is not trained)."""
    return rows.groupby("seed")["val_rel_l2"].first().astype(float).mean()


def resolution_table(
    metrics: pd.DataFrame,
    *,
    published: Mapping[str, Mapping[int | str, Mapping[str, object]]],
    n_train: int,
    model_order: Sequence[str],
) -> pd.DataFrame:
    """Mean and spread over seeds of the relative L2 error, per model and resolution.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Per-sample rows with :data:`METRIC_COLUMNS`.
    published : mapping
        ``{model key: {resolution: cell}}`` (cells as in :func:`published_columns`) from
        the study config (Li et al., Fourier Neural Operator for Parametric PDEs, ICLR
        2021, Sections 5.1 Burgers and 5.2 Darcy); resolutions the paper did not report
        stay empty.
    n_train : int
        Our training samples N, beside the paper's.
    model_order : sequence of str
        Model keys in the order the table lists them.

    Returns
    -------
    pandas.DataFrame
        :data:`RESOLUTION_COLUMNS`; ``model`` holds the display label, the error
        columns are those of :func:`error_summary`, ``val_rel_l2`` the seeds' mean
        validation error at their selected epochs, ``n_params`` 0 for a no-learning
        reference.
    """
    rows = []
    for (model, resolution), group in metrics.groupby(["model", "resolution"], sort=False):
        paper = {int(k): v for k, v in published.get(model, {}).items()}
        rows.append(
            {
                "key": model,
                "model": group["label"].iloc[0],
                "resolution": int(resolution),
                "n_train": int(n_train),
                **error_summary(group, f"{model} at s={resolution}"),
                "val_rel_l2": validation_mean(group),
                "n_params": int(group["n_params"].iloc[0]),
                **published_columns(paper.get(int(resolution))),
            }
        )
    table = pd.DataFrame(rows)
    rank = {m: i for i, m in enumerate(model_order)}
    table = table.sort_values(
        ["key", "resolution"], key=lambda c: c.map(rank) if c.name == "key" else c
    )
    return _typed(table, RESOLUTION_COLUMNS)


#: Columns of the regimes table (Navier-Stokes), in order: ours (with our N and T), then
#: the paper's.
REGIME_COLUMNS = [
    "model",
    "regime",
    "n_train",
    "t_final",
    *ERROR_COLUMNS,
    "val_rel_l2",
    "n_params",
    *PUBLISHED_COLUMNS,
]


def regimes_table(
    metrics: pd.DataFrame,
    *,
    regimes: Mapping[str, Mapping[str, object]],
    published: Mapping[str, Mapping[str, Mapping[str, object]]],
    model_order: Sequence[str],
) -> pd.DataFrame:
    """Mean and spread over seeds of the relative L2 error, per model and regime.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Per-sample rows with :data:`METRIC_COLUMNS` plus ``regime`` (the regime key).
    regimes : mapping
        ``{regime key: {"label": ..., "n_train": ..., "t_final": ...}}`` in table order;
        ``t_final`` is our horizon T in model time units.
    published : mapping
        ``{model key: {regime key: cell}}`` (cells as in :func:`published_columns`) from
        the study config (Li et al., Fourier Neural Operator for Parametric PDEs, ICLR
        2021, Section 5.3 Navier-Stokes).
    model_order : sequence of str
        Model keys in the order the table lists them.

    Returns
    -------
    pandas.DataFrame
        :data:`REGIME_COLUMNS`; ``model`` and ``regime`` hold display labels.
    """
    rows = []
    for (model, regime), group in metrics.groupby(["model", "regime"], sort=False):
        rows.append(
            {
                "key": model,
                "regime_key": regime,
                "model": group["label"].iloc[0],
                "regime": regimes[regime].get("label", regime),
                "n_train": int(regimes[regime]["n_train"]),
                "t_final": float(regimes[regime]["t_final"]),
                **error_summary(group, f"{model} in regime {regime}"),
                "val_rel_l2": validation_mean(group),
                "n_params": int(group["n_params"].iloc[0]),
                **published_columns(published.get(model, {}).get(regime)),
            }
        )
    table = pd.DataFrame(rows)
    rank = {m: i for i, m in enumerate(model_order)}
    regime_rank = {r: i for i, r in enumerate(regimes)}
    table = table.sort_values(
        ["key", "regime_key"],
        key=lambda c: c.map(rank if c.name == "key" else regime_rank),
    )
    return _typed(table, REGIME_COLUMNS)


def unverified_rows(table: pd.DataFrame) -> pd.Series:
    """True for rows whose published value is marked unverified; False elsewhere (no
    ``published_verified`` column, no published value, or a verified one)."""
    if "published_verified" not in table:
        return pd.Series(False, index=table.index)
    flags = table["published_verified"].astype("boolean")
    return (table["published"].notna() & flags.eq(False)).fillna(False).astype(bool)


def write_table(
    table: pd.DataFrame, csv_path: str | Path, md_path: str | Path, *, caption: str
) -> None:
    """Write a table as CSV (full precision) and Markdown (4 significant digits).

    In the Markdown, unverified published values (:func:`unverified_rows`) carry
    :data:`UNVERIFIED_MARK` and :data:`UNVERIFIED_FOOTNOTE` follows the table; the CSV
    keeps the numbers numeric and the flag in ``published_verified``.

    Parameters
    ----------
    caption : str
        Line printed under the Markdown table (source of the published column...).
    """
    atomic_write(csv_path, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    shown = table.astype(object).where(table.notna(), None)  # empty cells, not "nan"
    unverified = unverified_rows(table)
    footnote = ""
    if unverified.any():
        marked = [
            None if pd.isna(v) else f"{v:.4g}" + (f" {UNVERIFIED_MARK}" if u else "")
            for v, u in zip(shown["published"], unverified, strict=True)
        ]
        # object, not pandas' string dtype, which would turn the empty cells into NaN
        shown["published"] = pd.Series(marked, index=shown.index, dtype=object)
        footnote = f"\n\n{UNVERIFIED_FOOTNOTE}"
    markdown = shown.to_markdown(index=False, floatfmt=".4g", missingval="")
    markdown += f"{footnote}\n\n{caption}\n"
    atomic_write(md_path, lambda tmp: Path(tmp).write_text(markdown))


#: Columns of the closure tables, in order.
OFFLINE_COLUMNS = ["closure", "setup", "r2", "rmse"]
ONLINE_COLUMNS = [
    "closure",
    "setup",
    "hellinger",
    "kl",
    "wasserstein",
    "acf_rmse",
    "forecast_rmse_1mtu",
    "blowups",
]


def closure_table(
    frames: Sequence[pd.DataFrame], columns: Sequence[str], *, setup: str = "setup"
) -> pd.DataFrame:
    """Stack per-closure metrics: setups in order of first appearance, closures as given.

    Parameters
    ----------
    frames : sequence of pandas.DataFrame
        One per closure (and the truth floor), each with a ``closure`` and a setup column.
    columns : sequence of str
        Columns to keep, e.g. :data:`ONLINE_COLUMNS`.
    setup : str
        Name of the setup column (2-D turbulence calls its setups cases).
    """
    table = pd.concat(frames, ignore_index=True)
    setups = list(dict.fromkeys(table[setup]))
    closures = list(dict.fromkeys(table["closure"]))
    table = table.sort_values(
        [setup, "closure"],
        key=lambda c: c.map((setups if c.name == setup else closures).index),
        kind="stable",
    )
    return table[list(columns)].reset_index(drop=True)
