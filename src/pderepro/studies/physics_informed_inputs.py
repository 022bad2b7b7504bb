"""Input functions, parameters and cost model of the physics-informed kind's rules
(:mod:`pderepro.studies.physics_informed`): each takes the plan and a job's wildcards by
name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pderepro.studies.physics_informed import (
    REFERENCE,
    RUNS,
    active_problems,
    run_file,
    run_settings,
    runs,
)


def _study(plan, study: str) -> Mapping[str, Any]:
    return plan.studies[study]


#: The input functions over all of a study's runs.
train_gpus = RUNS.train_gpus
metric_files = RUNS.metric_files
history_files = RUNS.history_files
reference_files = RUNS.data_files


def reference_params(plan, study: str, problem: str, **_: Any) -> dict[str, Any]:
    spec = _study(plan, study)["problems"][problem]
    return {"problem": spec["problem"], "parameters": spec["parameters"],
            "grid": spec.get("reference_grid") or spec["reference_points"]}  # fmt: skip


def train_inputs(plan, study: str, problem: str, **_: Any) -> dict[str, str]:
    return {"reference": REFERENCE.format(study=study, problem=problem)}


def train_params(plan, study: str, problem: str, method: str, **_: Any) -> dict[str, Any]:
    return run_settings(_study(plan, study), problem, method)


def _pig_factor(network: Mapping[str, Any]) -> float:
    """How much dearer than the MLP a point-iteration is: PIG's Gaussians, channels times
    Gaussians over 30 (measured 2026-12-06: 200 x 4 Gaussians on Helmholtz cost about 28
    times the 4 x 50 MLP per L-BFGS iteration on one core)."""
    if network.get("architecture") != "pig":
        return 1.0
    return max(1.0, network["gaussians"] * network["features"] / 30)


#: Sustained flop rates of the Laplacian's Hessian-vector products (flop/s): one core
#: (measured 2026-12-06: d = 1000, all 1000 directions at 100 points, 4 x 128 tanh, 4-7 s
#: an iteration), and an H100-class GPU (an assumption: no GPU was lent to measure it).
HVP_FLOPS = {"cpu": 2.0e10, "gpu": 2.0e12}


def _laplacian_terms(spec: Mapping[str, Any]) -> tuple[int, int] | None:
    """``(d, terms per point)`` of a problem whose residual sums a Laplacian's second
    derivatives one by one (a ``dimension`` parameter), else None."""
    if "dimension" not in spec["parameters"]:
        return None
    d = int(spec["parameters"]["dimension"])
    sampled = int(spec["parameters"].get("sampled_dims", 0))
    return d, (sampled if 0 < sampled < d else d)


#: Seconds per coordinate of drawing collocation points on one CPU core (2026-12-06: 0.09 s
#: for 100 points at d = 10^5).
DRAW_SECONDS = 1e-8


def _hvp_seconds(spec: Mapping[str, Any], device: str, points: int, terms: int) -> float:
    """Seconds of ``points x terms`` Hessian-vector products of ~``6 (d w + L w^2)`` flop."""
    d = _laplacian_terms(spec)[0]
    width, depth = spec["network"]["width"], spec["network"]["depth"]
    return 6 * (d * width + depth * width**2) * points * terms / HVP_FLOPS[device]


def _laplacian_run_seconds(spec: Mapping[str, Any], device: str, log_every: int) -> float:
    """A Laplacian-summing run: its steps' products and point draws, and at every log the
    exact validation residual (the whole Laplacian at the problem's validation points:
    64 up to d = 1000, ``64,000 / d`` above, at least 8)."""
    d, terms = _laplacian_terms(spec)
    steps, points = spec["training"]["iterations"], spec["losses"]["n_collocation"]
    step = _hvp_seconds(spec, device, points, terms) + DRAW_SECONDS * points * d
    logs = steps // log_every + 1
    validation = _hvp_seconds(spec, device, max(8, min(64, 64_000 // d)), d)
    return steps * step + logs * validation


def train_runtime(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """Minutes: about 10 ms per iteration per 1000 points on one core for the MLP (times
    :func:`_pig_factor`), an L-BFGS iteration three Adam ones; Laplacian-summing problems
    by their Hessian-vector products, point draws and validation logs
    (:func:`_laplacian_run_seconds`); capped by the study's time limit; with room."""
    cfg = _study(plan, study)
    settings = run_settings(cfg, problem, method)
    spec = settings["problem"]
    training, points = spec["training"], spec["losses"]["n_collocation"]
    steps = training["iterations"] + 3 * training["lbfgs_iterations"]
    if _laplacian_terms(spec):
        device = "gpu" if settings["gpu"] else "cpu"
        seconds = _laplacian_run_seconds(spec, device, settings["log_every"])
    else:
        seconds = 0.01 * max(points / 1000, 1) * steps * _pig_factor(spec["network"])
    if settings["time_limit_s"]:  # a run stops at its limit: half again for its logs
        return int(10 + 1.5 * min(3 * seconds, settings["time_limit_s"]) / 60)
    return int(10 + 3 * seconds / 60)


def train_mem_mb(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """MB: 2000 for an MLP; PIG keeps about ten (points, channels, Gaussians, coordinates)
    float64 tensors alive through its second derivatives, for the collocation and the
    face points together; a Laplacian-summing problem about 30 (points, terms, width)
    float32 tensors through the backward pass, and the test points' coordinates (drawing
    them peaks at about three times their float64 size)."""
    spec = run_settings(_study(plan, study), problem, method)["problem"]
    network, losses = spec["network"], spec["losses"]
    laplacian = _laplacian_terms(spec)
    if laplacian:
        d, terms = laplacian
        saved = 30 * losses["n_collocation"] * terms * network["width"] * 4
        return int(2000 + (saved + 3 * spec["reference_points"]["points"] * d * 8) / 1e6)
    if network.get("architecture") != "pig":
        return 2000
    points = losses["n_collocation"] + losses["n_boundary"] + losses["n_initial"]
    dims = len(spec["reference_grid"])
    return int(2000 + 10 * points * network["features"] * network["gaussians"] * dims * 8 / 1e6)


def field_files(plan, study: str, **_: Any) -> list[str]:
    """Seed 0's fields of every run (the figures show one seed)."""
    return [run_file("fields", study, p, m, 0) for p, m, s in runs(_study(plan, study)) if s == 0]


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "problems": {
            k: {
                "label": v.get("label", k),
                "problem": v["problem"],
                "parameters": v["parameters"],
                "iterations": v["training"]["iterations"],
                "lbfgs_iterations": v["training"]["lbfgs_iterations"],
            }
            for k, v in active_problems(cfg).items()
        },  # fmt: skip
        "methods": {k: v.get("label", k) for k, v in cfg["methods"].items()},
        "published": cfg["published"],
        "preset": plan.config["preset"],
    }


def scaling_problems(cfg: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{problem: {"family", "value"}}`` of a scaling study (its parameter's values)."""
    parameter = cfg["scaling"]["parameter"]
    return {k: {"family": v["family"], "value": v["parameters"][parameter]}
            for k, v in active_problems(cfg).items()}  # fmt: skip


def scaling_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "problems": scaling_problems(cfg),
        "methods": {k: v.get("label", k) for k, v in cfg["methods"].items()},
        "parameter": cfg["scaling"]["parameter"],
    }


def figure_params(plan, study: str, figure: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "name": figure,
        "title": cfg["title"],
        "problems": {k: v.get("label", k) for k, v in active_problems(cfg).items()},
        "methods": {k: v.get("label", k) for k, v in cfg["methods"].items()},
        "figures": cfg["figures"],
        "scaling": ({**cfg["scaling"], "problems": scaling_problems(cfg)}
                    if "scaling" in cfg else None),
    }  # fmt: skip
