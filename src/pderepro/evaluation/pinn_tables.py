"""The tables of a physics-informed study: relative L2 per problem and method, and how
cost grows with a problem parameter (the dimension).

One row per (problem, method): the mean, std, extremes and each seed's relative L2 error
of the final network on the reference grid, the iterations, time per iteration and run,
a trained scalar (an eigenvalue) beside its reference where the problem has one, beside
the paper's value and iterations; and per problem one no-learning reference row (the
problem's: the initial condition held constant in time, or zero, or an untrained trial
function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Columns of one run's metrics file (rule train_pinn).
PINN_RUN_COLUMNS = [
    "problem", "method", "seed", "rel_l2", "validation_residual", "loss", "residual_loss",
    "adam_iterations",
    "lbfgs_iterations", "s_per_iteration", "lbfgs_s_per_iteration", "train_s", "n_points",
    "quantity", "peak_memory_mb", "projected_s", "device",
]  # fmt: skip
#: Columns of results/<study>/tables/errors.csv.
ERRORS_COLUMNS = [
    "problem", "method", "label", "n_seeds", "rel_l2_mean", "rel_l2_std", "rel_l2_min",
    "rel_l2_max", "rel_l2_seeds", "quantity_mean", "quantity_std", "quantity_seeds",
    "quantity_reference", "quantity_rel_error", "quantity_rel_error_max", "residual_loss",
    "residual_loss_max", "validation_residual", "validation_residual_min", "adam_iterations",
    "lbfgs_iterations", "s_per_iteration", "s_per_iteration_std", "lbfgs_s_per_iteration",
    "train_s", "run_s", "peak_memory_mb", "over_limit_seeds", "projected_s", "published",
    "published_best", "published_iterations", "published_verified",
]  # fmt: skip


def _stopped(runs: pd.DataFrame) -> np.ndarray:
    """Whether each run stopped before its budget: over its time limit (``projected_s``
    finite) or out of memory (infinite)."""
    return ~np.isnan(runs["projected_s"].to_numpy(float))


def _run_seconds(runs: pd.DataFrame) -> pd.Series:
    """Each run's whole Adam phase: measured (``train_s``), or projected where it stopped
    at its time limit (infinite out of memory)."""
    return runs["projected_s"].where(_stopped(runs), runs["train_s"])


#: The method key of the no-learning reference rows.
NO_LEARNING = "no_learning"
#: The suffix of a method's best-seed row (where the paper reports best seeds).
BEST_SEED = "_best_seed"


def errors_table(
    runs: pd.DataFrame,
    no_learning: Mapping[str, tuple[str, float, float | None]],
    *,
    problems: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, str],
    published: Mapping[str, Any],
    preset: str,
) -> tuple[pd.DataFrame, str]:
    """The table and its caption.

    Parameters
    ----------
    runs : DataFrame
        Every run's metrics row (:data:`PINN_RUN_COLUMNS`).
    no_learning : mapping
        ``{problem: (label, error, quantity)}`` of each problem's no-learning row
        (:meth:`~pderepro.training.pinn.problems.Problem.no_learning`; ``quantity``: the
        reference value of its trained scalar, or None).
    problems, methods : mapping
        Labels (and budgets) by key, in table order.
    published : mapping
        The study's ``published`` block.
    """
    values = published.get("values", {})
    unverified = published.get("unverified", {})
    rows = []
    for problem in problems:
        for method, label in methods.items():
            group = runs[(runs["problem"] == problem) & (runs["method"] == method)]
            group = group.sort_values("seed")
            errors = group["rel_l2"].to_numpy(dtype=float)
            value = values.get(problem, {}).get(method)
            reference = no_learning[problem][2]
            trained = group["quantity"].to_numpy(dtype=float)
            rows.append({
                "problem": problem, "method": method, "label": label,
                "n_seeds": len(group), "rel_l2_mean": errors.mean(),
                "rel_l2_std": errors.std(ddof=1) if len(errors) > 1 else np.nan,
                "rel_l2_min": errors.min(), "rel_l2_max": errors.max(),
                "rel_l2_seeds": ", ".join(f"{e:.3g}" for e in errors),
                **({} if reference is None else {
                    "quantity_mean": trained.mean(),
                    "quantity_std": trained.std(ddof=1) if len(trained) > 1 else np.nan,
                    "quantity_seeds": ", ".join(f"{q:.7g}" for q in trained),
                    "quantity_reference": reference,
                    "quantity_rel_error": abs(trained.mean() - reference) / abs(reference),
                    "quantity_rel_error_max": np.max(np.abs(trained - reference)) / abs(reference),
                }),
                "residual_loss": group["residual_loss"].mean(),
                "residual_loss_max": group["residual_loss"].max(),
                "validation_residual": group["validation_residual"].mean(),
                "validation_residual_min": group["validation_residual"].min(),
                "adam_iterations": int(group["adam_iterations"].iloc[0]),
                "lbfgs_iterations": int(group["lbfgs_iterations"].iloc[0]),
                "s_per_iteration": group["s_per_iteration"].mean(),
                "s_per_iteration_std": (
                    group["s_per_iteration"].std(ddof=1) if len(group) > 1 else np.nan
                ),
                "lbfgs_s_per_iteration": group["lbfgs_s_per_iteration"].mean(),
                "train_s": group["train_s"].mean(),
                "run_s": _run_seconds(group).mean(),
                "peak_memory_mb": group["peak_memory_mb"].mean(),
                "over_limit_seeds": int(_stopped(group).sum()),
                "projected_s": group["projected_s"].mean(),
                "published": value,
                "published_best": published.get("best", {}).get(problem, {}).get(method),
                "published_iterations": published.get("iterations", {}).get(problem),
                "published_verified": (
                    None if value is None else method not in unverified.get(problem, [])
                ),
            })  # fmt: skip
        best = published.get("best", {}).get(problem)
        for method, label in methods.items() if best is not None else ():
            # the paper's separate best-seed row, ours beside it (a choice on the test
            # error, so never the row a claim or a setting reads)
            errors = runs[(runs["problem"] == problem) & (runs["method"] == method)]["rel_l2"]
            rows.append({
                "problem": problem, "method": f"{method}{BEST_SEED}",
                "label": f"{label}, best seed", "n_seeds": len(errors),
                "rel_l2_mean": errors.min(), "rel_l2_min": errors.min(),
                "rel_l2_max": errors.min(), "published": best.get(method),
                "published_verified": (
                    None if method not in best else method not in unverified.get(problem, [])
                ),
            })  # fmt: skip
        for name, baseline in published.get("baselines", {}).get(problem, {}).items():
            rows.append({
                "problem": problem, "method": f"published_{name}",
                "label": f"{name} (not run here: {baseline['source']})",
                "n_seeds": 0, "published": baseline["value"],
                "published_iterations": published.get("iterations", {}).get(problem),
                "published_verified": name not in unverified.get(problem, []),
            })  # fmt: skip
        label, held, reference = no_learning[problem]
        rows.append({
            "problem": problem, "method": NO_LEARNING, "label": label,
            "n_seeds": 0, "rel_l2_mean": held, "rel_l2_min": held, "rel_l2_max": held,
            "quantity_reference": reference, "adam_iterations": 0, "lbfgs_iterations": 0,
        })  # fmt: skip
    table = pd.DataFrame(rows, columns=ERRORS_COLUMNS)
    budgets = "; ".join(
        f"{key}: {spec['iterations']} Adam"
        + (f" + {spec['lbfgs_iterations']} L-BFGS" if spec["lbfgs_iterations"] else "")
        + " iterations"
        for key, spec in problems.items()
    )
    caption = (
        "Relative L2 error ||u - u_ref|| / ||u_ref|| (a fraction) of the final network over "
        "the reference grid: mean, std (ddof 1), min, max and each seed (rel_l2_seeds, seed "
        "order); residual_loss: the final training residual loss at the run's own collocation "
        "points, validation_residual: the mean squared residual at fresh points never trained "
        "on (what budgets are chosen on; far above residual_loss, the network fits its points "
        "and nothing between them), both means over seeds (residual_loss_max, "
        "validation_residual_min: the worst seed of each, which bound a claim's interval); "
        "s_per_iteration: the Adam phase, "
        "logging excluded, mean and std over seeds (lbfgs_s_per_iteration: the L-BFGS "
        "phase's, line searches included); peak_memory_mb: what training added to the "
        "process's peak resident set "
        "(CPU) or torch's peak allocation (GPU), mean over seeds; over_limit_seeds: seeds "
        "stopped after a few timed iterations because the whole run would exceed the "
        "preset's time limit (projected_s; infinite: out of GPU memory; their error is empty: "
        "the method does not fit the budget); run_s: the whole run's seconds, measured, or "
        "projected where it stopped (what a wall-time claim reads; train_s of a stopped run "
        "is its few timed steps); quantity: a trained scalar (an eigenvalue) at the end, "
        "mean and std over seeds and each seed, beside its reference (quantity_rel_error: "
        "of the mean; quantity_rel_error_max: of the worst seed). published_best: the paper's best "
        "seed, repeated in its own '<method>, best seed' row beside ours (the lowest seed's "
        "error: a choice on the test error, shown because the paper reports it); rows 'not "
        "run here' hold numbers the "
        "paper copied from other papers (their sources named), never ours. "
        f"Ours: preset {preset}, {budgets}. The no-learning row ("
        f"{'; '.join(f'{k}: {v[0]}' for k, v in no_learning.items())}) is what a reader "
        f"gets without training. Published: {published.get('source', 'none')}; metric "
        f"{published.get('metric', 'as the paper states it')}; published_iterations: "
        f"{published.get('iterations_source', 'the paper')}; empty cells: not retrieved."
    )
    return table, caption


#: Columns of results/<study>/tables/scaling.csv.
SCALING_COLUMNS = [
    "family", "method", "label", "parameter", "values", "s_per_iteration", "time_slope",
    "time_slope_largest", "time_slope_largest_low", "time_slope_largest_high", "n_seeds",
    "peak_memory_mb", "memory_slope", "rel_l2", "largest_trained", "first_over_limit",
]  # fmt: skip


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """The least-squares slope of log y against log x (NaN under two usable points)."""
    keep = (x > 0) & (y > 0) & np.isfinite(y)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def _seed_slopes(runs: pd.DataFrame, keys: Sequence[str], values: np.ndarray) -> np.ndarray:
    """Each seed's log-log slope of s_per_iteration between the two largest ``values``
    (problems ``keys``), seeds matched: the repeats a timing claim's interval comes from."""
    largest = runs[runs["problem"].isin(keys[-2:])]
    seconds = largest.pivot_table(index="seed", columns="problem", values="s_per_iteration")
    seconds = seconds.reindex(columns=list(keys[-2:])).dropna()
    return np.array(
        [_slope(values[-2:], row.to_numpy(dtype=float)) for _, row in seconds.iterrows()]
    )


def scaling_table(
    runs: pd.DataFrame,
    *,
    problems: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, str],
    parameter: str,
) -> tuple[pd.DataFrame, str]:
    """Cost against a problem parameter, per family of problems and method.

    Parameters
    ----------
    runs : DataFrame
        Every run's metrics row (:data:`PINN_RUN_COLUMNS`).
    problems : mapping
        ``{problem: {"family": str, "value": float}}``: the problems that differ only in
        ``parameter`` share a family; ``value`` is theirs.
    methods : mapping
        Labels by method key.
    parameter : str
        The parameter's name (``dimension``).
    """
    rows = []
    families = dict.fromkeys(spec["family"] for spec in problems.values())
    for family in families:
        members = sorted(
            (spec["value"], key) for key, spec in problems.items() if spec["family"] == family
        )
        for method, label in methods.items():
            per_value = []
            for value, key in members:
                group = runs[(runs["problem"] == key) & (runs["method"] == method)]
                stopped = _stopped(group).any()
                per_value.append((value, group["s_per_iteration"].mean(),
                                  group["peak_memory_mb"].mean(), group["rel_l2"].mean(),
                                  stopped))  # fmt: skip
            values = np.array([v[0] for v in per_value], dtype=float)
            seconds = np.array([v[1] for v in per_value], dtype=float)
            mine = runs[runs["method"] == method]
            seed_slopes = _seed_slopes(mine, [key for _, key in members], values)
            seed_slopes = seed_slopes[np.isfinite(seed_slopes)]
            memory = np.array([v[2] for v in per_value], dtype=float)
            trained = [v[0] for v in per_value if not v[4]]
            over = [v[0] for v in per_value if v[4]]
            rows.append({
                "family": family, "method": method, "label": label, "parameter": parameter,
                "values": ", ".join(f"{v:g}" for v in values),
                "s_per_iteration": ", ".join(f"{v:.3g}" for v in seconds),
                "time_slope": _slope(values, seconds),
                "time_slope_largest": _slope(values[-2:], seconds[-2:]),
                "time_slope_largest_low": seed_slopes.min() if len(seed_slopes) else np.nan,
                "time_slope_largest_high": seed_slopes.max() if len(seed_slopes) else np.nan,
                "n_seeds": len(seed_slopes),
                "peak_memory_mb": ", ".join(f"{v:.0f}" for v in memory),
                "memory_slope": _slope(values, memory),
                "rel_l2": ", ".join(f"{v[3]:.3g}" for v in per_value),
                "largest_trained": max(trained) if trained else np.nan,
                "first_over_limit": min(over) if over else np.nan,
            })  # fmt: skip
    caption = (
        f"Cost against the problem's {parameter}, per family of problems and method: "
        "s_per_iteration (the Adam phase, logging excluded; mean over seeds, in the order "
        "of values; for runs stopped at the time limit, their timed iterations') and its "
        f"least-squares slope in log-log (time_slope: 1 is linear in the {parameter}; "
        "time_slope_largest: between the two largest values, where fixed per-step costs "
        "weigh least, of the seeds' mean times; time_slope_largest_low/high: the smallest and "
        "largest of each seed's own slope there, n_seeds of them: the repeats that say how "
        "far machine noise moves it); "
        "peak_memory_mb (what training added to the peak resident set on the CPU, torch's "
        "peak allocation on a GPU) and its slope (memory_slope; a CPU's resident set moves "
        "in pages and arenas, so small values are coarse); rel_l2 on the fixed test points "
        "(mean over seeds; empty where the run did not fit its time limit); "
        "largest_trained: the largest value every seed trained in full; first_over_limit: "
        "the smallest value stopped at the preset's time limit (empty: none was)."
    )
    return pd.DataFrame(rows, columns=SCALING_COLUMNS), caption
