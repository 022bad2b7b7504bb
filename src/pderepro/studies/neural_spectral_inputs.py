"""Input functions, parameters and cost model of the neural-spectral kind's rules
(:mod:`pderepro.studies.neural_spectral`): each takes the plan and a job's wildcards by
name."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pderepro.studies.neural_spectral import (
    DATA,
    RUNS,
    active_problems,
    captions,
    decay_factor,
    method_label,
    problem_label,
    problem_methods,
    problem_network,
    supervised_methods,
)

#: Measured ms per training iteration of FNO2d (width 16, modes 8, 4 layers, batch 16, one
#: thread, CPU; 2026-12, the design notes) by grid points: 32^2, 64^2, 128^2, 256^2; NSM's
#: reaction-diffusion basis 32 x 64 took 52 ms.
MS_PER_ITERATION = ((32**2, 30.0), (64**2, 88.0), (128**2, 350.0), (256**2, 1925.0))
#: Grid points of the spectral method where its ``n`` is left out (the problem's default
#: basis: 32 Chebyshev x 64 Fourier modes for reaction-diffusion, about 32^2 for Poisson;
#: 32 x 64 x 64 for a space-time problem, one whose test grid has three sizes).
SPECTRAL_POINTS, SPECTRAL_POINTS_3D = 32 * 64, 32 * 64 * 64
#: A grid PINN step over the table's plain step at the same points: the residual's
#: derivatives and its backward pass (the quick run of 2026-12-06, batch 8, width 16:
#: pinn128 0.28-0.33 s against the table's 0.175 s, pinn64 56-66 ms against 44 ms).
GRID_LOSS_FACTOR = 1.7
#: CPU time over GPU time per iteration: an assumption (no GPU was lent to measure it),
#: with a floor for the kernels' launch overheads (s).
GPU_SPEEDUP, GPU_FLOOR_S = 100.0, 0.005


def _study(plan, study: str) -> Mapping[str, Any]:
    return plan.studies[study]


#: The input functions over all of a study's runs.
train_gpus = RUNS.train_gpus
metric_files = RUNS.metric_files
history_files = RUNS.history_files
data_files = RUNS.data_files


def problem_keys(plan) -> list[str]:
    """Every problem key of the enabled neural-spectral studies (a wildcard's values)."""
    return sorted({k for s in plan.of_kind("neural_spectral") for k in plan.studies[s]["problems"]})


def method_keys(plan) -> list[str]:
    return sorted({k for s in plan.of_kind("neural_spectral") for k in plan.studies[s]["methods"]})


def _problem_settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What the data and training jobs both take of a problem: its registered name,
    parameters and test grid."""
    return {
        "problem": spec["problem"],
        "parameters": dict(spec["parameters"]),
        "test_grid": dict(spec["test_grid"]),
    }


def data_params(plan, study: str, problem: str, **_: Any) -> dict[str, Any]:
    """What rule nsm_data needs: the problem, its grids, the supervised pairs to draw."""
    cfg = _study(plan, study)
    spec = cfg["problems"][problem]
    return {
        **_problem_settings(spec),
        "reference": dict(spec.get("reference", {})),
        "n_test": cfg["n_test"],
        "seed": cfg.get("data_seed", 0),
        "supervised": {
            k: {"n": m["n"], "n_train": m["n_train"]} for k, m in supervised_methods(cfg).items()
        },  # fmt: skip
    }


def train_inputs(plan, study: str, problem: str, **_: Any) -> dict[str, str]:
    return {"data": DATA.format(study=study, problem=problem)}


def train_params(plan, study: str, problem: str, method: str, **_: Any) -> dict[str, Any]:
    """What one training job needs: the problem, the method, the network and the budget
    (the rate's per-iteration factor from the problem's decay_iterations)."""
    cfg = _study(plan, study)
    spec = cfg["problems"][problem]
    return {
        **_problem_settings(spec),
        "method": dict(cfg["methods"][method]),
        "network": problem_network(cfg, problem),
        "batch_size": cfg["training"]["batch_size"],
        "learning_rate": cfg["training"]["learning_rate"],
        "iterations": spec["training"]["iterations"],
        "decay_factor": decay_factor(cfg, problem),
        "log_every": cfg["log_every"],
        "time_limit_s": cfg.get("time_limit_s"),
        "gpu": cfg["gpu"],
    }


def _method_points(method: Mapping[str, Any], spec: Mapping[str, Any] | None = None) -> int:
    """Grid points per input of a method's training step on the problem ``spec`` (three
    test-grid sizes: space-time, ``n^3``)."""
    if spec is not None and len(spec["test_grid"]) == 3:
        return method["n"] ** 3 if "n" in method else SPECTRAL_POINTS_3D
    return method["n"] ** 2 if "n" in method else SPECTRAL_POINTS


def seconds_per_iteration(points: int, batch: int, network: Mapping[str, Any], gpu: bool) -> float:
    """One training step (s): :data:`MS_PER_ITERATION` interpolated in log-log (linear
    past its ends), times batch / 16, layers / 4 and (width / 16)^2 (the pointwise and
    spectral weights' share; a ceiling); on a GPU divided by :data:`GPU_SPEEDUP`."""
    xs = [math.log(p) for p, _ in MS_PER_ITERATION]
    ys = [math.log(ms) for _, ms in MS_PER_ITERATION]
    x = math.log(points)
    i = min(max(sum(x > v for v in xs) - 1, 0), len(xs) - 2)
    y = ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])
    scale = batch / 16 * network["layers"] / 4 * (network["width"] / 16) ** 2
    seconds = math.exp(y) / 1e3 * scale
    return max(seconds / GPU_SPEEDUP, GPU_FLOOR_S) if gpu else seconds


def train_seconds(cfg: Mapping[str, Any], problem: str, method: str) -> float:
    """One run's estimated seconds: its iterations (a grid PINN step
    :data:`GRID_LOSS_FACTOR` times the table's), and a forward pass (a third of a step)
    over the test instances on the test grid every log_every iterations; capped by the
    time limit (a stopped run's probe and evaluation are short)."""
    spec, net = cfg["problems"][problem], problem_network(cfg, problem)
    gpu = bool(cfg["gpu"])
    batch = cfg["training"]["batch_size"]
    steps = spec["training"]["iterations"]
    points = _method_points(cfg["methods"][method], spec)
    factor = GRID_LOSS_FACTOR if cfg["methods"][method]["kind"] == "grid" else 1.0
    train = steps * seconds_per_iteration(points, batch, net, gpu) * factor
    test_points = math.prod(spec["test_grid"].values())
    evaluations = steps // cfg["log_every"] + 1
    test = evaluations * seconds_per_iteration(test_points, cfg["n_test"], net, gpu) / 3
    limit = cfg.get("time_limit_s")
    return min(train, limit) + test if limit else train + test


def train_runtime(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """Minutes: 10 to start, and three times :func:`train_seconds`."""
    return int(10 + 3 * train_seconds(_study(plan, study), problem, method) / 60)


def train_mem_mb(plan, study: str, problem: str, method: str, **_: Any) -> int:
    """MB of host memory: 2000 for the process, the test data (inputs, reference and a
    prediction, float64) and the supervised pairs; on the CPU also about 12 float32
    ``(batch, width, points)`` activations per layer kept for a step's backward pass, or
    about 8 ``(batch, width, test points)`` tensors of a forward pass on the test grid (the
    evaluation runs in batches), whichever is larger (on a GPU they live on the device)."""
    cfg = _study(plan, study)
    spec, net = cfg["problems"][problem], problem_network(cfg, problem)
    method_spec, batch = cfg["methods"][method], cfg["training"]["batch_size"]
    test_points = math.prod(spec["test_grid"].values())
    data = 3 * cfg["n_test"] * test_points * 8
    points = _method_points(method_spec, spec)
    pairs = 2 * method_spec.get("n_train", 0) * points * 8
    step = batch * points * 12 * net["width"] * net["layers"] * 4
    test = batch * test_points * 8 * net["width"] * 4
    activations = 0 if cfg["gpu"] else max(step, test)
    return int(2000 + (data + pairs + activations) / 1e6)


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "problems": {
            k: {
                "label": problem_label(k, v),
                "problem": v["problem"],
                "parameters": dict(v["parameters"]),
                "iterations": v["training"]["iterations"],
                "test_grid": dict(v["test_grid"]),
                "solver_ladder": [dict(r) for r in v.get("solver_ladder", [])],
                "methods": problem_methods(cfg, k),
            }
            for k, v in active_problems(cfg).items()
        },
        "methods": {
            k: {"label": method_label(k, v), "kind": v["kind"]} for k, v in cfg["methods"].items()
        },  # fmt: skip
        "published": cfg.get("published", {}),
        "captions": captions(cfg, plan.config["preset"]),
    }


def figure_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = _study(plan, study)
    return {
        "title": cfg["title"],
        "problems": {k: problem_label(k, v) for k, v in active_problems(cfg).items()},
        "methods": {k: method_label(k, v) for k, v in cfg["methods"].items()},
    }
