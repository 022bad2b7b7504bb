"""Tables of a parametric study: one model across parameters (seen and unseen values),
CAPE against its base model (the mean over each split's values, and the change), one
model per value (the PDEBench protocol), and the basic-forms experiment (target data
alone or with the basic forms, per target fraction), each with the persistence reference
rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pderepro.evaluation.tables import error_summary
from pderepro.evaluation.trajectory_metrics import SAMPLE_METRICS, SPLIT_METRICS

#: PDEBench's other metrics beside nRMSE in ``pdebench.csv`` (and our pooled ratio), each
#: the mean over seeds and test trajectories of the metrics files' column of that name.
PDEBENCH_METRICS = (*SAMPLE_METRICS[1:], *SPLIT_METRICS)

#: The nRMSE summary of each row (:func:`~pderepro.evaluation.tables.error_summary` with
#: ``metric="nrmse"``): mean and standard deviation over seeds, bootstrap interval, counts.
NRMSE_SUMMARY_COLUMNS = ["nrmse_mean", "nrmse_std", "ci_low", "ci_high", "n_seeds", "n_test"]
#: Columns of ``parameters.csv``.
PARAMETERS_COLUMNS = ["pde", "parameter", "split", "model", *NRMSE_SUMMARY_COLUMNS]
#: Columns of ``cape_gains.csv``.
CAPE_GAINS_COLUMNS = [
    "pde",
    "split",
    "model",
    "baseline",
    "n_values",
    "nrmse",
    "baseline_nrmse",
    "change",
    "seed_std",
    "baseline_seed_std",
    "n_seeds",
]
#: The sizes beside each model row of ``pdebench.csv``: ours, and the paper's (``published_``
#: prefixed; ``n_samples`` is its trajectories per value, all splits).
PDEBENCH_SIZES = ("n_train", "cells", "epochs", "t_final")
PUBLISHED_SIZES = ("n_samples", "cells", "epochs", "t_final")
#: Columns of ``pdebench.csv``.
PDEBENCH_COLUMNS = [
    "pde",
    "parameter",
    "model",
    *NRMSE_SUMMARY_COLUMNS,
    *PDEBENCH_METRICS,
    *PDEBENCH_SIZES,
    "published",
    "published_version",
    *(f"published_{key}" for key in PUBLISHED_SIZES),
]
#: Columns of ``basic_forms.csv``.
BASIC_FORMS_COLUMNS = ["training", "target_fraction", "split", *NRMSE_SUMMARY_COLUMNS]
#: The basic-forms table's names of the splits: seen values are in distribution.
BASIC_FORMS_SPLITS = {"seen": "id", "unseen": "ood"}
#: The no-learning reference's model key in the metrics files.
REFERENCE = "persistence"


def _references_once(metrics: pd.DataFrame) -> pd.DataFrame:
    """Persistence rows once per (pde, value, sample): every evaluation job scores it on
    the same test trajectories, so the copies are identical."""
    is_ref = metrics["model"] == REFERENCE
    refs = metrics[is_ref].drop_duplicates(["pde", "value", "sample"]).assign(seed=0)
    return pd.concat([metrics[~is_ref], refs], ignore_index=True)


def _summaries(
    metrics: pd.DataFrame, keys: Sequence[str], means: Sequence[str] = ()
) -> pd.DataFrame:
    """The nRMSE summary per group of ``keys``, with the plain mean of each of ``means``."""
    rows = []
    for key, group in _references_once(metrics).groupby(list(keys), sort=False):
        where = ", ".join(f"{k}={v}" for k, v in zip(keys, key, strict=True))
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "label": group["label"].iloc[0],
                **error_summary(group, where, metric="nrmse"),
                **{name: float(group[name].mean()) for name in means},
            }
        )
    return pd.DataFrame(rows)


def parameters_table(metrics: pd.DataFrame, *, model_order: Sequence[str]) -> pd.DataFrame:
    """nRMSE of the models trained across parameters, per PDE, value and model.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Per-sample rows of
        :data:`~pderepro.stages.parametric.PARAMETRIC_METRIC_COLUMNS`.
    model_order : sequence of str
        Model keys in table order; the persistence reference comes last.

    Returns
    -------
    pandas.DataFrame
        :data:`PARAMETERS_COLUMNS`, ``model`` holding the display label, sorted by PDE,
        parameter value and model.
    """
    table = _summaries(metrics, ["pde", "value", "split", "model"])
    rank = {m: i for i, m in enumerate([*model_order, REFERENCE])}
    table = table.assign(rank=table["model"].map(rank)).sort_values(
        ["pde", "value", "rank"], kind="stable"
    )
    table = table.assign(parameter=table["value"], model=table["label"])
    return table[PARAMETERS_COLUMNS].reset_index(drop=True)


def _split_means(rows: pd.DataFrame) -> tuple[float, float, frozenset, int]:
    """Mean over values of each value's mean nRMSE, per seed: their mean over seeds, std
    over seeds (0 for one), the values and the number of seeds."""
    per_value = rows.groupby(["seed", "value"])["nrmse"].mean()  # (seed, value)
    values = per_value.reset_index().groupby("seed")["value"].agg(frozenset)
    if values.nunique() != 1:
        raise ValueError(f"seeds scored on different values: {values.to_dict()}")
    by_seed = per_value.groupby("seed").mean().to_numpy(dtype=float)
    std = float(by_seed.std(ddof=1)) if len(by_seed) > 1 else 0.0
    return float(by_seed.mean()), std, values.iloc[0], len(by_seed)


def cape_gains_table(
    metrics: pd.DataFrame, *, pairs: Mapping[str, str], labels: Mapping[str, str]
) -> pd.DataFrame:
    """Each CAPE model against its base model: the mean nRMSE over the seen and over the
    unseen values, and the relative change (what CAPE claims to lower, most on unseen
    values).

    Parameters
    ----------
    metrics : pandas.DataFrame
        Per-sample rows of the runs across parameters (``model`` the run's key).
    pairs : mapping
        ``{cape model: its base model}`` (keys of the study's models).
    labels : mapping
        Display label of each model key.

    Returns
    -------
    pandas.DataFrame
        :data:`CAPE_GAINS_COLUMNS`: ``nrmse`` is the mean over the split's values of each
        value's mean over test trajectories, averaged over seeds (``seed_std`` its spread
        over seeds); ``change`` is ``nrmse / baseline_nrmse - 1`` (-0.2: 20% lower).
        Each (pde, split) ends with the persistence row (no learning, no baseline).
    """
    rows = []
    for (pde, split), group in metrics.groupby(["pde", "split"], sort=True):
        for model, baseline in pairs.items():
            found = {m: group[group["model"] == m] for m in (model, baseline)}
            missing = [m for m, rows_of in found.items() if rows_of.empty]
            if missing:
                raise ValueError(f"{pde}, {split}: no metrics of {missing}")
            ours, theirs = _split_means(found[model]), _split_means(found[baseline])
            if ours[2] != theirs[2] or ours[3] != theirs[3]:
                raise ValueError(
                    f"{pde}, {split}: {model} and {baseline} scored on other values or seeds"
                )
            rows.append(
                {
                    "pde": pde, "split": split, "model": labels[model],
                    "baseline": labels[baseline], "n_values": len(ours[2]), "nrmse": ours[0],
                    "baseline_nrmse": theirs[0], "change": ours[0] / theirs[0] - 1.0,
                    "seed_std": ours[1], "baseline_seed_std": theirs[1], "n_seeds": ours[3],
                }
            )  # fmt: skip
        held = group[group["model"] == REFERENCE]
        if len(held):  # the no-learning row a base model must beat for a gain to count
            nrmse, std, values, n_seeds = _split_means(held)
            rows.append(
                {
                    "pde": pde, "split": split, "model": labels.get(REFERENCE, REFERENCE),
                    "baseline": "", "n_values": len(values), "nrmse": nrmse,
                    "seed_std": std, "n_seeds": n_seeds,
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=CAPE_GAINS_COLUMNS)


def pdebench_table(
    metrics: pd.DataFrame,
    *,
    published: Mapping[str, Mapping[float, float]],
    version: str,
    sizes: Mapping[str, Mapping[str, float]] | None = None,
    published_sizes: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """nRMSE of one model per parameter value (the PDEBench protocol) beside the
    published values, with PDEBench's other metrics (:data:`PDEBENCH_METRICS`) and the
    sizes of both.

    Parameters
    ----------
    published : mapping
        ``{pde: {value: nRMSE}}`` of the published FNO rows.
    version : str
        Which version of the paper the published values come from (its two versions
        differ by up to 2.6x).
    sizes : mapping, optional
        Per PDE our :data:`PDEBENCH_SIZES` (training trajectories per value, cells after
        the stride, epochs, final time).
    published_sizes : mapping, optional
        The paper's :data:`PUBLISHED_SIZES`.

    Returns
    -------
    pandas.DataFrame
        :data:`PDEBENCH_COLUMNS`; references have no published value and no sizes, and
        the paper's sizes stand only beside a published value.
    """
    table = _summaries(metrics, ["pde", "value", "model"], means=PDEBENCH_METRICS)
    table = table.sort_values(["pde", "value"], kind="stable")

    def paper(row: pd.Series) -> float:
        if row["model"] == REFERENCE:
            return np.nan
        values = {float(k): v for k, v in published.get(row["pde"], {}).items()}
        return values.get(float(row["value"]), np.nan)

    table["published"] = table.apply(paper, axis=1)
    table["published_version"] = np.where(table["published"].notna(), version, "")
    model = table["model"] != REFERENCE
    for key in PDEBENCH_SIZES:
        ours = table["pde"].map(lambda pde, key=key: (sizes or {}).get(pde, {}).get(key, np.nan))
        table[key] = ours.where(model)
    for key in PUBLISHED_SIZES:
        size = (published_sizes or {}).get(key, np.nan)
        table[f"published_{key}"] = np.where(table["published"].notna(), size, np.nan)
    table = table.assign(parameter=table["value"], model=table["label"])
    return table[PDEBENCH_COLUMNS].reset_index(drop=True)


def basic_forms_table(
    metrics: pd.DataFrame, *, runs: Mapping[str, Mapping[str, object]]
) -> pd.DataFrame:
    """nRMSE of the basic-forms runs per training, target fraction and split.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Per-sample rows of the basic-forms runs and their persistence rows.
    runs : mapping
        ``{run: {"training": "target" or "target+basic", "target_fraction": float}}``.

    Returns
    -------
    pandas.DataFrame
        :data:`BASIC_FORMS_COLUMNS`; ``split`` is ``id`` (test trajectories at the
        training values) or ``ood``; a test sample is a (value, trajectory) pair; the
        persistence rows (``training`` = ``persistence``) have no fraction.
    """
    unknown = sorted(set(metrics["model"]) - set(runs) - {REFERENCE})
    if unknown:
        raise ValueError(f"metrics of runs that are not basic-forms runs: {unknown}")
    frame = _references_once(metrics)
    frame = frame.assign(
        training=frame["model"].map(lambda m: runs[m]["training"] if m in runs else REFERENCE),
        target_fraction=frame["model"].map(
            lambda m: float(runs[m]["target_fraction"]) if m in runs else np.nan
        ),
        split=frame["split"].map(BASIC_FORMS_SPLITS),
        sample=frame["value"].astype(str) + "/" + frame["sample"].astype(str),
    )
    rows = []
    keys = ["training", "target_fraction", "split"]
    for key, group in frame.groupby(keys, sort=True, dropna=False):
        where = ", ".join(f"{k}={v}" for k, v in zip(keys, key, strict=True))
        rows.append({**dict(zip(keys, key, strict=True)), **error_summary(group, where, "nrmse")})
    table = pd.DataFrame(rows, columns=BASIC_FORMS_COLUMNS)
    rank = table["training"].map({"target": 0, "target+basic": 1, REFERENCE: 2})
    table = table.assign(rank=rank).sort_values(["split", "rank", "target_fraction"])
    return table[BASIC_FORMS_COLUMNS].reset_index(drop=True)
