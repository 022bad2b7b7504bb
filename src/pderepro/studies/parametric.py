"""Study kind ``parametric``: one-step autoregressive surrogates across PDE parameters
(PDEBench 1-D problems; CAPE, Takamoto et al. 2023).

Every PDE of a study has one dataset per parameter value (the generic generate, merge
and preprocess rules make them); a value is a number, or a tuple when the PDE has several
parameters (``parameter: [nu, rho]``). Three experiments read them, each optional:

* ``models`` (protocol ``cape``): each model is trained on the seen values' trajectories
  together and tested on every value, seen and unseen (runs ``<model>`` and
  ``<model>-teacher_forcing``, the curriculum's ablation);
* ``pdebench_model`` (protocol ``pdebench``): one model per value of ``pdebench``
  (runs ``pdebench-<value>``);
* ``basic_forms`` (docs/references.md): one model trained on a fraction of the seen values'
  trajectories (the target data) alone, or together with every trajectory of the PDE's
  ``basic`` values (its basic forms), with the same number of optimiser steps (runs
  ``target-f<fraction>`` and ``target_basic-f<fraction>``); seen values are the
  in-distribution tests, unseen ones the out-of-distribution tests.

A *run* is one such training; its evaluation rolls out every test trajectory it is scored
on. The rules' input functions and cost model are in :mod:`.parametric_inputs`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.evaluation.trajectory_metrics import NRMSE_SOURCE, PDEBENCH_METRICS_NOTE
from pderepro.studies.base import (
    BENCHMARKS,
    StudyKind,
    SummarySection,
    figure_files,
    table_files,
)
from pderepro.studies.claims_tables import labels
from pderepro.studies.resolution import dataset_benchmarks, dataset_jobs

#: Figures of the models' experiment (and of the basic-forms experiment).
FIGURES = ("error_vs_parameter", "error_vs_step", "rollouts")
#: Tables of the models across parameters (rule parametric_tables).
TABLES = ("parameters", "cape_gains", "pdebench")
BASIC_FORMS_FIGURES = ("basic_forms",)
#: Suffix of the teacher-forcing ablation's runs.
TEACHER_FORCING = "-teacher_forcing"
#: The two trainings of the basic-forms experiment, by run-name prefix.
BASIC_FORMS_TRAININGS = {"target": "target", "target_basic": "target+basic"}

#: A parameter value: a number, or one number per parameter.
Value = float | tuple[float, ...]


def as_value(value: Any) -> Value:
    """A config value as a float, or a tuple of floats for a list (hashable either way)."""
    if isinstance(value, list | tuple):
        return tuple(float(v) for v in value)
    return float(value)


def value_tag(value: Value) -> str:
    """A parameter value as a path component: ``0.001 -> 0p001``, ``4.0 -> 4``,
    ``(0.5, 0) -> 0p5_0``."""
    if isinstance(value, tuple):
        return "_".join(value_tag(v) for v in value)
    return f"{value:g}".replace(".", "p").replace("-", "m").replace("+", "")


def parameters_of(cfg: Mapping[str, Any]) -> list[str]:
    """A PDE's parameter names as a list (``parameter`` may be one name)."""
    names = cfg["parameter"]
    return list(names) if isinstance(names, list | tuple) else [names]


def dataset_name(study: str, pde: str, value: Value) -> str:
    return f"{study}_{pde}_{value_tag(value)}"


def values_of(cfg: Mapping[str, Any], key: str) -> list[Value]:
    """The values listed under a PDE's ``key`` (seen, unseen, pdebench, basic), sorted."""
    return sorted(as_value(v) for v in cfg.get(key, []))


def fraction_tag(fraction: float) -> str:
    return "f" + value_tag(float(fraction))


def protocol_resolution(study: Mapping[str, Any], pde: str, protocol: str) -> int:
    """Cells of the processed data of a protocol: the solver's cells over its stride."""
    base = study["pdes"][pde]["dataset"]["base_resolution"]
    return base // study["protocols"][protocol]["space_stride"]


def pde_values(cfg: Mapping[str, Any]) -> list[Value]:
    """Every value of a PDE that has a dataset, in ascending order."""
    return sorted(
        {v for key in ("seen", "unseen", "pdebench", "basic") for v in values_of(cfg, key)}
    )


def trained_models(study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The models a preset trains (``run`` true), by key, in the study file's order."""
    return {key: spec for key, spec in study.get("models", {}).items() if spec["run"]}


def runs(study: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every training run by ``(pde, run)``: its protocol, model spec, training values
    (``train``, with the share of each value's trajectories used, ``fractions``),
    validation and test values, whether it follows the curriculum, and for the
    basic-forms runs the optimiser steps, the training and the target fraction."""
    out = {}
    curriculum = study["training"]["curriculum"]
    for pde, cfg in study["pdes"].items():
        seen = values_of(cfg, "seen")
        tested = sorted({*seen, *values_of(cfg, "unseen")})
        for model, spec in trained_models(study).items():
            base = {"protocol": "cape", "spec": spec, "train": seen, "test": tested}
            out[pde, model] = {**base, "curriculum": curriculum}
            if model in study["teacher_forcing"]:
                label = f"{spec.get('label', model)}, teacher forcing"
                out[pde, model + TEACHER_FORCING] = {
                    **base, "spec": {**spec, "label": label}, "curriculum": False,
                }  # fmt: skip
        for value in values_of(cfg, "pdebench"):
            out[pde, f"pdebench-{value_tag(value)}"] = {
                "protocol": "pdebench",
                "spec": study["pdebench_model"],
                "train": [value],
                "test": [value],
                "curriculum": curriculum,
            }
        if "basic_forms" in study and cfg.get("basic"):
            out.update(_basic_forms_runs(study["basic_forms"], pde, cfg, curriculum))
    for run in out.values():
        run.setdefault("validate", run["train"])
        run.setdefault("fractions", [1.0] * len(run["train"]))
    return out


def _basic_forms_runs(
    experiment: Mapping[str, Any], pde: str, cfg: Mapping[str, Any], curriculum: bool
) -> dict[tuple[str, str], dict[str, Any]]:
    seen, basic = values_of(cfg, "seen"), values_of(cfg, "basic")
    tested = sorted({*seen, *values_of(cfg, "unseen")})
    out = {}
    for fraction in experiment["target_fractions"]:
        for prefix, training in BASIC_FORMS_TRAININGS.items():
            extra = basic if prefix == "target_basic" else []
            out[pde, f"{prefix}-{fraction_tag(fraction)}"] = {
                "protocol": experiment["protocol"],
                "spec": experiment["model"],
                "train": seen + extra,
                "fractions": [float(fraction)] * len(seen) + [1.0] * len(extra),
                "validate": seen,  # the target's validation trajectories, in full, for both
                "test": tested,
                "curriculum": curriculum,
                "optimizer_steps": experiment["optimizer_steps"],
                "training_label": training,
                "target_fraction": float(fraction),
            }
    return out


def _check_values(here: str, cfg: Mapping[str, Any]) -> None:
    """Every listed value has one number per parameter; log10 needs positive numbers."""
    names = parameters_of(cfg)
    for key in ("seen", "unseen", "pdebench", "basic"):
        for value in cfg.get(key, []):
            several = isinstance(value, list | tuple)
            numbers = list(value) if several else [value]
            if several != (len(names) > 1) or len(numbers) != len(names):
                raise ConfigError(
                    f"config key '{here}.{key}': {value!r} is not one number per parameter "
                    f"{names} (a plain number for one parameter, a list for several)"
                )
            if cfg["transform"] == "log10" and min(numbers) <= 0:
                raise ConfigError(
                    f"config key '{here}.{key}': {value!r} has no log10; use transform: identity"
                )


class ParametricKind(StudyKind):
    name = "parametric"
    schema_def = "parametric_study"
    preset_keys = {
        # per PDE: the dataset's sizes and which values the preset runs
        "pdes": {"dataset", "seen", "unseen", "pdebench", "basic"},
        "training": {"epochs", "pdebench_epochs", "seeds", "batch_size", "step_epochs"},
        "basic_forms": {"target_fractions", "optimizer_steps"},
        # a narrower model, or fewer epochs, where the paper's cost a laptop too much, or
        # none (run: false; quick's U-Nets)
        "models": {"run", "hparams", "training"},
        "figures": None,
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        # every model the file names, trained at this preset or not, and the reference
        models = {run["spec"].get("label", key) for (_, key), run in runs(study).items()}
        tf = labels({k: study["models"][k] for k in study["teacher_forcing"]})
        models |= {*labels(study.get("models", {})), *(f"{m}, teacher forcing" for m in tf)}
        cape = {"pde": set(study["pdes"]), "model": {*models, "persistence (no learning)"},
                "split": {"seen", "unseen"}}  # fmt: skip
        basic = {"training": {"target", "target+basic", "persistence"}, "split": {"id", "ood"}}
        return {"parameters": cape, "cape_gains": cape, "pdebench": {"pde": cape["pde"]},
                "basic_forms": basic}  # fmt: skip

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        if not trained_models(study) and "basic_forms" not in study:
            raise ConfigError(
                f"config key '{where}.models': no model run and no basic_forms: nothing to train"
            )
        needed = {"cape"} if trained_models(study) else set()
        needed |= {"pdebench"} if any(c.get("pdebench") for c in study["pdes"].values()) else set()
        if "basic_forms" in study:
            needed.add(study["basic_forms"]["protocol"])
        for name in sorted(needed - set(study["protocols"])):
            raise ConfigError(f"config key '{where}.protocols.{name}': needed by the study's runs")
        for pde, cfg in study["pdes"].items():
            here = f"{where}.pdes.{pde}"
            _check_values(here, cfg)
            both = sorted(set(values_of(cfg, "seen")) & set(values_of(cfg, "unseen")))
            if both:
                raise ConfigError(f"config key '{here}.unseen': {both} are also seen values")
            if not cfg["seen"]:
                raise ConfigError(f"config key '{here}.seen': at least one value to train on")
            if cfg.get("basic") and "basic_forms" not in study:
                raise ConfigError(f"config key '{here}.basic': needs {where}.basic_forms")
            dataset = cfg["dataset"]
            for parameter in parameters_of(cfg):
                if parameter in dataset:
                    raise ConfigError(
                        f"config key '{here}.dataset.{parameter}': set per value by the kind "
                        "from seen/unseen/pdebench/basic, not in the dataset"
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
        single = {"pdebench_model": study.get("pdebench_model")}
        single["basic_forms.model"] = study.get("basic_forms", {}).get("model")
        for key, spec in single.items():
            if spec is not None and not spec["run"]:
                raise ConfigError(
                    f"config key '{where}.{key}.run': only models across values can be left "
                    "out; leave out this experiment's values instead"
                )
        for key in study["teacher_forcing"]:
            if key not in study.get("models", {}):
                raise ConfigError(
                    f"config key '{where}.teacher_forcing': {key!r} is not a model "
                    f"({sorted(study['models'])})"
                )
        for key, spec in study.get("models", {}).items():
            if spec["architecture"].endswith("_cape") and not spec["conditioned"]:
                raise ConfigError(
                    f"config key '{where}.models.{key}.conditioned': CAPE models read the "
                    "parameter; set it true"
                )
            if spec.get("baseline") not in (None, *set(study["models"]) - {key}):
                raise ConfigError(
                    f"config key '{where}.models.{key}.baseline': {spec['baseline']!r} is not "
                    f"another model ({sorted(study['models'])})"
                )
        # published values may name values a preset does not run (they stay unshown)
        for pde in study["published"].get("values", {}):
            if pde not in study["pdes"]:
                raise ConfigError(f"config key '{where}.published.values.{pde}': no such PDE")

    def datasets(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        out = {}
        for pde, cfg in study["pdes"].items():
            names = parameters_of(cfg)
            for value in pde_values(cfg):
                dataset = dataset_name(name, pde, value)
                values = value if isinstance(value, tuple) else (value,)
                out[dataset] = {
                    **cfg["dataset"],
                    "name": dataset,
                    **dict(zip(names, values, strict=True)),
                }
        return out

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        out = []
        if trained_models(study):
            out += table_files(name, TABLES) + figure_files(name, FIGURES)
        if "basic_forms" in study:
            out += table_files(name, ["basic_forms"]) + figure_files(name, BASIC_FORMS_FIGURES)
        return out

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        training = study["training"]
        sizes = "; ".join(
            f"{pde}: N = {cfg['dataset']['n_train']} trajectories per value, "
            f"{cfg['dataset']['n_test']} test, {cfg['dataset']['base_resolution']} cells"
            for pde, cfg in study["pdes"].items()
        )
        parameters = (
            f"nRMSE (as {NRMSE_SOURCE}) over the predicted frames only (never the "
            "conditioning ones) of each "
            "model trained across the seen values, at every seen and unseen value: mean and "
            f"std over {training['seeds']} seed(s), 95% bootstrap interval over test "
            f"trajectories; persistence of the last true frame is the no-learning "
            f"reference. Ours: preset {preset}, {sizes}, {training['epochs']} epochs."
        )
        gains = (
            "Each CAPE model against its base model (the same budget and data): nRMSE "
            f"(as {NRMSE_SOURCE}) averaged over the seen and over the unseen values (each "
            "value's mean over test trajectories), mean over seeds and its spread; change = "
            "nrmse / baseline_nrmse - 1 (CAPE claims its largest gains on unseen values). "
            f"Ours: preset {preset}, {sizes}."
        )
        published = study["published"]
        pdebench = (
            "nRMSE of one model per parameter value (the PDEBench protocol) beside the "
            f"published FNO values ({published.get('source', 'none')}; version "
            f"{published.get('version', '?')}; the paper trains 10,000 trajectories per "
            f"value for 500 epochs). nRMSE, RMSE and bRMSE as {PDEBENCH_METRICS_NOTE} "
            f"Ours: preset {preset}, {sizes}; our truths are exact or spectral, PDEBench's "
            "come from limited finite-volume schemes."
        )
        section = SummarySection(title=study["title"], tables=[], report_tables=[], figures=[])
        if trained_models(study):
            section.tables += [f"results/{name}/tables/{t}.md" for t in TABLES]
            section.report_tables += [
                {"path": f"results/{name}/tables/parameters.csv", "caption": parameters},
                {"path": f"results/{name}/tables/cape_gains.csv", "caption": gains},
                {"path": f"results/{name}/tables/pdebench.csv", "caption": pdebench},
            ]
            section.figures += [f"results/{name}/figures/{f}.png" for f in FIGURES]
        if "basic_forms" in study:
            experiment = study["basic_forms"]
            caption = (
                f"nRMSE (as {NRMSE_SOURCE}) over predicted frames on the target PDE of one "
                "model trained on a "
                "fraction of the target trajectories alone (target) or with every trajectory "
                "of its basic forms too (target+basic), with the same "
                f"{experiment['optimizer_steps']} optimiser steps; id: test trajectories at "
                "the training values, ood: at values outside the training ranges. Mean and "
                f"std over {training['seeds']} seed(s), 95% bootstrap interval over test "
                "trajectories; persistence of the last true frame is the no-learning "
                f"reference. Ours: preset {preset}, {sizes}."
            )
            section.tables.append(f"results/{name}/tables/basic_forms.md")
            section.report_tables.append(
                {"path": f"results/{name}/tables/basic_forms.csv", "caption": caption}
            )
            section.figures += [f"results/{name}/figures/{f}.png" for f in BASIC_FORMS_FIGURES]
        return section

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
        counts += Counter(train_parametric=trained, evaluate_parametric=trained)
        if trained_models(study):
            counts += Counter(parametric_tables=1, plot_parametric=1)
        if "basic_forms" in study:
            counts += Counter(basic_forms_table=1, plot_basic_forms=1)
        return counts


KIND = ParametricKind()


def preprocess_targets(name: str, study: Mapping[str, Any]) -> set[tuple[str, int]]:
    """``(dataset, cells)`` of every processed dataset the runs read."""
    out = set()
    for (pde, _), run in runs(study).items():
        res = protocol_resolution(study, pde, run["protocol"])
        for value in {*run["train"], *run["test"]}:
            out.add((dataset_name(name, pde, value), res))
    return out
