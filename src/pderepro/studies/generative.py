"""Study kind ``generative_surrogate``: a generative model of solver fields, judged by how
physical its samples are (the PDE residual on each) and how close their distribution is to
held-out solver samples, not by the error of one prediction (docs/references.md,
Physics-Based Flow Matching, Baldan et al. 2025).

A study is one system (its solver's law and grid: at present ``darcy``, permeability and
pressure generated jointly, the residual of ``-div(K grad p) = f``) and methods x seeds. A
*method* trains one network (:class:`pderepro.models.unet_time.TimeUNet`) by flow matching:
``fm`` (the plain objective), ``pbfm`` (the residual of the predicted final sample, the two
gradients combined conflict-free), ``weighted`` (the residual at a fixed weight). One data
job draws the train, validation and test splits from our solver; one job per ``(method,
seed)`` trains, samples and scores; one table and one figure per study. The no-learning
rows: a Gaussian fitted pixel by pixel to the training split, and the validation split
itself scored against the test split (the noise floor: what a perfect generator reaches).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
    tables_and_figures_section,
)
from pderepro.studies.neural_spectral_inputs import GPU_FLOOR_S, GPU_SPEEDUP

TABLES = ("samples",)
#: The figure (``generated_samples``: the resolution kind's rule plot_samples owns
#: ``samples`` figures).
FIGURES = ("generated_samples",)
#: The study's data: every split of solver samples.
DATA = "data/raw/{study}/samples.nc"
#: One training job's outputs.
RUN_FILES = {
    "metrics": "results/{study}/runs/{method}/seed{seed}/metrics.csv",
    "history": "results/{study}/runs/{method}/seed{seed}/history.csv",
    "samples": "results/{study}/runs/{method}/seed{seed}/samples.nc",
    "checkpoint": "results/{study}/runs/{method}/seed{seed}/checkpoint.pt",
}
#: The no-learning rows' metrics (rule generative_references).
REFERENCE_METRICS = "results/{study}/references/metrics.csv"
#: Seconds per training iteration on one core at the reference size (17 x 17 vertices,
#: width 16, batch 16), by method kind and unrolled steps beyond the first (measured
#: 2026-12-08 on two shared cores: fm 0.077 s; pbfm with two unrolled steps 0.21 s,
#: weighted 0.15 s); a larger run scales with batch x vertices x width^2.
S_PER_ITERATION = {"fm": 0.08, "weighted": 0.1, "pbfm": 0.15}
S_PER_UNROLLED_STEP = 0.05
REFERENCE_WORK = 16 * 17**2 * 16**2


def runs(study: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Every training job ``(method, seed)``, in table order."""
    return [(m, s) for m in study["methods"] for s in range(study["seeds"])]


def labels(study: Mapping[str, Any]) -> dict[str, str]:
    """Table and figure names of the methods and the no-learning rows."""
    names = {k: m.get("label", k) for k, m in study["methods"].items()}
    return {**names, "gaussian": "Gaussian fit, rank 32 (no learning)",
            "solver": "validation split (noise floor)"}  # fmt: skip


def captions(study: Mapping[str, Any], preset: str) -> dict[str, str]:
    """The samples table's caption."""
    data, training = study["data"], study["training"]
    setting = (
        f"Ours: preset {preset}, Darcy at {data['resolution']} x {data['resolution']} "
        f"vertices, {data['n_train']} training, {data['n_validation']} validation and "
        f"{data['n_test']} test samples of our solver; {training['iterations']} iterations "
        f"of batch {training['batch_size']}, sigma_min {study['sigma_min']:g}; "
        f"{study['sampling']['n_samples']} samples of {study['sampling']['steps']} Euler "
        f"steps per run; {study['seeds']} seed(s)."
    )
    return {
        "samples": (
            "Per method: the residual of -div(K grad p) = f on its samples (the mean "
            "absolute 5-point residual over interior vertices and samples, f = 1: "
            "dimensionless, our definition; our solver's own samples score 0 to "
            "round-off), the structure distance to the test split (the normalised energy "
            "distance of the fields' forward differences, which tells independent pixels "
            "from fields; 0 for one distribution), the mean Wasserstein-1 distance of "
            "per-sample statistics (each field's spatial mean, variance and power in up to "
            "four wavenumber shells, each over the test split's std of it), the energy "
            "distance of the fields "
            "themselves (normalised to [0, 1]; blind to spatial correlation), the "
            "Gaussian-kernel MMD, the sampling seconds per sample (the validation row: our "
            "solver's), the pixel-value Wasserstein-1 per field over the test split's std, "
            "and the relative errors of the mean and std fields: the mean over seeds, low "
            "and high their range. No-learning rows: a Gaussian fitted to the training split "
            "(its mean and a rank-32 covariance plus the leftover pixel variances), and the "
            "validation split itself (the noise floor of every distance). Metrics: ours "
            "(pderepro.evaluation.generative_metrics and generative_structure); the paper's "
            "own are not in our references. " + setting
        )
    }


class GenerativeKind(StudyKind):
    name = "generative_surrogate"
    schema_def = "generative_study"
    preset_keys = {
        "data": {"n_train", "n_validation", "n_test", "resolution"},
        "training": {"iterations", "batch_size"},
        "sampling": {"n_samples", "steps"},
        "network": {"width", "levels"},
        "seeds": None,
        "gpu": None,
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        return {"samples": {"method": set(labels(study))}}

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        for key, method in study["methods"].items():
            if key in ("gaussian", "solver"):
                raise ConfigError(
                    f"config key '{where}.methods.{key}': the name of a no-learning row"
                )
            weighted = method["kind"] == "weighted"
            if weighted != ("weight" in method):
                raise ConfigError(
                    f"config key '{where}.methods.{key}': a weight belongs to a weighted "
                    "method, and a weighted method needs one"
                )
        if study["training"]["batch_size"] > study["data"]["n_train"]:
            raise ConfigError(
                f"config key '{where}.training.batch_size': larger than data.n_train "
                f"({study['data']['n_train']})"
            )

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, TABLES) + figure_files(name, FIGURES)

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        return tables_and_figures_section(name, study["title"], captions(study, preset), TABLES,
                                          FIGURES)  # fmt: skip

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return [BENCHMARKS["train_generative"].format(study=name, method=m, seed=s)
                for m, s in runs(study)]  # fmt: skip

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return Counter(generative_data=1, train_generative=len(runs(study)),
                       generative_references=1, generative_tables=1,
                       plot_generative=len(FIGURES))  # fmt: skip


KIND = GenerativeKind()


# The rules' input functions and parameters: each takes the plan and a job's wildcards.


def method_keys(plan) -> list[str]:
    """Every method key of the enabled generative studies (a wildcard's values)."""
    return sorted({k for s in plan.of_kind(KIND.name) for k in plan.studies[s]["methods"]})


def data_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {"data": dict(cfg["data"]), "seed": cfg.get("data_seed", 0), "title": cfg["title"]}


def train_params(plan, study: str, method: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        "method": {k: v for k, v in cfg["methods"][method].items() if k != "label"},
        "network": dict(cfg["network"]),
        "training": dict(cfg["training"]),
        "sampling": dict(cfg["sampling"]),
        "sigma_min": cfg["sigma_min"],
        "forcing": cfg["data"].get("forcing", 1.0),
        "gpu": cfg["gpu"],
    }


def _train_seconds(cfg: Mapping[str, Any], method: str) -> float:
    """Seconds of one training job on one core: the iterations (:data:`S_PER_ITERATION`
    scaled by the work per iteration) and the sampling (one forward pass per step)."""
    training, sampling, data = cfg["training"], cfg["sampling"], cfg["data"]
    spec = cfg["methods"][method]
    work = data["resolution"] ** 2 * cfg["network"]["width"] ** 2
    scale = max(1.0, training["batch_size"] * work / REFERENCE_WORK)
    per_iteration = S_PER_ITERATION[spec["kind"]]
    if spec["kind"] != "fm":
        per_iteration += S_PER_UNROLLED_STEP * (spec.get("unroll", 1) - 1)
    sample_scale = max(1.0, sampling["n_samples"] * work / REFERENCE_WORK)
    return scale * training["iterations"] * per_iteration + (
        sample_scale * sampling["steps"] * S_PER_ITERATION["fm"] / 3
    )


def train_runtime(plan, study: str, method: str, **_: Any) -> int:
    """Minutes: three times the estimate, 5 to start; on a GPU the estimate divided by
    the neural spectral kind's assumed speed-up, with its launch floor per iteration."""
    cfg = plan.studies[study]
    seconds = _train_seconds(cfg, method)
    if cfg["gpu"]:
        seconds = max(seconds / GPU_SPEEDUP, GPU_FLOOR_S * cfg["training"]["iterations"])
    return int(5 + 3 * seconds / 60)


def train_gpus(plan, study: str, **_: Any) -> int:
    """GPUs of a training job: 1 where the study (its preset) asks for one."""
    return int(plan.studies[study]["gpu"])


def train_mem_mb(plan, study: str, **_: Any) -> int:
    """MB: 1500 for the process and torch, and the data and samples (float32, twice)."""
    data, sampling = plan.studies[study]["data"], plan.studies[study]["sampling"]
    n = data["n_train"] + data["n_validation"] + data["n_test"] + sampling["n_samples"]
    return int(1500 + 2 * 2 * 4 * n * data["resolution"] ** 2 / 1e6)


def metric_files(plan, study: str, **_: Any) -> list[str]:
    cfg = plan.studies[study]
    pattern = RUN_FILES["metrics"]
    return [pattern.format(study=study, method=m, seed=s) for m, s in runs(cfg)]


def sample_files(plan, study: str, **_: Any) -> list[str]:
    """Seed 0's samples of every method (the figure shows one seed)."""
    return [RUN_FILES["samples"].format(study=study, method=m, seed=0)
            for m in plan.studies[study]["methods"]]  # fmt: skip


def reference_params(plan, study: str, **_: Any) -> dict[str, Any]:
    """The no-learning rows' settings: how many Gaussian samples, the seed, the source."""
    cfg = plan.studies[study]
    return {"n_samples": cfg["sampling"]["n_samples"], "seed": cfg.get("data_seed", 0),
            "forcing": cfg["data"].get("forcing", 1.0)}  # fmt: skip


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {"labels": labels(cfg), "captions": captions(cfg, plan.config["preset"])}


def figure_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {"title": cfg["title"], "labels": labels(cfg)}
