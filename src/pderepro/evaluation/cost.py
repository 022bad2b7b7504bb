"""What a surrogate costs against the solver it replaces, and when it pays for itself.

A surrogate is cheaper than its solver only after enough queries: building it costs
the training and validation data (solver runs) and the training, and each query then
saves the solver's time minus the surrogate's. The break-even number of queries is

    n* = (data + training) / (solver per sample - surrogate per sample),

infinite when the surrogate is not faster per query. Test data are left out of the
build cost: they measure the surrogate, they do not make it.
"""

from __future__ import annotations

import math

import pandas as pd

#: Columns of a study's cost table (seconds of wall time).
COST_COLUMNS = [
    "model",
    "unit",
    "resolution",
    "data_s_per_sample",
    "n_build_samples",
    "train_s",
    "inference_s_per_sample",
    "solver_s_per_sample",
    "speedup",
    "breakeven_queries",
    "train_device",
    "inference_device",
    "solver_device",
]
#: Label of the reference row: the solver itself at the surrogate's resolution.
SOLVER_LABEL = "solver (no learning)"


def breakeven_queries(build_s: float, solver_s: float, surrogate_s: float) -> float:
    """Queries after which building and using a surrogate costs less than the solver.

    Parameters
    ----------
    build_s : float
        Seconds to build the surrogate (data generation and training).
    solver_s, surrogate_s : float
        Seconds per query of the solver and of the surrogate.

    Returns
    -------
    float
        ``build_s / (solver_s - surrogate_s)``, rounded up; ``inf`` when the surrogate
        is not faster per query.
    """
    saving = solver_s - surrogate_s
    if not saving > 0:
        return math.inf
    return float(math.ceil(build_s / saving))


def cost_table(
    runs: pd.DataFrame, data: pd.DataFrame, solver: pd.DataFrame, *, model_order: list[str]
) -> pd.DataFrame:
    """One row per unit, model and resolution, and the solver's reference rows.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per training run: ``unit, model, label, resolution, train_s,
        inference_s_per_sample, train_device, inference_device``; seeds are averaged.
    data : pandas.DataFrame
        Per unit: ``unit, data_s_per_sample`` (wall time of the generation jobs over
        the samples they made) and ``n_build_samples`` (train and validation samples).
    solver : pandas.DataFrame
        Per unit and resolution: ``unit, resolution, solver_s_per_sample, solver_device``
        (the solver run at the surrogate's resolution).
    model_order : list of str
        Model keys in table order.

    Returns
    -------
    pandas.DataFrame
        :data:`COST_COLUMNS`; ``speedup`` is solver over surrogate time per query,
        ``breakeven_queries`` from :func:`breakeven_queries`.
    """
    mean = runs.groupby(["unit", "model", "resolution"], sort=False).agg(
        label=("label", "first"),
        train_s=("train_s", "mean"),
        inference_s_per_sample=("inference_s_per_sample", "mean"),
        train_device=("train_device", "first"),
        inference_device=("inference_device", "first"),
    )
    table = mean.reset_index().merge(data, on="unit").merge(solver, on=["unit", "resolution"])
    table["speedup"] = table["solver_s_per_sample"] / table["inference_s_per_sample"]
    table["breakeven_queries"] = [
        breakeven_queries(
            row.data_s_per_sample * row.n_build_samples + row.train_s,
            row.solver_s_per_sample,
            row.inference_s_per_sample,
        )
        for row in table.itertuples()
    ]
    rank = {m: i for i, m in enumerate(model_order)}
    table = table.assign(rank=table["model"].map(rank)).sort_values(
        ["unit", "rank", "resolution"], kind="stable"
    )
    reference = solver.assign(model=SOLVER_LABEL, speedup=1.0, rank=len(rank))
    table = pd.concat([table.assign(model=table["label"]), reference], ignore_index=True)
    return table.sort_values(["unit", "rank"], kind="stable")[COST_COLUMNS].reset_index(drop=True)
