"""The tables of a design study, from the per-run metrics of every task.

* ``tasks``: per task and method, the final compliance (mean, min and max over seeds) and
  how much worse it is than the best design any method found on that task, in percent
  (Hoyer et al. 2019's per-task score), with the budget spent, the volume's error and
  the perimeter of the design's 0.5 level set (:func:`perimeter`: many thin members make
  a long one).
* ``wins``: per method, on how many tasks its design is the best (within ``tolerance``,
  relative), and its mean and median percent worse over tasks. A seeded method (the CNN)
  makes one *trial* per seed: seed s of every seeded method against the deterministic
  methods' one run; ``wins`` is the mean over trials, ``wins_low``/``wins_high`` the
  range, so that a comparison of win counts carries the seeds' spread; ``best_other_*``
  are the same for the most winning other method of each trial (the reference excluded),
  the paper's "best baseline method".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

TASK_KEYS = ["task", "family", "nelx", "nely", "volume"]


def perimeter(density: np.ndarray) -> float:
    """Length of the 0.5 level set of a ``(nely, nelx)`` design inside the domain, in
    element widths: the edges between a solid (> 0.5) and a void element."""
    solid = np.asarray(density) > 0.5
    return float(np.sum(solid[:, 1:] != solid[:, :-1]) + np.sum(solid[1:, :] != solid[:-1, :]))


def _pct_worse(compliance: pd.Series, best: pd.Series) -> pd.Series:
    return 100.0 * (compliance / best - 1.0)


def _trial_wins(runs: pd.DataFrame, order: Sequence[str], tolerance: float) -> pd.DataFrame:
    """``(trial, method) -> wins``: seed s of each method (its last seed where it has
    fewer), the best per task within ``tolerance`` counted for every method reaching it."""
    n_trials = int(runs["seed"].max()) + 1
    out = []
    for trial in range(n_trials):
        last = runs.groupby("method")["seed"].transform("max")
        picked = runs[runs["seed"] == np.minimum(trial, last)]
        best = picked.groupby("task")["compliance"].transform("min")
        won = picked["compliance"] <= best * (1.0 + tolerance)
        counts = won.groupby(picked["method"]).sum()
        out += [{"trial": trial, "method": m, "wins": int(counts.get(m, 0))} for m in order]
    return pd.DataFrame(out)


def design_tables(
    runs: pd.DataFrame, order: Sequence[str], *, reference: str, tolerance: float
) -> dict[str, pd.DataFrame]:
    """``{"tasks": ..., "wins": ...}`` from the runs of every task (rows of
    :data:`pderepro.stages.design.RUN_COLUMNS`, and ``perimeter`` where known), methods
    in ``order``; ``reference`` is the no-optimisation method (the uniform design), listed
    last."""
    missing = sorted(set(order) - set(runs["method"]))
    if missing:
        raise ValueError(f"no runs of method(s) {missing} in the design metrics")
    if "perimeter" not in runs:
        runs = runs.assign(perimeter=np.nan)
    runs = runs.assign(best=runs.groupby("task")["compliance"].transform("min"))
    runs["pct_worse"] = _pct_worse(runs["compliance"], runs["best"])
    grouped = runs.groupby([*TASK_KEYS, "method"], sort=False)
    tasks = grouped.agg(
        n_seeds=("seed", "nunique"),
        compliance_mean=("compliance", "mean"),
        compliance_min=("compliance", "min"),
        compliance_max=("compliance", "max"),
        best_compliance=("best", "first"),
        pct_worse_mean=("pct_worse", "mean"),
        pct_worse_min=("pct_worse", "min"),
        pct_worse_max=("pct_worse", "max"),
        evaluations_mean=("evaluations", "mean"),
        wall_s_mean=("wall_s", "mean"),
        volume_error_max=("volume_error", "max"),
        perimeter_mean=("perimeter", "mean"),
        perimeter_min=("perimeter", "min"),
        perimeter_max=("perimeter", "max"),
    ).reset_index()
    rank = {m: i for i, m in enumerate([*[m for m in order if m != reference], reference])}
    task_order = {t: i for i, t in enumerate(runs["task"].drop_duplicates())}
    tasks = tasks.sort_values(
        ["task", "method"], key=lambda c: c.map(task_order if c.name == "task" else rank)
    ).reset_index(drop=True)

    trials = _trial_wins(runs, order, tolerance)
    per_trial = trials.groupby("method")["wins"]
    contenders = trials[trials["method"] != reference]
    best_other = {
        m: contenders[contenders["method"] != m].groupby("trial")["wins"].max() for m in rank
    }
    per_method = tasks.groupby("method")
    wins = pd.DataFrame({
        "method": list(rank),
        "n_tasks": [int(per_method.get_group(m)["task"].nunique()) for m in rank],
        "n_seeds": [int(per_method.get_group(m)["n_seeds"].max()) for m in rank],
        "wins": [float(per_trial.get_group(m).mean()) for m in rank],
        "wins_low": [float(per_trial.get_group(m).min()) for m in rank],
        "wins_high": [float(per_trial.get_group(m).max()) for m in rank],
        "best_other_wins": [float(best_other[m].mean()) for m in rank],
        "best_other_wins_low": [float(best_other[m].min()) for m in rank],
        "best_other_wins_high": [float(best_other[m].max()) for m in rank],
        "pct_worse_mean": [float(per_method.get_group(m)["pct_worse_mean"].mean()) for m in rank],
        "pct_worse_median": [
            float(per_method.get_group(m)["pct_worse_mean"].median()) for m in rank
        ],
        "pct_worse_max": [float(per_method.get_group(m)["pct_worse_max"].max()) for m in rank],
        "evaluations_mean": [float(per_method.get_group(m)["evaluations_mean"].mean())
                             for m in rank],  # fmt: skip
        "wall_s_mean": [float(per_method.get_group(m)["wall_s_mean"].mean()) for m in rank],
        "volume_error_max": [float(per_method.get_group(m)["volume_error_max"].max())
                             for m in rank],  # fmt: skip
        "perimeter_mean": [float(per_method.get_group(m)["perimeter_mean"].mean()) for m in rank],
        "tolerance": tolerance,
    })  # fmt: skip
    wins.insert(4, "share", wins["wins"] / wins["n_tasks"])
    return {"tasks": tasks, "wins": wins}
