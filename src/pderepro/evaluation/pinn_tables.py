"""The errors table of a physics-informed study: relative L2 per problem and method.

One row per (problem, method): the mean, std, extremes and each seed's relative L2 error
of the final network on the reference grid, the iterations, time per iteration and run,
beside the paper's value and iterations; and per problem one no-learning reference row,
the initial condition held constant in time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

#: Columns of one run's metrics file (rule train_pinn).
PINN_RUN_COLUMNS = [
    "problem", "method", "seed", "rel_l2", "validation_residual", "loss", "residual_loss",
    "adam_iterations",
    "lbfgs_iterations", "s_per_iteration", "train_s", "n_points",
]  # fmt: skip
#: Columns of results/<study>/tables/errors.csv.
ERRORS_COLUMNS = [
    "problem", "method", "label", "n_seeds", "rel_l2_mean", "rel_l2_std", "rel_l2_min",
    "rel_l2_max", "rel_l2_seeds", "residual_loss", "validation_residual", "adam_iterations",
    "lbfgs_iterations", "s_per_iteration", "train_s", "published", "published_iterations",
    "published_verified",
]  # fmt: skip
#: The method key and label of the no-learning reference rows.
HELD_INITIAL = "initial_condition_held"
HELD_INITIAL_LABEL = "initial condition held (no learning)"


def held_initial_error(u_ref: np.ndarray) -> float:
    """Relative L2 of ``u(x, t) = u(x, 0)`` against the reference ``(nt, nx)``."""
    return float(np.linalg.norm(u_ref - u_ref[:1]) / np.linalg.norm(u_ref))


def errors_table(
    runs: pd.DataFrame,
    references: Mapping[str, np.ndarray],
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
    references : mapping
        ``{problem: u_ref (nt, nx)}``.
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
            rows.append({
                "problem": problem, "method": method, "label": label,
                "n_seeds": len(group), "rel_l2_mean": errors.mean(),
                "rel_l2_std": errors.std(ddof=1) if len(errors) > 1 else np.nan,
                "rel_l2_min": errors.min(), "rel_l2_max": errors.max(),
                "rel_l2_seeds": ", ".join(f"{e:.3g}" for e in errors),
                "residual_loss": group["residual_loss"].mean(),
                "validation_residual": group["validation_residual"].mean(),
                "adam_iterations": int(group["adam_iterations"].iloc[0]),
                "lbfgs_iterations": int(group["lbfgs_iterations"].iloc[0]),
                "s_per_iteration": group["s_per_iteration"].mean(),
                "train_s": group["train_s"].mean(),
                "published": value,
                "published_iterations": published.get("iterations", {}).get(problem),
                "published_verified": (
                    None if value is None else method not in unverified.get(problem, [])
                ),
            })  # fmt: skip
        held = held_initial_error(references[problem])
        rows.append({
            "problem": problem, "method": HELD_INITIAL, "label": HELD_INITIAL_LABEL,
            "n_seeds": 0, "rel_l2_mean": held, "rel_l2_min": held, "rel_l2_max": held,
            "adam_iterations": 0, "lbfgs_iterations": 0,
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
        "and nothing between them), both means over seeds; s_per_iteration: the Adam phase, "
        f"logging excluded. Ours: preset {preset}, "
        f"{budgets}. The {HELD_INITIAL_LABEL} row is the reference's initial condition held "
        f"constant in time. Published: {published.get('source', 'none')}; metric "
        f"{published.get('metric', 'as the paper states it')}; published_iterations: "
        f"{published.get('iterations_source', 'the paper')}; empty cells: not retrieved."
    )
    return table, caption
