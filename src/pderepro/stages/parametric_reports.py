"""Tables and figures of a parametric study from the per-sample metrics of its runs
(:mod:`.parametric`): the models across parameters, CAPE's change against its base
models, one model per value (PDEBench), and the basic-forms experiment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from pderepro.data.io import open_netcdf
from pderepro.evaluation.parametric_tables import PDEBENCH_COLUMNS, basic_forms_table
from pderepro.evaluation.tables import write_table
from pderepro.evaluation.trajectory_metrics import NRMSE_SOURCE, PDEBENCH_METRICS_NOTE


def _with_run(path: str) -> pd.DataFrame:
    """A metrics file's rows with the run that made them (its one trained model)."""
    rows = pd.read_csv(path)
    trained = sorted(set(rows["model"]) - {"persistence"})
    if len(trained) != 1:
        raise ValueError(f"{path}: expected the rows of one trained run, found {trained}")
    return rows.assign(run=trained[0])


def run_parametric_tables(
    *,
    metrics: Sequence[str],
    outputs: Mapping[str, str],
    model_order: Sequence[str],
    published: Mapping[str, Mapping[float, float]],
    version: str,
    cape_pairs: Mapping[str, str],
    pdebench_sizes: Mapping[str, Mapping[str, float]] | None = None,
    published_sizes: Mapping[str, float] | None = None,
) -> None:
    """The ``parameters``, ``cape_gains`` and ``pdebench`` tables (CSV and Markdown) from
    per-sample metrics of every run; ``outputs`` maps ``parameters_csv`` ...
    ``pdebench_md``; ``cape_pairs`` each CAPE model to its base model;
    ``pdebench_sizes`` per PDE ours and ``published_sizes`` the paper's, beside the
    per-value rows (:func:`~pderepro.evaluation.parametric_tables.pdebench_table`)."""
    from pderepro.evaluation.parametric_tables import (
        cape_gains_table,
        parameters_table,
        pdebench_table,
    )

    frame = pd.concat([_with_run(p) for p in metrics], ignore_index=True)
    # each file's persistence rows were scored under its run's protocol (context frames,
    # resolution), so they go with that file's table only
    per_value = frame["run"].str.startswith("pdebench-")
    cape, pdebench = frame[~per_value].copy(), frame[per_value].copy()
    pdebench.loc[pdebench["model"] != "persistence", "model"] = "pdebench"
    write_table(
        parameters_table(cape, model_order=list(model_order)),
        outputs["parameters_csv"], outputs["parameters_md"],
        caption="nRMSE over predicted frames of the models trained across the seen values, as "
        f"{NRMSE_SOURCE}; persistence of the last true frame is the no-learning reference.",
    )  # fmt: skip
    labels = dict(zip(cape["model"], cape["label"], strict=True))
    write_table(
        cape_gains_table(cape, pairs=cape_pairs, labels=labels),
        outputs["cape_gains_csv"], outputs["cape_gains_md"],
        caption="Each CAPE model against its base model: nRMSE (as "
        f"{NRMSE_SOURCE}) averaged over the split's values (each value's mean over test "
        "trajectories; seed_std: spread over seeds); change = nrmse / baseline_nrmse - 1; "
        "persistence of the last true frame is the no-learning row a base model must beat.",
    )  # fmt: skip
    table = (
        pdebench_table(
            pdebench,
            published=published,
            version=version,
            sizes=pdebench_sizes,
            published_sizes=published_sizes,
        )  # fmt: skip
        if per_value.any()
        else pd.DataFrame(columns=PDEBENCH_COLUMNS)
    )
    write_table(
        table, outputs["pdebench_csv"], outputs["pdebench_md"],
        caption=f"One model per value (PDEBench protocol); published: {version or 'none'}. "
        f"nRMSE, RMSE and bRMSE as {PDEBENCH_METRICS_NOTE} Our truths are exact or "
        "spectral, PDEBench's from limited finite-volume schemes.",
    )  # fmt: skip


def _per_step_rows(path: str) -> pd.DataFrame:
    """A per-step file's rows with its PDE, which its path names
    (``results/<study>/<pde>/per_step/<run>/seed<k>.csv``)."""
    parts = Path(path).parts
    if len(parts) < 4 or parts[-3] != "per_step":
        raise ValueError(f"{path}: not a results/<study>/<pde>/per_step/<run>/<seed> file")
    return pd.read_csv(path).assign(pde=parts[-4])


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
    steps = pd.concat([_per_step_rows(p) for p in per_step], ignore_index=True)
    plot_error_vs_step(steps, *paths("error_vs_step"), title=title)
    plot_rollouts([open_netcdf(p) for p in predictions], *paths("rollouts"))


def run_basic_forms_table(
    *, metrics: Sequence[str], csv: str, markdown: str, runs: Mapping[str, Mapping[str, Any]]
) -> None:
    """The basic-forms table (:func:`~pderepro.evaluation.parametric_tables.basic_forms_table`)
    from the per-sample metrics of its runs; ``runs`` maps each run to its ``training`` and
    ``target_fraction``."""
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    write_table(
        basic_forms_table(frame, runs=runs), csv, markdown,
        caption=f"nRMSE (as {NRMSE_SOURCE}) over predicted frames on the target PDE, trained "
        "on a fraction of its data alone (target) or with its basic forms (target+basic), "
        "the same optimiser steps; id: at the training values, ood: outside their ranges; "
        "persistence is the no-learning reference.",
    )  # fmt: skip


def run_plot_basic_forms(*, table: str, png: str, pdf: str, title: str) -> None:
    """nRMSE against the target-data fraction, one line per training, id and ood panels."""
    from pderepro.plotting.parametric import plot_basic_forms

    plot_basic_forms(pd.read_csv(table), png, pdf, title=title)
