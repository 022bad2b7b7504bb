"""The tables of a neural-spectral study: relative L2 in % per problem and method, and
inference against our solver at equal accuracy (the paper's 10x claim).

The errors table holds one row per (problem, method): the mean, population std (as the
paper), extremes and each seed's relative L2 in % of the final network on the test grid,
the iterations, time per iteration, training and inference time, beside the paper's value
and iterations; and per problem one no-learning row. The speed table holds per problem our
solver's error and time at each resolution of its ladder, and per trained method the
cheapest rung at least as accurate as the model, with the speed-up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Columns of one run's metrics file (rule train_nsm).
NSM_RUN_COLUMNS = [
    "problem", "method", "seed", "rel_l2", "rel_l2_pct", "loss", "iterations",
    "s_per_iteration", "train_s", "inference_s_per_instance", "peak_memory_mb",
    "projected_s", "device",
]  # fmt: skip
#: Columns of results/<study>/tables/errors.csv: the reader's first, bookkeeping last.
ERRORS_COLUMNS = [
    "problem", "method", "label", "rel_l2_pct_mean", "rel_l2_pct_std", "published",
    "published_iterations", "iterations", "n_seeds", "rel_l2_pct_min", "rel_l2_pct_max",
    "rel_l2_pct_seeds", "s_per_iteration", "s_per_iteration_std", "train_s",
    "inference_s_per_instance", "method_kind", "peak_memory_mb", "over_limit_seeds",
    "projected_s", "published_verified",
]  # fmt: skip
#: Columns of results/<study>/tables/speed.csv.
SPEED_COLUMNS = [
    "problem", "method", "label", "rel_l2_pct", "inference_s_per_instance",
    "solver_resolution", "solver_rel_l2_pct", "solver_s_per_instance", "speedup",
    "speedup_low", "speedup_high", "solver_match",
]  # fmt: skip
#: The method key of the no-learning rows, and of the solver's ladder rows.
NO_LEARNING, SOLVER = "no_learning", "solver"
MATCHED, LOWER_BOUND, UPPER_BOUND = "matched", "finest_less_accurate", "coarsest_more_accurate"


def relative_l2_pct(prediction: np.ndarray, reference: np.ndarray) -> float:
    """``100 ||u - u_ref|| / ||u_ref||`` per instance over its whole grid, mean over the
    instances (axis 0): the paper's metric."""
    diff = (prediction - reference).reshape(len(reference), -1)
    norm = reference.reshape(len(reference), -1)
    return float(100 * np.mean(np.linalg.norm(diff, axis=1) / np.linalg.norm(norm, axis=1)))


def resolution_text(sizes: Mapping[str, int]) -> str:
    """``"nx 64, steps 128"``: a solver resolution for people."""
    return ", ".join(f"{k} {v}" for k, v in sizes.items())


def _trained(group: pd.DataFrame) -> pd.DataFrame:
    """The seeds that trained in full (a run stopped at the time limit has no error)."""
    return group[np.isfinite(group["rel_l2_pct"].to_numpy(dtype=float))]


def errors_table(
    runs: pd.DataFrame,
    no_learning: Mapping[str, tuple[str, float]],
    *,
    problems: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, Mapping[str, str]],
    published: Mapping[str, Any],
) -> pd.DataFrame:
    """The errors table.

    Parameters
    ----------
    runs : DataFrame
        Every run's metrics row (:data:`NSM_RUN_COLUMNS`).
    no_learning : mapping
        ``{problem: (label, relative L2 in %)}`` of each problem's no-learning field.
    problems, methods : mapping
        By key, in table order: ``{"label", "iterations"}`` (optional ``methods``, the
        method keys the problem runs: default all); ``{"label", "kind"}``.
    published : mapping
        The study's ``published`` block (values in %).
    """
    values, unverified = published.get("values", {}), published.get("unverified", {})
    rows = []
    for problem, spec in problems.items():
        for method, m in methods.items():
            if method not in spec.get("methods", methods):
                continue  # the problem does not run it
            group = runs[(runs["problem"] == problem) & (runs["method"] == method)]
            group = group.sort_values("seed")
            trained = _trained(group)
            errors = trained["rel_l2_pct"].to_numpy(dtype=float)
            value = values.get(problem, {}).get(method)
            some = len(errors) > 0
            rows.append({
                "problem": problem, "method": method, "label": m["label"],
                "method_kind": m["kind"], "n_seeds": len(errors),
                "rel_l2_pct_mean": errors.mean() if some else np.nan,
                "rel_l2_pct_std": errors.std(ddof=0) if some else np.nan,
                "rel_l2_pct_min": errors.min() if some else np.nan,
                "rel_l2_pct_max": errors.max() if some else np.nan,
                "rel_l2_pct_seeds": ", ".join(f"{e:.3g}" for e in errors),
                "iterations": spec["iterations"],
                "s_per_iteration": group["s_per_iteration"].mean(),
                "s_per_iteration_std": (
                    group["s_per_iteration"].std(ddof=1) if len(group) > 1 else np.nan
                ),
                "train_s": group["train_s"].mean(),
                "inference_s_per_instance": trained["inference_s_per_instance"].mean(),
                "peak_memory_mb": group["peak_memory_mb"].mean(),
                "over_limit_seeds": len(group) - len(trained),
                "projected_s": group["projected_s"].mean(),
                "published": value,
                "published_iterations": published.get("iterations", {}).get(problem),
                "published_verified": (
                    None if value is None else method not in unverified.get(problem, [])
                ),
            })  # fmt: skip
        label, error = no_learning[problem]
        rows.append({
            "problem": problem, "method": NO_LEARNING, "label": label, "n_seeds": 0,
            "rel_l2_pct_mean": error, "rel_l2_pct_min": error, "rel_l2_pct_max": error,
            "iterations": 0, "over_limit_seeds": 0, "method_kind": NO_LEARNING,
        })  # fmt: skip
    table = pd.DataFrame(rows, columns=ERRORS_COLUMNS)
    for column in ("published_iterations", "iterations", "n_seeds", "over_limit_seeds"):
        table[column] = table[column].astype("Int64")  # 30000, not 3e+04
    return table


def match_solver(error: float, ladder: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], str]:
    """The cheapest rung of ``ladder`` (``{"resolution", "rel_l2_pct", "s_per_instance"}``,
    any order) whose error is at most ``error``, and how it matches: :data:`MATCHED`;
    :data:`UPPER_BOUND` where even the cheapest rung is more accurate (a cheaper solver
    might match: the speed-up is at most this); :data:`LOWER_BOUND` where none is as
    accurate (the finest rung, a lower bound of the solver's time)."""
    by_cost = sorted(ladder, key=lambda r: r["s_per_instance"])
    good = [r for r in by_cost if r["rel_l2_pct"] <= error]
    if not good:
        return max(ladder, key=lambda r: r["s_per_instance"]), LOWER_BOUND
    return good[0], (UPPER_BOUND if good[0] is by_cost[0] else MATCHED)


def speed_table(
    errors: pd.DataFrame,
    ladders: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    problems: Mapping[str, Mapping[str, Any]],
) -> pd.DataFrame:
    """The speed table from the errors table and each problem's solver ladder.

    Parameters
    ----------
    errors : DataFrame
        :func:`errors_table`'s.
    ladders : mapping
        ``{problem: [{"resolution": sizes, "rel_l2_pct", "s_per_instance"}, ...]}``.
    """
    rows = []
    for problem in problems:
        ladder = list(ladders.get(problem, []))
        for rung in ladder:
            rows.append({
                "problem": problem, "method": SOLVER,
                "label": f"our solver, {resolution_text(rung['resolution'])}",
                "solver_resolution": resolution_text(rung["resolution"]),
                "solver_rel_l2_pct": rung["rel_l2_pct"],
                "solver_s_per_instance": rung["s_per_instance"],
            })  # fmt: skip
        trained = errors[(errors["problem"] == problem) & (errors["n_seeds"] > 0)]
        for _, row in trained.iterrows():
            out = {
                "problem": problem, "method": row["method"], "label": row["label"],
                "rel_l2_pct": row["rel_l2_pct_mean"],
                "inference_s_per_instance": row["inference_s_per_instance"],
            }  # fmt: skip
            if ladder:
                rung, match = match_solver(float(row["rel_l2_pct_mean"]), ladder)
                ratio = rung["s_per_instance"] / row["inference_s_per_instance"]
                out.update({
                    "solver_resolution": resolution_text(rung["resolution"]),
                    "solver_rel_l2_pct": rung["rel_l2_pct"],
                    "solver_s_per_instance": rung["s_per_instance"],
                    # where no rung matches the model's error, the ratio at the nearest rung
                    # bounds the speed-up: from above (the coarsest rung is already more
                    # accurate: an equally accurate solve would cost no more) or below
                    "speedup": ratio,
                    "speedup_low": ratio if match != UPPER_BOUND else 0.0,
                    "speedup_high": ratio if match != LOWER_BOUND else float("inf"),
                    "solver_match": match,
                })  # fmt: skip
            rows.append(out)
    return pd.DataFrame(rows, columns=SPEED_COLUMNS)
