"""Input functions of the cost rules (``workflow/rules/cost.smk``) for every kind whose
units train surrogates (resolution and regimes studies): which benchmark, metrics and
solver-timing files a study's cost table reads, and the caption it carries."""

from __future__ import annotations

from typing import Any

from pderepro.studies.base import BENCHMARKS, COST_CAPTION
from pderepro.studies.resolution import SPLITS, dataset_benchmarks, dataset_science
from pderepro.studies.training_segments import n_segments


def cost_units(plan, study: str) -> dict[str, dict[str, Any]]:
    """Per unit of a study, the files of its cost table (see
    :func:`pderepro.stages.cost.run_cost_table`)."""
    units = plan.kind(study).units(study, plan.studies[study])
    out = {}
    for name, unit in units.items():
        dataset = unit["dataset"]
        runs = [
            {
                "benchmark": BENCHMARKS["train_model"].format(
                    study=name, model=model, res=res, seed=seed
                ),
                "metrics": f"results/{name}/metrics/{model}/res{res}/seed{seed}.csv",
                **_segment_benchmarks(plan, name, model, res, seed),
            }
            for model in unit["models"]
            for res in unit["resolutions"]
            for seed in range(unit["training"]["seeds"])
        ]
        out[name] = {
            "generate": dataset_benchmarks(dataset),
            "n_generated": sum(dataset[f"n_{split}"] for split in SPLITS),
            "n_build": dataset["n_train"] + dataset["n_validation"],
            "runs": runs,
            "solver": [f"results/{name}/cost/solver_res{res}.csv" for res in unit["resolutions"]],
        }
    return out


def _segment_benchmarks(plan, unit: str, model: str, res: int, seed: int) -> dict[str, Any]:
    """``{"segments": [benchmark files]}`` of a segmented training's train_segment jobs
    (nothing for one that fits one job, so its params are as before)."""
    n = n_segments(plan, unit, model, str(res))
    if n == 1:
        return {}
    files = [
        BENCHMARKS["train_segment"].format(study=unit, model=model, res=res, seed=seed, segment=k)
        for k in range(n - 1)
    ]
    return {"segments": files}


def cost_table_inputs(plan, study: str, **_: Any) -> list[str]:
    files = []
    for unit in cost_units(plan, study).values():
        files += unit["generate"] + unit["solver"]
        for run in unit["runs"]:
            files += [run["benchmark"], run["metrics"], *run.get("segments", [])]
    return files


def cost_table_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        "units": cost_units(plan, study),
        "model_order": list(cfg["models"]),
        "caption": COST_CAPTION,
    }


def solver_timing_dataset(plan, study: str, **_: Any) -> dict[str, Any]:
    """The science of a unit's dataset, for timing its solver."""
    return dataset_science(plan, plan.units[study]["dataset"]["name"])
