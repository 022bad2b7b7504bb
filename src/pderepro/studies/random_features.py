"""Study kind ``random_features``: random-feature networks fitted to exact solutions by
least squares, the error against the number of features per dimension (docs/references.md).

A study is dimensions x seeds. A *dimension* names a target (an exact solution in ``d`` space
dimensions and time, :mod:`pderepro.solvers.reaction_diffusion.porous_medium`) with its parameters
and space-time box. Each ``(dimension, seed)`` is one job fitting every number of features N of the
study (:mod:`pderepro.models.random_features`); two tables (the errors per N, the fitted slopes with
bootstrap intervals, :mod:`pderepro.evaluation.rate_fits`) and one figure per study.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.solvers.reaction_diffusion.porous_medium import Barenblatt
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
    tables_and_figures_section,
)

TABLES = ("errors", "slopes")
#: The study's figures (rule plot_random_features makes each).
FIGURES = ("error_vs_features",)
#: One fit job's output: a metrics row per N (and the no-learning row).
METRICS = "results/{study}/{dimension}/seed{seed}/metrics.csv"
#: Seconds per ``M N^2`` of the least-squares solve (gelsd), with room: 0.1-0.2 ns measured
#: on one core at N = 256-2048, M = 4N-8N (2026-12-06).
GELSD_S_PER_MN2 = 3e-10


def runs(study: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Every fit job ``(dimension, seed)``, in table order."""
    return [(key, seed) for key in study["dimensions"] for seed in range(study["seeds"])]


def n_samples(study: Mapping[str, Any], n_features: int) -> int:
    """M, the sample points of the fit with ``n_features`` features."""
    return math.ceil(study["samples_per_feature"] * n_features)


def label(spec: Mapping[str, Any]) -> str:
    """A dimension's name in tables and figures."""
    return spec.get("label", f"d = {spec['d']}")


def captions(study: Mapping[str, Any], preset: str) -> dict[str, str]:
    """The captions of the errors and slopes tables (Markdown tables, results page)."""
    sizes, slope, features = study["n_features"], study["slope"], study["features"]
    published = study["published"]
    setting = (
        f"Ours: preset {preset}, N = {sizes[0]}..{sizes[-1]} ({len(sizes)} sizes), "
        f"M = ceil({study['samples_per_feature']:g} N) sample points per fit, "
        f"{study['n_test']} test points and {study['seeds']} seed(s) per dimension; "
        f"features tanh(a . z + b), a ~ N(0, {features['weight_scale']:g}^2 I), "
        f"b ~ U(-{features['bias_scale']:g}, {features['bias_scale']:g}), on the box "
        "scaled to [-1, 1]^(d+1)."
    )
    errors = (
        "Relative L2 error ||f - u|| / ||u|| (a fraction) of the least-squares random-feature "
        "fit to the Barenblatt solution, on test points uniform in the space-time box, per "
        "dimension and number of features N: mean, std, range and geometric mean (what the "
        "slope fits) over seeds; the fit's error on its own points, wall time, smallest rank "
        "and largest condition number of the feature matrix. The no-learning row per "
        "dimension (N = 0) predicts the best constant (the mean of the largest sample); "
        "predicting zero scores 1. " + setting
    )
    slopes = (
        "Slope of log(error) against log(N) per dimension: the least-squares slope of the "
        f"seeds' mean log-error over the {slope['sizes']} largest N (n_min..n_max) below the "
        "first N at which a seed's feature matrix lost numerical rank (rank_limit; empty: "
        "none did; past it the error stalls at a float64 floor), its "
        f"{100 * slope['confidence']:g}% percentile bootstrap interval over seeds "
        f"({slope['resamples']} resamples), whether the paper's slope {published['slope']:g} "
        "lies inside (gap_to_reference: its distance to the interval), the rate (minus the "
        "slope) and the slope over every N (slope_all, pre-asymptotic sizes included). The "
        "Barenblatt profile with m = 2 has a kink at its front (Lipschitz, not smoother): a "
        "rate below the claim is a result, not an error. Published: "
        f"{published.get('source', 'not given')}. " + setting
    )
    return {"errors": errors, "slopes": slopes}


class RandomFeaturesKind(StudyKind):
    name = "random_features"
    schema_def = "random_features_study"
    preset_keys = {
        "n_features": None,
        "n_test": None,
        "seeds": None,
        "slope": {"sizes", "resamples"},
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        dimensions = set(study["dimensions"])
        return {"errors": {"dimension": dimensions}, "slopes": {"dimension": dimensions}}

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        sizes = study["n_features"]
        if sizes != sorted(sizes):
            raise ConfigError(f"config key '{where}.n_features': {sizes} is not ascending")
        if study["slope"]["sizes"] > len(sizes):
            raise ConfigError(
                f"config key '{where}.slope.sizes': {study['slope']['sizes']} sizes in the "
                f"fit, more than n_features has ({sizes})"
            )
        for key, spec in study["dimensions"].items():
            here = f"{where}.dimensions.{key}"
            t0, t1 = spec["t"]
            if not t1 > t0:
                raise ConfigError(f"config key '{here}.t': need t0 < t1, got {spec['t']}")
            front = float(Barenblatt(spec["d"], spec["m"], spec["C"]).front(t1))
            if front > spec["radius"]:
                raise ConfigError(
                    f"config key '{here}.C': the support's radius at t1 = {t1:g} is "
                    f"{front:.4g}, outside the box of radius {spec['radius']:g} (the front is "
                    "sqrt(C / k) t^beta: lower C or widen the box)"
                )

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, TABLES) + figure_files(name, FIGURES)

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        return tables_and_figures_section(name, study["title"], captions(study, preset), TABLES,
                                          FIGURES, page_order=("slopes", "errors"))  # fmt: skip

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return [
            BENCHMARKS["fit_random_features"].format(study=name, dimension=k, seed=s)
            for k, s in runs(study)
        ]

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return Counter(
            fit_random_features=len(runs(study)),
            random_features_tables=1,
            plot_random_features=len(FIGURES),
        )


KIND = RandomFeaturesKind()


# The rules' input functions and parameters: each takes the plan and a job's wildcards.


def _study(plan, study: str) -> Mapping[str, Any]:
    return plan.studies[study]


def dimension_keys(plan) -> list[str]:
    """Every dimension key of the enabled random-feature studies (a wildcard's values)."""
    return sorted({k for s in plan.of_kind(KIND.name) for k in plan.studies[s]["dimensions"]})


def fit_params(plan, study: str, dimension: str, **_: Any) -> dict[str, Any]:
    """What one fit job needs: the target and its box, the features, the sizes."""
    cfg = _study(plan, study)
    return {
        "target": cfg["target"],
        "dimension": dict(cfg["dimensions"][dimension]),
        "features": dict(cfg["features"]),
        "n_features": list(cfg["n_features"]),
        "samples_per_feature": cfg["samples_per_feature"],
        "n_test": cfg["n_test"],
    }


def _fit_seconds(cfg: Mapping[str, Any]) -> float:
    """Seconds of one fit job: every N's solve (:data:`GELSD_S_PER_MN2`), its features and
    the test predictions."""
    d = max(spec["d"] for spec in cfg["dimensions"].values())
    return sum(
        GELSD_S_PER_MN2 * n_samples(cfg, n) * n**2 + 1e-8 * (n_samples(cfg, n) + cfg["n_test"])
        * n * (d + 2)
        for n in cfg["n_features"]
    )  # fmt: skip


def fit_runtime(plan, study: str, **_: Any) -> int:
    """Minutes: three times the estimate (:func:`_fit_seconds`), and 5 to start."""
    return int(5 + 3 * _fit_seconds(_study(plan, study)) / 60)


def fit_mem_mb(plan, study: str, **_: Any) -> int:
    """MB: 1000 for the process, and three ``(M, N)`` float64 matrices at the largest N
    (the features, gelsd's copy and workspace)."""
    cfg = _study(plan, study)
    n = cfg["n_features"][-1]
    return int(1000 + 3 * 8 * n_samples(cfg, n) * n / 1e6)


def metric_files(plan, study: str, **_: Any) -> list[str]:
    return [METRICS.format(study=study, dimension=k, seed=s) for k, s in runs(_study(plan, study))]


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "dimensions": {k: label(v) for k, v in cfg["dimensions"].items()},
        "slope": dict(cfg["slope"]),
        "reference": cfg["published"]["slope"],
        "captions": captions(cfg, plan.config["preset"]),
    }


def figure_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "title": cfg["title"],
        "dimensions": {k: label(v) for k, v in cfg["dimensions"].items()},
        "reference": cfg["published"]["slope"],
    }
