"""Study kind ``resolution``: models trained and tested at several resolutions of one
dataset (the FNO paper's Burgers and Darcy tables).

A resolution study is also the *unit* the generic rules build (generate, merge,
preprocess, train, evaluate): regimes studies expand into one unit per regime. The
functions below are the rules' input functions and cost model: each takes the plan and
the wildcards' values by name and returns only the slice of config its rule depends on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pderepro.config import ConfigError, deep_merge
from pderepro.data.layouts import subsample_stride
from pderepro.data.sharding import n_shards, shard_bounds
from pderepro.data.specs import dataset_spec
from pderepro.resources import BASE_MB, BYTES_PER_MB
from pderepro.studies.base import (
    BENCHMARKS,
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

#: Splits of a dataset made by the generate and merge rules.
SPLITS = ("train", "validation", "test")
#: Keys of a dataset config that are sizes (set by the preset), not science.
DATASET_SIZES = ("n_train", "n_validation", "n_test", "shard_size")
#: FNO-1D training: about 7.4e-9 s per sample, grid value and epoch on one CPU core.
TRAIN_1D_S_PER_VALUE_EPOCH = 7.4e-9
#: 2-D models (FNO-2D/3D, U-Net, ResNet): about 1e-5 s per sample, value and epoch.
TRAIN_2D_S_PER_VALUE_EPOCH = 1e-5
#: Activation floats per stored value of a batch during training.
ACTIVATIONS_PER_VALUE = 200


def model_training(study: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The study's training settings with the model's own overrides applied."""
    return deep_merge(study["training"], study["models"][model].get("training", {}))


#: No-learning references that need a solver's science (heat) or frames in time.
_BASELINE_NEEDS = {
    "heat": ("the Burgers solver", lambda dataset: dataset["solver"] == "burgers"),
    "persistence": ("input frames in time", lambda dataset: "frames_in" in dataset),
    "linear_extrapolation": ("input frames in time", lambda dataset: "frames_in" in dataset),
}


def check_models_fit(where: str, study: Mapping[str, Any]) -> None:
    """Resolutions reachable from the solver grid; Fourier modes that fit the grid;
    references that apply to the dataset."""
    base = study["dataset"]["base_resolution"]
    grid = dataset_spec(study["dataset"]["solver"]).layout.grid
    for res in study["resolutions"]:
        if subsample_stride(base, res, grid) is None:
            raise ConfigError(
                f"config key '{where}.resolutions': no stride takes the {grid} grid of "
                f"dataset.base_resolution={base} points to {res}"
            )
    for name in study.get("baselines", {}):
        need, applies = _BASELINE_NEEDS.get(name, ("", lambda dataset: True))
        if not applies(study["dataset"]):
            raise ConfigError(f"config key '{where}.baselines.{name}': needs {need}")
    for key, model in study["models"].items():
        hparams = model.get("hparams", {})
        modes = hparams.get("modes")
        room = min(study["resolutions"]) + hparams.get("padding", 0)
        if modes is not None and 2 * modes > room:
            raise ConfigError(
                f"config key '{where}.models.{key}.hparams.modes': {modes} modes "
                f"need resolution + padding >= {2 * modes}, got {room}"
            )


class ResolutionKind(StudyKind):
    name = "resolution"
    schema_def = "resolution_study"
    preset_keys = {
        "dataset": {"base_resolution", "shard_size", "time_step", *DATASET_SIZES},
        "resolutions": None,
        "training": set(TRAINING_BUDGET_KEYS),
    }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        models = {*labels(study["models"]), *labels(study.get("baselines", {})), SOLVER_ROW}
        return {table: {"model": models} for table in ("resolution", "cost")}

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        published = study.get("published", {})
        for name in ("values", "unverified"):
            check_map_keys(f"{where}.published.{name}", published.get(name), [study["models"]],
                           ("model",))  # fmt: skip
        check_models_fit(where, study)
        known = set(study["models"]) | set(study.get("baselines", {}))
        for key in study.get("published", {}).get("values", {}):
            if key not in known:
                raise ConfigError(
                    f"config key '{where}.published.values.{key}': no such model or "
                    f"baseline (known: {sorted(known)})"
                )
        check_unverified(where, study.get("published", {}))

    def units(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {name: dict(study)}

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return table_files(name, ["resolution", "cost"]) + figure_files(
            name, ["error_vs_resolution", "samples"]
        )

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        dataset, training = study["dataset"], study["training"]
        cells = resolution_published(study["published"])
        caption = (
            f"Relative L2 test error of each model at each resolution s: mean and standard "
            f"deviation over {training['seeds']} training seed(s), the 95% bootstrap "
            f"interval over test samples (ci_low, ci_high), and the validation error of the "
            f"epoch each run kept (val_rel_l2), beside the no-learning reference rows "
            f"(n_params 0). Ours: preset {preset}, N = {dataset['n_train']} training, "
            f"{dataset['n_validation']} validation and {dataset['n_test']} test samples "
            f"solved at {dataset['base_resolution']} points per side, {training['epochs']} "
            f"epochs. {published_caption(study['published'], cells)}{unverified_note(cells)}"
        )
        return SummarySection(
            title=study["title"],
            tables=[f"results/{name}/tables/{t}.md" for t in ("resolution", "cost")],
            metrics=unit_metric_files(name, study),
            report_tables=[
                {"path": f"results/{name}/tables/resolution.csv", "caption": caption},
                {"path": f"results/{name}/tables/cost.csv", "caption": COST_CAPTION},
            ],
            figures=[f"results/{name}/figures/{f}.png" for f in ("error_vs_resolution", "samples")],
        )

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        return unit_benchmarks(name, study)

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        return unit_jobs(study) + Counter(
            make_table=1, cost_table=1, plot_resolution=1, plot_samples=1
        )


KIND = ResolutionKind()


# ---- files of a unit ------------------------------------------------------------------


def shard_paths(dataset: Mapping[str, Any], split: str, pattern: str) -> list[str]:
    """``pattern`` formatted for every shard of a split (``{dataset}``, ``{split}``,
    ``{shard}``)."""
    count = n_shards(dataset[f"n_{split}"], dataset["shard_size"])
    return [
        pattern.format(dataset=dataset["name"], split=split, shard=shard) for shard in range(count)
    ]


def unit_metric_files(name: str, unit: Mapping[str, Any]) -> list[str]:
    """Every metrics file of a unit: trained models (all seeds) and baselines."""
    files = [
        f"results/{name}/metrics/{model}/res{res}/seed{seed}.csv"
        for model in unit["models"]
        for res in unit["resolutions"]
        for seed in range(unit["training"]["seeds"])
    ]
    return files + [
        f"results/{name}/metrics/{baseline}/res{res}/reference.csv"
        for baseline in unit["baselines"]
        for res in unit["resolutions"]
    ]


def split_shards(dataset: Mapping[str, Any], split: str) -> int:
    """Shards a split is generated in: 1 means generated whole by ``assemble_split``."""
    return n_shards(dataset[f"n_{split}"], dataset["shard_size"])


def dataset_jobs(dataset: Mapping[str, Any], splits=SPLITS) -> Counter[str]:
    """Generation jobs of a dataset's splits: one ``assemble_split`` per split, and a
    ``generate_shard`` per shard of the splits of more than one."""
    shards = [split_shards(dataset, split) for split in splits]
    return Counter(generate_shard=sum(n for n in shards if n > 1), assemble_split=len(splits))


def unit_jobs(unit: Mapping[str, Any]) -> Counter[str]:
    """Jobs of a unit: its dataset, preprocessing, training and evaluation."""
    resolutions = len(unit["resolutions"])
    runs = len(unit["models"]) * resolutions * unit["training"]["seeds"]
    return dataset_jobs(unit["dataset"]) + Counter(
        preprocess=resolutions,
        time_solver=resolutions,
        train_model=runs,
        evaluate_model=runs,
        evaluate_baseline=len(unit["baselines"]) * resolutions,
    )


def dataset_benchmarks(dataset: Mapping[str, Any], splits=SPLITS) -> list[str]:
    """Benchmark files of a dataset's generation jobs (a whole split's, or its shards')."""
    files = []
    for split in splits:
        if split_shards(dataset, split) > 1:
            files += shard_paths(dataset, split, BENCHMARKS["generate_shard"])
        else:
            files.append(BENCHMARKS["assemble_split"].format(dataset=dataset["name"], split=split))
    return files


def unit_benchmarks(name: str, unit: Mapping[str, Any]) -> list[str]:
    """Benchmark files of a unit's generation, preprocessing and training jobs."""
    dataset = unit["dataset"]
    files = dataset_benchmarks(dataset)
    files += [
        BENCHMARKS["preprocess"].format(dataset=dataset["name"], res=res)
        for res in unit["resolutions"]
    ]
    return files + [
        BENCHMARKS["train_model"].format(study=name, model=model, res=res, seed=seed)
        for model in unit["models"]
        for res in unit["resolutions"]
        for seed in range(unit["training"]["seeds"])
    ]


# ---- input functions of the generic rules (plan, wildcards by name) ---------------------


def dataset_science(plan, dataset: str, **_: Any) -> dict[str, Any]:
    """The dataset's science (solver parameters, seed), without the sizes."""
    return {k: v for k, v in plan.datasets[dataset].items() if k not in DATASET_SIZES}


def shard_range(plan, dataset: str, split: str, shard: str, **_: Any) -> dict[str, int]:
    """First sample and sample count of this shard, from the preset's sizes."""
    cfg = plan.datasets[dataset]
    start, count = shard_bounds(cfg[f"n_{split}"], cfg["shard_size"], int(shard))
    return {"start": start, "count": count}


def shard_files(plan, dataset: str, split: str, **_: Any) -> list[str]:
    """The shard files a split is merged from; none when it is generated whole."""
    cfg = plan.datasets[dataset]
    if split_shards(cfg, split) <= 1:
        return []
    return shard_paths(cfg, split, "data/raw/{dataset}/shards/{split}-{shard}.nc")


def split_size(plan, dataset: str, split: str, **_: Any) -> int:
    return plan.datasets[dataset][f"n_{split}"]


def processed(plan, study: str, res: str, name: str) -> str:
    """Path of a processed file (train.nc, validation.nc, test.nc, stats.nc) of a unit's dataset."""
    return f"data/processed/{plan.units[study]['dataset']['name']}/res{res}/{name}"


def processed_train(plan, study: str, res: str, **_: Any) -> str:
    return processed(plan, study, res, "train.nc")


def processed_validation(plan, study: str, res: str, **_: Any) -> str:
    return processed(plan, study, res, "validation.nc")


def processed_test(plan, study: str, res: str, **_: Any) -> str:
    return processed(plan, study, res, "test.nc")


def processed_stats(plan, study: str, res: str, **_: Any) -> str:
    return processed(plan, study, res, "stats.nc")


def train_params(plan, study: str, model: str, **_: Any) -> dict[str, Any]:
    unit = plan.units[study]
    return {
        "spec": {k: v for k, v in unit["models"][model].items() if k != "training"},
        "training": model_training(unit, model),
    }


def metric_files(plan, study: str, **_: Any) -> list[str]:
    return unit_metric_files(study, plan.units[study])


def sample_prediction_files(plan, study: str, **_: Any) -> list[str]:
    """Predictions at the finest resolution, first seed, for the samples figure."""
    unit = plan.units[study]
    res = max(unit["resolutions"])
    files = [f"results/{study}/predictions/{m}/res{res}/seed0.nc" for m in unit["models"]]
    return files + [
        f"results/{study}/predictions/{b}/res{res}/reference.nc" for b in unit["baselines"]
    ]


def n_kept_predictions(plan, study: str, **_: Any) -> int:
    """Test samples whose predictions are kept for the samples figure."""
    return plan.units[study]["figures"]["samples"]


def baseline_params(plan, study: str, model: str, **_: Any) -> dict[str, Any]:
    unit = plan.units[study]
    label = unit["baselines"][model].get("label", model)
    science = {k: v for k, v in unit["dataset"].items() if k in ("viscosity", "t_final")}
    return {"label": label, "dataset": science}


def resolution_published(published: Mapping[str, Any]) -> dict[str, dict[Any, dict[str, Any]]]:
    """The published cells of a resolution study: its one N (and T) behind every value."""
    conditions = {"n_train": published.get("n_train"), "t_final": published.get("t_final")}
    columns = {col for values in published.get("values", {}).values() for col in values}
    return published_cells(published, dict.fromkeys(columns, conditions))


def table_params(plan, study: str, **_: Any) -> dict[str, Any]:
    unit = plan.units[study]
    cells = resolution_published(unit["published"])
    return {
        "published": cells,
        "caption": published_caption(unit["published"], cells),
        "n_train": unit["dataset"]["n_train"],
        "model_order": list(unit["models"]) + list(unit["baselines"]),
    }


def figure_params(plan, study: str, **_: Any) -> dict[str, str]:
    return {"title": plan.studies[study]["title"]}


# ---- cost model -------------------------------------------------------------------------


def generate_mem_mb(plan, dataset: str, **_: Any) -> int:
    cfg = plan.datasets[dataset]
    return dataset_spec(cfg["solver"]).generate_mem_mb(cfg)


def generate_runtime(plan, dataset: str, **_: Any) -> int:
    cfg = plan.datasets[dataset]
    return dataset_spec(cfg["solver"]).generate_runtime(cfg)


def split_mem_mb(plan, dataset: str, split: str, **_: Any) -> int:
    """Memory of ``assemble_split``: the generator's for a whole split, else the merge's."""
    cfg = plan.datasets[dataset]
    if split_shards(cfg, split) <= 1:
        return generate_mem_mb(plan, dataset)
    return BASE_MB + int(2 * dataset_spec(cfg["solver"]).split_mb(cfg, split))


def split_runtime(plan, dataset: str, split: str, **_: Any) -> int:
    """Minutes of ``assemble_split``: a shard's generation for a whole split, else 10."""
    if split_shards(plan.datasets[dataset], split) <= 1:
        return generate_runtime(plan, dataset)
    return 10


def preprocess_mem_mb(plan, dataset: str, **_: Any) -> int:
    # dask streams chunks of samples; the statistics need one pass over train
    cfg = plan.datasets[dataset]
    return BASE_MB + int(dataset_spec(cfg["solver"]).split_mb(cfg, "train") / 4)


def sample_values(unit: Mapping[str, Any], res: int) -> float:
    """Values of one processed sample (input and target) at resolution ``res``."""
    dataset = unit["dataset"]
    spec = dataset_spec(dataset["solver"])
    return spec.values_per_sample(dataset) * (res / dataset["base_resolution"]) ** spec.ndim


def train_mem_mb(plan, study: str, res: str, **_: Any) -> int:
    unit = plan.units[study]
    values = sample_values(unit, int(res))
    data_mb = 4 * unit["dataset"]["n_train"] * values / BYTES_PER_MB
    # data, activations of a batch and weights
    batch = unit["training"]["batch_size"]
    return BASE_MB + int(data_mb + ACTIVATIONS_PER_VALUE * 4 * batch * values / BYTES_PER_MB)


def train_devices(plan, study: str, model: str, **_: Any) -> int:
    """GPUs (or CPU processes) of a training job: its ``training.devices``."""
    return model_training(plan.units[study], model)["devices"]
