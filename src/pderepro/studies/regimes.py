"""Study kind ``regimes``: models trained in several regimes (viscosity, horizon) of one
time-dependent equation, plus a model's zero-shot super-resolution (the FNO paper's
Navier-Stokes table).

Each regime the preset runs becomes a resolution unit ``<study>/<regime>`` (its outputs
nest under ``results/<study>/<regime>/``) with its own dataset; the kind's own rules
(``workflow/rules/regimes.smk``) gather them into the regimes table and figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError
from pderepro.studies.base import (
    COST_CAPTION,
    TRAINING_BUDGET_KEYS,
    StudyKind,
    SummarySection,
    check_unverified,
    figure_files,
    published_caption,
    published_cells,
    table_files,
    unverified_note,
)
from pderepro.studies.claims_tables import SOLVER_ROW, check_map_keys, labels
from pderepro.studies.resolution import (
    check_models_fit,
    dataset_benchmarks,
    dataset_jobs,
    unit_benchmarks,
    unit_jobs,
    unit_metric_files,
)

#: Regime keys that are the regime's science and sizes, copied into its dataset.
REGIME_DATASET_KEYS = ("viscosity", "t_final", "n_train", "n_validation", "n_test")


def run_regimes(study: Mapping[str, Any]) -> list[str]:
    """Keys of the regimes the preset runs, in study order."""
    return [k for k, r in study["regimes"].items() if r["run"]]


def unit_name(study: str, regime: str) -> str:
    """The resolution unit of one regime of a study."""
    return f"{study}/{regime}"


def regime_units(name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The resolution units, one per run regime, that a regimes study is built from.

    Each has its own dataset ``<dataset>_<regime>`` with the regime's viscosity, horizon
    and sample counts.
    """
    out = {}
    for key in run_regimes(study):
        regime = study["regimes"][key]
        dataset = {
            **study["dataset"],
            "name": f"{study['dataset']['name']}_{key}".replace("-", "_"),
            **{k: regime[k] for k in REGIME_DATASET_KEYS},
        }
        out[unit_name(name, key)] = {
            "kind": "resolution",
            "title": f"{study['title']}, {regime.get('label', key)}",
            "regime": key,
            "dataset": dataset,
            "resolutions": study["resolutions"],
            "models": study["models"],
            "training": study["training"],
            "baselines": study["baselines"],
            "published": {},
            "figures": study["figures"],
        }
    return out


def superresolution_dataset(study: Mapping[str, Any]) -> dict[str, Any]:
    """The test-only dataset of a regimes study's super-resolution: the regime's data on
    the solver grid with ``time_factor`` frames per time unit."""
    sr = study["superresolution"]
    regime = study["regimes"][sr["regime"]]
    base = study["dataset"]
    return {
        **base,
        "name": f"{base['name']}_{sr['regime']}_fine".replace("-", "_"),
        "viscosity": regime["viscosity"],
        "t_final": regime["t_final"],
        "records_per_time": base["records_per_time"] * sr["time_factor"],
        "n_train": 1,  # unused: only the test split is made
        "n_validation": 1,
        "n_test": sr["n_test"],
    }


class RegimesKind(StudyKind):
    name = "regimes"
    schema_def = "regimes_study"
    preset_keys = {
        "dataset": {"base_resolution", "shard_size", "time_step"},
        # per regime: which run, their sample counts and horizon
        "regimes": {"run", "n_train", "n_validation", "n_test", "t_final"},
        # which trained regime super-resolution reuses (one the preset runs), its samples
        "superresolution": {"regime", "n_test"},
        "resolutions": None,
        "training": set(TRAINING_BUDGET_KEYS),
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        models = {*labels(study["models"]), *labels(study.get("baselines", {})), SOLVER_ROW}
        regimes = labels(study["regimes"])
        return {
            "regimes": {"model": models, "regime": regimes},
            "cost": {"model": models},
            "superresolution": {"regime": regimes},
        }

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        published, models, regimes = study.get("published", {}), study["models"], study["regimes"]
        check_map_keys(f"{where}.published.regimes", published.get("regimes"), [regimes],
                       ("regime",))  # fmt: skip
        for name in ("values", "unverified"):
            check_map_keys(f"{where}.published.{name}", published.get(name), [models, regimes],
                           ("model", "regime"))  # fmt: skip
        run = run_regimes(study)
        if not run:
            raise ConfigError(f"config key '{where}.regimes': the preset runs none of them")
        frames_in = study["dataset"]["frames_in"]
        for key in run:
            regime = study["regimes"][key]
            for size in REGIME_DATASET_KEYS:
                if size not in regime:
                    raise ConfigError(f"config key '{where}.regimes.{key}.{size}': required")
            if not float(regime["t_final"]).is_integer() or regime["t_final"] <= frames_in:
                raise ConfigError(
                    f"config key '{where}.regimes.{key}.t_final': must be a whole number of "
                    f"time units beyond dataset.frames_in={frames_in}"
                )
            frames_out = (regime["t_final"] - frames_in) * study["dataset"]["records_per_time"]
            for name, model in study["models"].items():
                hparams = model.get("hparams", {})
                if "modes_time" in hparams:
                    room = frames_out + hparams.get("time_padding", 0)
                    if room < 2 * hparams["modes_time"]:
                        raise ConfigError(
                            f"config key '{where}.models.{name}.hparams.modes_time': "
                            f"{hparams['modes_time']} temporal modes need target frames + "
                            f"time_padding >= {2 * hparams['modes_time']}; regime {key} has "
                            f"{frames_out:g} + {hparams.get('time_padding', 0)}"
                        )
        sr = study["superresolution"]
        if sr.get("regime") not in run:
            raise ConfigError(
                f"config key '{where}.superresolution.regime': {sr.get('regime')!r} is not a "
                f"regime the preset runs ({run})"
            )
        if sr["model"] not in study["models"]:
            raise ConfigError(
                f"config key '{where}.superresolution.model': no model {sr['model']!r}"
            )
        for unit in regime_units("", study).values():
            check_models_fit(where, unit)
        check_published_regimes(where, study)

    def units(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return regime_units(name, study)

    def datasets(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        dataset = superresolution_dataset(study)
        return {dataset["name"]: dataset}

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return [
            *table_files(name, ["regimes", "cost"]),
            f"results/{name}/superresolution/metrics.csv",
            *figure_files(name, ["error_vs_time", "superresolution"]),
        ]

    def claim_tables(self, name: str, study: Mapping[str, Any]) -> dict[str, str]:
        """The tables, and the super-resolution metrics file as ``superresolution``."""
        superres = f"results/{name}/superresolution/metrics.csv"
        return {**super().claim_tables(name, study), "superresolution": superres}

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        runs = [
            f"{k}: N = {study['regimes'][k]['n_train']}, {study['regimes'][k]['n_test']} test, "
            f"T = {study['regimes'][k]['t_final']:g}"
            for k in run_regimes(study)
        ]
        training, sr = study["training"], study["superresolution"]
        cells = regimes_published(study)
        regimes_caption = (
            "Relative L2 test error of the predicted frames of each model in each regime "
            f"(mean and standard deviation over {training['seeds']} seed(s)) and its "
            f"parameter count. Ours: preset {preset}, {'; '.join(runs)}; solved at "
            f"{study['dataset']['base_resolution']} points per side, trained at "
            f"{max(study['resolutions'])}, {training['epochs']} epochs. "
            + published_caption(study["published"], cells, regime_labels(study))
            + unverified_note(cells)
        )
        superres_caption = (
            f"Zero-shot super-resolution of {sr['model']} trained in regime {sr['regime']}: "
            f"relative L2 on {sr['n_test']} test samples at the solver grid and "
            f"{sr['time_factor']} frames per time unit, against the training grid."
        )
        return SummarySection(
            title=study["title"],
            tables=[
                f"results/{name}/tables/{t}.md" for t in ("regimes", "superresolution", "cost")
            ],
            metrics=regime_metric_files_of(name, study),
            report_tables=[
                {"path": f"results/{name}/tables/regimes.csv", "caption": regimes_caption},
                {
                    "path": f"results/{name}/superresolution/metrics.csv",
                    "caption": superres_caption,
                },
                {"path": f"results/{name}/tables/cost.csv", "caption": COST_CAPTION},
            ],
            figures=[
                f"results/{name}/figures/{f}.png" for f in ("error_vs_time", "superresolution")
            ],
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        files = dataset_benchmarks(superresolution_dataset(study), splits=("test",))
        for unit, cfg in regime_units(name, study).items():
            files += unit_benchmarks(unit, cfg)
        return files

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        counts = dataset_jobs(superresolution_dataset(study), splits=("test",))
        for unit in regime_units(name, study).values():
            counts += unit_jobs(unit)
        return counts + Counter(
            regimes_table=1,
            cost_table=1,
            plot_error_vs_time=1,
            evaluate_superresolution=1,
            plot_superresolution=1,
        )


KIND = RegimesKind()


def check_published_regimes(where: str, study: Mapping[str, Any]) -> None:
    """Published values name known models and regimes, each regime with the paper's N
    and T; unverified entries name published values."""
    published = study.get("published", {})
    for key in published.get("regimes", {}):
        if key not in study["regimes"]:
            raise ConfigError(
                f"config key '{where}.published.regimes.{key}': no such regime "
                f"(known: {sorted(study['regimes'])})"
            )
    for model, values in published.get("values", {}).items():
        if model not in study["models"]:
            raise ConfigError(
                f"config key '{where}.published.values.{model}': no such model "
                f"(known: {sorted(study['models'])})"
            )
        for regime in values:
            if regime not in study["regimes"]:
                raise ConfigError(
                    f"config key '{where}.published.values.{model}.{regime}': no such "
                    f"regime (known: {sorted(study['regimes'])})"
                )
            if regime not in published.get("regimes", {}):
                raise ConfigError(
                    f"config key '{where}.published.regimes.{regime}': required, the "
                    f"paper's N and T behind published.values.{model}.{regime}"
                )
    check_unverified(where, published)


def regimes_published(study: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The published cells of the regimes the preset runs (the table's columns), each
    with the paper's N and T of its column."""
    published, run = study["published"], set(run_regimes(study))
    cells = published_cells(published, published.get("regimes", {}))
    return {
        model: {regime: cell for regime, cell in row.items() if regime in run}
        for model, row in cells.items()
        if run & set(row)
    }


def regime_labels(study: Mapping[str, Any]) -> dict[str, str]:
    """Display label of each regime, in study order."""
    return {k: r.get("label", k) for k, r in study["regimes"].items()}


def regime_metric_files_of(name: str, study: Mapping[str, Any]) -> list[str]:
    return [
        f for unit, cfg in regime_units(name, study).items() for f in unit_metric_files(unit, cfg)
    ]


# ---- input functions of the kind's rules (plan, wildcards by name) ----------------------


def regime_metric_files(plan, study: str, **_: Any) -> list[str]:
    return regime_metric_files_of(study, plan.studies[study])


def _prediction_runs(plan, study: str) -> list[tuple[str, str, str]]:
    """``(regime, model, path)`` of the predictions at the finest training resolution,
    seed 0, of every run regime and model, then of the no-learning references."""
    cfg = plan.studies[study]
    res = max(cfg["resolutions"])
    runs = [
        (regime, model, f"results/{study}/{regime}/predictions/{model}/res{res}/seed0.nc")
        for regime in run_regimes(cfg)
        for model in cfg["models"]
    ]
    return runs + [
        (regime, ref, f"results/{study}/{regime}/predictions/{ref}/res{res}/reference.nc")
        for regime in run_regimes(cfg)
        for ref in cfg["baselines"]
    ]


def regime_prediction_files(plan, study: str, **_: Any) -> list[str]:
    return [path for _, _, path in _prediction_runs(plan, study)]


def error_vs_time_params(plan, study: str, **_: Any) -> dict[str, Any]:
    """The figure's title and the regime of each input file, in input order."""
    return {
        "title": plan.studies[study]["title"],
        "regimes": [regime for regime, _, _ in _prediction_runs(plan, study)],
    }


def regimes_table_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    cells = regimes_published(cfg)
    return {
        "regimes": {k: cfg["regimes"][k] for k in run_regimes(cfg)},
        "published": cells,
        "caption": published_caption(cfg["published"], cells, regime_labels(cfg)),
        "model_order": list(cfg["models"]) + list(cfg["baselines"]),
    }


def superres_checkpoint(plan, study: str, **_: Any) -> str:
    cfg = plan.studies[study]
    sr = cfg["superresolution"]
    res = max(cfg["resolutions"])
    return f"results/{study}/{sr['regime']}/models/{sr['model']}/res{res}/seed0/checkpoint.pt"


def superres_test(plan, study: str, **_: Any) -> str:
    return f"data/raw/{superresolution_dataset(plan.studies[study])['name']}/test.nc"


def superres_params(plan, study: str, **_: Any) -> dict[str, Any]:
    cfg = plan.studies[study]
    return {
        "regime": cfg["superresolution"]["regime"],
        "time_factor": cfg["superresolution"]["time_factor"],
        "n_keep": cfg["figures"]["samples"],
    }
