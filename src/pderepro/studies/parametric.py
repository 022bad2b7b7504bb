"""Study kind ``parametric``: one-step autoregressive surrogates across PDE parameters
(PDEBench 1-D problems; CAPE, Takamoto et al. 2023).

Every PDE of a study has one dataset per parameter value (the generic generate, merge
and preprocess rules make them). Two protocols read them: ``cape`` trains each model of
``models`` on the seen values' trajectories together and tests it on every value, seen
and unseen; ``pdebench`` trains ``pdebench_model`` on each of its values alone. A *run*
is one such training (``<model>``, ``<model>-teacher_forcing`` for the curriculum's
ablation, ``pdebench-<value>``); its evaluation rolls out every test trajectory it is
scored on. The functions below the kind are its rules' input functions and cost model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.resources import BASE_MB, BYTES_PER_MB, runtime_minutes
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
)
from pderepro.studies.resolution import dataset_benchmarks, dataset_jobs

#: Figures of a parametric study.
FIGURES = ("error_vs_parameter", "error_vs_step", "rollouts")
#: Suffix of the teacher-forcing ablation's runs.
TEACHER_FORCING = "-teacher_forcing"
#: One-step training: about 2e-7 s per trajectory frame, cell and epoch (FNO width 20, one
#: CPU core), so that a run's time limit scales with its data.
TRAIN_S_PER_VALUE_EPOCH = 2e-7


def value_tag(value: float) -> str:
    """A parameter value as a path component: ``0.001 -> 0p001``, ``4.0 -> 4``."""
    return f"{value:g}".replace(".", "p").replace("-", "m").replace("+", "")


def dataset_name(study: str, pde: str, value: float) -> str:
    return f"{study}_{pde}_{value_tag(value)}"


def protocol_resolution(study: Mapping[str, Any], pde: str, protocol: str) -> int:
    """Cells of the processed data of a protocol: the solver's cells over its stride."""
    base = study["pdes"][pde]["dataset"]["base_resolution"]
    return base // study["protocols"][protocol]["space_stride"]


def pde_values(cfg: Mapping[str, Any]) -> list[float]:
    """Every value of a PDE that has a dataset, in ascending order."""
    return sorted({*cfg["seen"], *cfg["unseen"], *cfg["pdebench"]})


def runs(study: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every training run by ``(pde, run)``: its protocol, model spec, training values,
    test values and whether it follows the curriculum."""
    out = {}
    curriculum = study["training"]["curriculum"]
    for pde, cfg in study["pdes"].items():
        tested = sorted({*cfg["seen"], *cfg["unseen"]})
        for model, spec in study["models"].items():
            base = {"protocol": "cape", "spec": spec, "train": sorted(cfg["seen"]), "test": tested}
            out[pde, model] = {**base, "curriculum": curriculum}
            if model in study["teacher_forcing"]:
                label = f"{spec.get('label', model)}, teacher forcing"
                out[pde, model + TEACHER_FORCING] = {
                    **base, "spec": {**spec, "label": label}, "curriculum": False,
                }  # fmt: skip
        for value in cfg["pdebench"]:
            out[pde, f"pdebench-{value_tag(value)}"] = {
                "protocol": "pdebench",
                "spec": study["pdebench_model"],
                "train": [value],
                "test": [value],
                "curriculum": curriculum,
            }
    return out


class ParametricKind(StudyKind):
    name = "parametric"
    schema_def = "parametric_study"
    preset_keys = {
        # per PDE: the dataset's sizes and which values the preset runs
        "pdes": {"dataset", "seen", "unseen", "pdebench"},
        "training": {"epochs", "pdebench_epochs", "seeds", "batch_size", "step_epochs"},
        "figures": None,
    }

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        for pde, cfg in study["pdes"].items():
            here = f"{where}.pdes.{pde}"
            both = sorted(set(cfg["seen"]) & set(cfg["unseen"]))
            if both:
                raise ConfigError(f"config key '{here}.unseen': {both} are also seen values")
            if not cfg["seen"]:
                raise ConfigError(f"config key '{here}.seen': at least one value to train on")
            dataset = cfg["dataset"]
            if cfg["parameter"] in dataset:
                raise ConfigError(
                    f"config key '{here}.dataset.{cfg['parameter']}': set per value by the "
                    "kind from seen/unseen/pdebench, not in the dataset"
                )
            for name, protocol in study["protocols"].items():
                if dataset["base_resolution"] % protocol["space_stride"]:
                    raise ConfigError(
                        f"config key '{where}.protocols.{name}.space_stride': does not divide "
                        f"{here}.dataset.base_resolution = {dataset['base_resolution']}"
                    )
                frames = dataset["n_frames"] - 1
                if frames % protocol["time_stride"]:
                    raise ConfigError(
                        f"config key '{where}.protocols.{name}.time_stride': does not divide "
                        f"the {frames} steps of {here}.dataset.n_frames"
                    )
                if frames // protocol["time_stride"] + 1 <= protocol["context"]:
                    raise ConfigError(
                        f"config key '{where}.protocols.{name}.context': leaves no frame to predict"
                    )
            if cfg["pdebench"] and "pdebench_model" not in study:
                raise ConfigError(f"config key '{where}.pdebench_model': needed by {here}.pdebench")
        for key in study["teacher_forcing"]:
            if key not in study["models"]:
                raise ConfigError(
                    f"config key '{where}.teacher_forcing': {key!r} is not a model "
                    f"({sorted(study['models'])})"
                )
        for key, spec in study["models"].items():
            if spec["architecture"].endswith("_cape") and not spec["conditioned"]:
                raise ConfigError(
                    f"config key '{where}.models.{key}.conditioned': CAPE models read the "
                    "parameter; set it true"
                )
        # published values may name values a preset does not run (they stay unshown)
        for pde in study["published"].get("values", {}):
            if pde not in study["pdes"]:
                raise ConfigError(f"config key '{where}.published.values.{pde}': no such PDE")

    def datasets(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        out = {}
        for pde, cfg in study["pdes"].items():
            for value in pde_values(cfg):
                dataset = dataset_name(name, pde, value)
                out[dataset] = {**cfg["dataset"], "name": dataset, cfg["parameter"]: value}
        return out

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, ["parameters", "pdebench"]) + figure_files(name, FIGURES)

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        training = study["training"]
        sizes = "; ".join(
            f"{pde}: N = {cfg['dataset']['n_train']} trajectories per value, "
            f"{cfg['dataset']['n_test']} test, {cfg['dataset']['base_resolution']} cells"
            for pde, cfg in study["pdes"].items()
        )
        parameters = (
            "nRMSE over the predicted frames only (never the conditioning ones) of each "
            "model trained across the seen values, at every seen and unseen value: mean and "
            f"std over {training['seeds']} seed(s), 95% bootstrap interval over test "
            f"trajectories; persistence of the last true frame is the no-learning "
            f"reference. Ours: preset {preset}, {sizes}, {training['epochs']} epochs."
        )
        published = study["published"]
        pdebench = (
            "nRMSE of one model per parameter value (the PDEBench protocol) beside the "
            f"published FNO values ({published.get('source', 'none')}; version "
            f"{published.get('version', '?')}; the paper trains 10,000 trajectories per "
            f"value for 500 epochs). Ours: preset {preset}, {sizes}."
        )
        return SummarySection(
            title=study["title"],
            tables=[f"results/{name}/tables/{t}.md" for t in ("parameters", "pdebench")],
            report_tables=[
                {"path": f"results/{name}/tables/parameters.csv", "caption": parameters},
                {"path": f"results/{name}/tables/pdebench.csv", "caption": pdebench},
            ],
            figures=[f"results/{name}/figures/{f}.png" for f in FIGURES],
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        files = [f for d in self.datasets(name, study).values() for f in dataset_benchmarks(d)]
        return files + [
            BENCHMARKS["train_parametric"].format(study=name, pde=pde, run=run, seed=seed)
            for pde, run in runs(study)
            for seed in range(study["training"]["seeds"])
        ]

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for dataset in self.datasets(name, study).values():
            counts += dataset_jobs(dataset)
        counts["preprocess"] = len(preprocess_targets(name, study))
        trained = len(runs(study)) * study["training"]["seeds"]
        return counts + Counter(
            train_parametric=trained,
            evaluate_parametric=trained,
            parametric_tables=1,
            plot_parametric=1,
        )


KIND = ParametricKind()


def preprocess_targets(name: str, study: Mapping[str, Any]) -> set[tuple[str, int]]:
    """``(dataset, cells)`` of every processed dataset the runs read."""
    out = set()
    for (pde, _), run in runs(study).items():
        res = protocol_resolution(study, pde, run["protocol"])
        for value in {*run["train"], *run["test"]}:
            out.add((dataset_name(name, pde, value), res))
    return out


# ---- input functions of the kind's rules (plan, wildcards by name) ----------------------


def _run(plan, study: str, pde: str, run: str) -> dict[str, Any]:
    return runs(plan.studies[study])[pde, run]


def _processed(plan, study: str, pde: str, run: str, values, split: str) -> list[str]:
    cfg = plan.studies[study]
    res = protocol_resolution(cfg, pde, _run(plan, study, pde, run)["protocol"])
    return [f"data/processed/{dataset_name(study, pde, v)}/res{res}/{split}.nc" for v in values]


def train_inputs(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, list[str]]:
    values = _run(plan, study, pde, run)["train"]
    return {
        split: _processed(plan, study, pde, run, values, split) for split in ("train", "validation")
    }


def train_params(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    spec = _run(plan, study, pde, run)
    pde_cfg = cfg["pdes"][pde]
    training = {**cfg["training"], **spec["spec"]["training"], "curriculum": spec["curriculum"]}
    if spec["protocol"] == "pdebench":
        training["epochs"] = training.pop("pdebench_epochs", training["epochs"])
    training.pop("pdebench_epochs", None)
    return {
        "spec": {k: v for k, v in spec["spec"].items() if k != "training"},
        "training": training,
        "protocol": {**cfg["protocols"][spec["protocol"]], "transform": pde_cfg["transform"]},
        "parameter": pde_cfg["parameter"],
    }


def evaluate_inputs(plan, study: str, pde: str, run: str, **_: Any) -> list[str]:
    values = _run(plan, study, pde, run)["test"]
    return _processed(plan, study, pde, run, values, "test")


def evaluate_params(plan, study: str, pde: str, run: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {"seen": cfg["pdes"][pde]["seen"], "n_keep": cfg["figures"]["samples"]}


def rollout_files(plan, study: str, **_: Any) -> list[str]:
    """Kept rollouts of the first seed of every model trained across values."""
    cfg = plan.studies[study]
    return [
        f"results/{study}/{pde}/predictions/{model}/seed0.nc"
        for pde in cfg["pdes"]
        for model in cfg["models"]
    ]


def metric_files(plan, study: str, **_: Any) -> list[str]:
    cfg = plan.studies[study]
    return [
        f"results/{study}/{pde}/metrics/{run}/seed{seed}.csv"
        for pde, run in runs(cfg)
        for seed in range(cfg["training"]["seeds"])
    ]


def per_step_files(plan, study: str, **_: Any) -> list[str]:
    return [f.replace("/metrics/", "/per_step/") for f in metric_files(plan, study)]


def tables_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    models = list(cfg["models"])
    order = [m for model in models for m in (model, model + TEACHER_FORCING)]
    return {
        "model_order": order,
        "published": cfg["published"].get("values", {}),
        "version": cfg["published"].get("version", ""),
    }


# ---- cost model -------------------------------------------------------------------------


def _run_values(plan, study: str, pde: str, run: str) -> float:
    """Stored values (frames x cells) of a run's training trajectories."""
    cfg = plan.studies[study]
    dataset = cfg["pdes"][pde]["dataset"]
    spec = _run(plan, study, pde, run)
    protocol = cfg["protocols"][spec["protocol"]]
    frames = (dataset["n_frames"] - 1) // protocol["time_stride"] + 1
    cells = dataset["base_resolution"] // protocol["space_stride"]
    return len(spec["train"]) * dataset["n_train"] * frames * cells


def train_mem_mb(plan, study: str, pde: str, run: str, **_: Any) -> int:
    # the trajectories, their normalised copy and a rollout's activations (about 100x a batch)
    return BASE_MB + int(4 * 4 * _run_values(plan, study, pde, run) / BYTES_PER_MB)


def train_runtime(plan, study: str, pde: str, run: str, **_: Any) -> int:
    epochs = train_params(plan, study, pde, run)["training"]["epochs"]
    return runtime_minutes(epochs * _run_values(plan, study, pde, run) * TRAIN_S_PER_VALUE_EPOCH)
