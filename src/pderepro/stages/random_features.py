"""Stages of a random-feature study: one job per (dimension, seed) fitting every number
of features, the errors and slopes tables, the figure.

A job's randomness comes from its seed alone, in three streams: the sample points (one
pool of ``ceil(samples_per_feature * N_max)`` points, whose first ``ceil(samples_per_feature
* N)`` the fit at N uses), the test points, and the features (the first k features of the
seed's network are its network with k features), so the sweep over N within a seed adds
neurons and points to the same draw.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pderepro.data.io import atomic_write
from pderepro.evaluation.rate_fits import errors_table, slopes_table
from pderepro.evaluation.tables import write_table
from pderepro.models.random_features import (
    BoxScaling,
    RandomFeatureModel,
    best_constant,
    relative_l2,
)
from pderepro.plotting.random_features import plot_error_vs_features
from pderepro.solvers.reaction_diffusion.porous_medium import Barenblatt

log = logging.getLogger(__name__)

#: Stream of each draw of a job (``numpy.random.default_rng([seed, stream])``).
SAMPLE_STREAM, TEST_STREAM, FEATURE_STREAM = 1, 2, 3
#: Columns of a fit job's metrics file.
RUN_COLUMNS = ["dimension", "d", "model", "n_features", "n_samples", "seed", "rel_l2",
               "train_rel_l2", "fit_s", "rank", "singular_ratio"]  # fmt: skip


def _target(target: str, spec: Mapping[str, Any]) -> tuple[Barenblatt, BoxScaling]:
    """The exact solution and its space-time box ``[-R, R]^d x [t0, t1]``."""
    if target != "barenblatt":
        raise ValueError(f"no target {target!r}")
    d, radius = spec["d"], spec["radius"]
    box = BoxScaling((-radius,) * d + (spec["t"][0],), (radius,) * d + (spec["t"][1],))
    return Barenblatt(d, spec["m"], spec["C"]), box


def _values(solution: Barenblatt, points: np.ndarray) -> np.ndarray:
    """``(n, d + 1)`` points ``(x, t)`` -> ``(n,)`` values of the solution."""
    return solution(points[:, :-1], points[:, -1])


def run_fit_random_features(
    *, output: str, dimension_key: str, seed: int, settings: Mapping[str, Any]
) -> None:
    """Fit every N of the study for one dimension and seed; write the metrics rows.

    Parameters
    ----------
    output : str
        The metrics CSV (:data:`RUN_COLUMNS`): a row per N, then the no-learning row
        (``model = no_learning``, N = 0: the best constant of the largest sample).
    dimension_key : str
        The dimension's key in the study.
    seed : int
        The job's seed.
    settings : mapping
        :func:`pderepro.studies.random_features.fit_params`'s: target, dimension,
        features, n_features, samples_per_feature, n_test.
    """
    spec, features = settings["dimension"], settings["features"]
    solution, box = _target(settings["target"], spec)
    sizes = list(settings["n_features"])
    counts = [math.ceil(settings["samples_per_feature"] * n) for n in sizes]
    points = box.sample(max(counts), np.random.default_rng([seed, SAMPLE_STREAM]))  # (M, D)
    values = _values(solution, points)  # (M,)
    test = box.sample(settings["n_test"], np.random.default_rng([seed, TEST_STREAM]))
    test_values = _values(solution, test)  # (n_test,)
    z, z_test = box(points), box(test)
    inside = float(np.mean(test_values > 0))
    log.info("%s seed %d: d = %d, %d sample points (%.1f%% of test points in the support)",
             dimension_key, seed, spec["d"], max(counts), 100 * inside)  # fmt: skip
    rows = []
    for n, m in zip(sizes, counts, strict=True):
        model = RandomFeatureModel(
            n, spec["d"] + 1, seed=[seed, FEATURE_STREAM],
            weight_scale=features["weight_scale"], bias_scale=features["bias_scale"],
        )  # fmt: skip
        info = model.fit(z[:m], values[:m], cond=features.get("cond"))
        error = relative_l2(model.predict(z_test), test_values)
        train = relative_l2(model.predict(z[:m]), values[:m])
        if not math.isfinite(error):
            raise FloatingPointError(f"{dimension_key} seed {seed} N = {n}: error {error}")
        rows.append({
            "dimension": dimension_key, "d": spec["d"], "model": "random_features",
            "n_features": n, "n_samples": m, "seed": seed, "rel_l2": error,
            "train_rel_l2": train, "fit_s": info.fit_s, "rank": info.rank,
            "singular_ratio": info.singular_ratio,
        })  # fmt: skip
        log.info("N = %5d, M = %6d: test %.4g, train %.4g, rank %d, %.2f s",
                 n, m, error, train, info.rank, info.fit_s)  # fmt: skip
    constant = best_constant(values)
    rows.append({
        "dimension": dimension_key, "d": spec["d"], "model": "no_learning", "n_features": 0,
        "n_samples": len(values), "seed": seed,
        "rel_l2": relative_l2(np.full_like(test_values, constant), test_values),
        "train_rel_l2": relative_l2(np.full_like(values, constant), values),
        "fit_s": 0.0, "rank": 1, "singular_ratio": 1.0,
    })  # fmt: skip
    table = pd.DataFrame(rows, columns=RUN_COLUMNS)
    atomic_write(output, lambda tmp: table.to_csv(tmp, index=False, float_format="%.8g"))


def _runs(metrics: Sequence[str]) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)


def run_random_features_tables(
    *, metrics: Sequence[str], outputs: Mapping[str, str], dimensions: Mapping[str, str],
    slope: Mapping[str, Any], reference: float, captions: Mapping[str, str] | None = None,
) -> None:  # fmt: skip
    """The errors and slopes tables (CSV and Markdown) from every job's metrics.

    ``dimensions`` maps each key to its label (table order); ``slope`` is the study's
    ``slope`` block (``sizes``, ``confidence``, ``resamples``, ``seed``);
    ``reference`` the paper's slope.
    """
    runs = _runs(metrics)
    order = list(dimensions)
    errors = errors_table(runs, order)
    errors.insert(1, "label", errors["dimension"].map(dimensions))
    slopes = slopes_table(
        runs[runs["model"] == "random_features"], order, sizes=slope["sizes"],
        reference=reference, resamples=slope["resamples"], confidence=slope["confidence"],
        seed=slope["seed"],
    )  # fmt: skip
    slopes.insert(1, "label", slopes["dimension"].map(dimensions))
    captions = captions or {}
    write_table(
        errors,
        outputs["errors_csv"],
        outputs["errors_md"],
        caption=captions.get("errors", "Relative L2 test error per dimension and N."),
    )
    write_table(
        slopes,
        outputs["slopes_csv"],
        outputs["slopes_md"],
        caption=captions.get("slopes", "Fitted slope of log(error) against log(N)."),
    )
    for _, row in slopes.iterrows():
        log.info("%s: slope %.3f [%.3f, %.3f] over N = %d..%d", row["dimension"], row["slope"],
                 row["slope_low"], row["slope_high"], row["n_min"], row["n_max"])  # fmt: skip


def run_plot_random_features(
    *, metrics: Sequence[str], slopes: str, outputs: Mapping[str, str], title: str,
    dimensions: Mapping[str, str], reference: float,
) -> None:  # fmt: skip
    """The error against N, one line per dimension with its fitted slope, beside the
    paper's slope."""
    plot_error_vs_features(
        _runs(metrics), pd.read_csv(slopes), dimensions=dimensions, reference=reference,
        title=title, paths=[outputs["png"], outputs["pdf"]],
    )  # fmt: skip
