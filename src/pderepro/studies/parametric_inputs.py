"""Input functions and cost model of the parametric kind's rules
(:mod:`pderepro.studies.parametric`): each takes the plan and a job's wildcards by name."""

from __future__ import annotations

import math
from typing import Any

from pderepro.resources import BASE_MB, BYTES_PER_MB, runtime_minutes
from pderepro.studies.parametric import (
    TEACHER_FORCING,
    dataset_name,
    parameters_of,
    protocol_resolution,
    runs,
    trained_models,
    value_tag,
    values_of,
)

#: One-step training: about 2e-7 s per trajectory frame, cell and epoch (FNO width 20, one
#: CPU core), so that a run's time limit scales with its data.
TRAIN_S_PER_VALUE_EPOCH = 2e-7


def _run(plan, study: str, pde: str, run: str) -> dict[str, Any]:
    return runs(plan.studies[study])[pde, run]


def _processed(plan, study: str, pde: str, run: str, values, split: str) -> list[str]:
    cfg = plan.studies[study]
    res = protocol_resolution(cfg, pde, _run(plan, study, pde, run)["protocol"])
    return [f"data/processed/{dataset_name(study, pde, v)}/res{res}/{split}.nc" for v in values]


def _config_value(value: float | tuple[float, ...]) -> float | list[float]:
    return list(value) if isinstance(value, tuple) else value


def train_inputs(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, list[str]]:
    spec = _run(plan, study, pde, run)
    return {
        "train": _processed(plan, study, pde, run, spec["train"], "train"),
        "validation": _processed(plan, study, pde, run, spec["validate"], "validation"),
    }


def train_params(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, Any]:
    """The run's model spec, optimiser settings, protocol, parameter names and the share
    of each training file's trajectories it uses (``fractions``, in ``train`` order)."""
    cfg = plan.studies[study]
    spec = _run(plan, study, pde, run)
    pde_cfg = cfg["pdes"][pde]
    training = {**cfg["training"], **spec["spec"]["training"], "curriculum": spec["curriculum"]}
    if spec["protocol"] == "pdebench" and "epochs" not in spec["spec"]["training"]:
        training["epochs"] = training.pop("pdebench_epochs", training["epochs"])
    training.pop("pdebench_epochs", None)
    if "optimizer_steps" in spec:
        training["optimizer_steps"] = spec["optimizer_steps"]
    return {
        # the model alone: its optimiser settings are in training, and which model the
        # tables compare it with is no concern of its training (nor a reason to rerun it)
        "spec": {k: v for k, v in spec["spec"].items() if k not in ("training", "baseline")},
        "training": training,
        "protocol": {**cfg["protocols"][spec["protocol"]], "transform": pde_cfg["transform"]},
        "parameter": parameters_of(pde_cfg),
        "fractions": spec["fractions"],
    }


def evaluate_inputs(plan, study: str, pde: str, run: str, **_: Any) -> list[str]:
    values = _run(plan, study, pde, run)["test"]
    return _processed(plan, study, pde, run, values, "test")


def evaluate_params(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, Any]:
    """The values the run counts as seen (a per-value run: its own value) and how many
    rollouts per value it keeps for the figures."""
    cfg = plan.studies[study]
    spec = _run(plan, study, pde, run)
    seen = spec["train"] if spec["protocol"] == "pdebench" else cfg["pdes"][pde]["seen"]
    return {"seen": seen, "n_keep": cfg["figures"]["samples"]}


def rollout_files(plan, study: str, **_: Any) -> list[str]:
    """Kept rollouts of the first seed of every model trained across values."""
    cfg = plan.studies[study]
    return [
        f"results/{study}/{pde}/predictions/{model}/seed0.nc"
        for pde in cfg["pdes"]
        for model in trained_models(cfg)
    ]


def _metric_files(plan, study: str, basic_forms: bool) -> list[str]:
    cfg = plan.studies[study]
    return [
        f"results/{study}/{pde}/metrics/{run}/seed{seed}.csv"
        for (pde, run), spec in runs(cfg).items()
        if ("training_label" in spec) == basic_forms
        for seed in range(cfg["training"]["seeds"])
    ]


def metric_files(plan, study: str, **_: Any) -> list[str]:
    """Metrics of the models' and the per-value runs (the parameters and pdebench tables)."""
    return _metric_files(plan, study, basic_forms=False)


def basic_forms_metric_files(plan, study: str, **_: Any) -> list[str]:
    return _metric_files(plan, study, basic_forms=True)


def per_step_files(plan, study: str, **_: Any) -> list[str]:
    return [f.replace("/metrics/", "/per_step/") for f in metric_files(plan, study)]


def _pdebench_run(pde_cfg: Any) -> str:
    """Name of the first per-value run of a PDE (they share their training settings)."""
    return f"pdebench-{value_tag(values_of(pde_cfg, 'pdebench')[0])}"


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    models = trained_models(cfg)
    order = [m for model in models for m in (model, model + TEACHER_FORCING)]
    return {
        "model_order": order,
        "published": cfg["published"].get("values", {}),
        "version": cfg["published"].get("version", ""),
        # a pair whose base model the preset does not train has no gain to show
        "cape_pairs": {k: m["baseline"] for k, m in models.items() if m.get("baseline") in models},
        "pdebench_sizes": {
            pde: {
                "n_train": pde_cfg["dataset"]["n_train"],
                "cells": protocol_resolution(cfg, pde, "pdebench"),
                "epochs": train_params(plan, study, pde, _pdebench_run(pde_cfg))["training"][
                    "epochs"
                ],
                "t_final": pde_cfg["dataset"]["t_final"],
            }
            for pde, pde_cfg in cfg["pdes"].items()
            if pde_cfg["pdebench"]
        },
        "published_sizes": cfg["published"].get("sizes", {}),
    }


def basic_forms_params(plan, study: str, **_: Any) -> dict[str, Any]:
    """The basic-forms runs by name: ``{run: {"training", "target_fraction"}}``."""
    return {
        "runs": {
            run: {"training": spec["training_label"], "target_fraction": spec["target_fraction"]}
            for (_, run), spec in runs(plan.studies[study]).items()
            if "training_label" in spec
        }
    }


# ---- cost model -------------------------------------------------------------------------


def _trajectory_values(plan, study: str, pde: str, run: str) -> tuple[float, float]:
    """Stored values (frames x cells) of one trajectory, and of the run's training set."""
    cfg = plan.studies[study]
    dataset = cfg["pdes"][pde]["dataset"]
    spec = _run(plan, study, pde, run)
    protocol = cfg["protocols"][spec["protocol"]]
    frames = (dataset["n_frames"] - 1) // protocol["time_stride"] + 1
    cells = dataset["base_resolution"] // protocol["space_stride"]
    trajectories = sum(math.ceil(f * dataset["n_train"]) for f in spec["fractions"])
    return frames * cells, trajectories * frames * cells


def train_mem_mb(plan, study: str, pde: str, run: str, **_: Any) -> int:
    # the trajectories, their normalised copy and a rollout's activations (about 100x a batch)
    _, stored = _trajectory_values(plan, study, pde, run)
    return BASE_MB + int(4 * 4 * stored / BYTES_PER_MB)


def train_runtime(plan, study: str, pde: str, run: str, **_: Any) -> int:
    training = train_params(plan, study, pde, run)["training"]
    one, stored = _trajectory_values(plan, study, pde, run)
    if "optimizer_steps" in training:
        work = training["optimizer_steps"] * training["batch_size"] * one
    else:
        work = training["epochs"] * stored
    return runtime_minutes(work * TRAIN_S_PER_VALUE_EPOCH)
