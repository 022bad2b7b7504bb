# Config validation, named helpers and wildcard constraints; no rules here.
import os

from pderepro.config import ConfigError, model_training, resolve_config
from pderepro.data.generate import n_shards, shard_bounds
from pderepro.stages.data import DASK_SCHEDULER_ENV

# glibc maps and unmaps multi-MB torch tensors every step unless told otherwise, which
# made CPU training up to 1.6x slower; jobs inherit this from the Snakemake process.
os.environ.setdefault(
    "GLIBC_TUNABLES",
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296",
)

try:
    CONFIG = resolve_config(
        config,
        config_dir="config",
        schema_path=f"{workflow.basedir}/workflow/schemas/config.schema.yaml",
    )
except ConfigError as err:
    raise WorkflowError(str(err)) from None

# A runtime setting, passed to jobs through the environment so that it reruns nothing.
if CONFIG["dask"]["scheduler_address"]:
    os.environ[DASK_SCHEDULER_ENV] = CONFIG["dask"]["scheduler_address"]

STUDIES = {name: CONFIG["study"][name] for name in CONFIG["studies"]}
# resolution studies (kind: resolution) train models on datasets at several resolutions
RESOLUTION_STUDIES = {n: s for n, s in STUDIES.items() if s["kind"] == "resolution"}
DATASETS = {s["dataset"]["name"]: s["dataset"] for s in RESOLUTION_STUDIES.values()}
SPLITS = ["train", "test"]
ENV = "../../envs/pderepro.yaml"


wildcard_constraints:
    study="|".join(STUDIES),
    dataset="|".join(DATASETS),
    split="|".join(SPLITS),
    shard=r"\d+",
    res=r"\d+",
    seed=r"\d+",
    model=r"[a-z0-9_]+",


# ---- data ------------------------------------------------------------------------------


def dataset_science(wildcards):
    """The dataset's science (solver parameters, seed), without the sizes."""
    sizes = {"n_train", "n_test", "shard_size"}
    return {k: v for k, v in DATASETS[wildcards.dataset].items() if k not in sizes}


def shard_range(wildcards):
    """First sample and sample count of this shard, from the preset's sizes."""
    cfg = DATASETS[wildcards.dataset]
    start, count = shard_bounds(
        cfg[f"n_{wildcards.split}"], cfg["shard_size"], int(wildcards.shard)
    )
    return {"start": start, "count": count}


def shard_files(wildcards):
    cfg = DATASETS[wildcards.dataset]
    count = n_shards(cfg[f"n_{wildcards.split}"], cfg["shard_size"])
    return expand(
        "data/raw/{dataset}/shards/{split}-{shard}.nc",
        dataset=wildcards.dataset,
        split=wildcards.split,
        shard=range(count),
    )


def processed(study, res, name):
    """Path of a processed file (train.nc, test.nc, stats.nc) of a study's dataset."""
    dataset = STUDIES[study]["dataset"]["name"]
    return f"data/processed/{dataset}/res{res}/{name}"


def processed_train(wildcards):
    return processed(wildcards.study, wildcards.res, "train.nc")


def processed_test(wildcards):
    return processed(wildcards.study, wildcards.res, "test.nc")


def processed_stats(wildcards):
    return processed(wildcards.study, wildcards.res, "stats.nc")


# ---- training and evaluation -------------------------------------------------------------


def train_params(wildcards):
    study = STUDIES[wildcards.study]
    return {
        "spec": {
            k: v for k, v in study["models"][wildcards.model].items() if k != "training"
        },
        "training": model_training(study, wildcards.model),
    }


def seeds(study):
    return range(STUDIES[study]["training"]["seeds"])


def metric_files(wildcards):
    """Every metrics file of a study: trained models (all seeds) and baselines."""
    study = STUDIES[wildcards.study]
    files = expand(
        "results/{study}/metrics/{model}/res{res}/seed{seed}.csv",
        study=wildcards.study,
        model=list(study["models"]),
        res=study["resolutions"],
        seed=seeds(wildcards.study),
    )
    files += expand(
        "results/{study}/metrics/{model}/res{res}/reference.csv",
        study=wildcards.study,
        model=list(study["baselines"]),
        res=study["resolutions"],
    )
    return files


def sample_prediction_files(wildcards):
    """Predictions at the finest resolution, first seed, for the samples figure."""
    study = STUDIES[wildcards.study]
    res = max(study["resolutions"])
    files = [
        f"results/{wildcards.study}/predictions/{m}/res{res}/seed0.nc"
        for m in study["models"]
    ]
    return files + [
        f"results/{wildcards.study}/predictions/{b}/res{res}/reference.nc"
        for b in study["baselines"]
    ]


def n_kept_predictions(wildcards):
    """Test samples whose predictions are kept for the samples figure."""
    return STUDIES[wildcards.study]["figures"]["samples"]


def baseline_params(wildcards):
    study = STUDIES[wildcards.study]
    label = study["baselines"][wildcards.model].get("label", wildcards.model)
    science = {
        k: v for k, v in study["dataset"].items() if k in ("viscosity", "t_final")
    }
    return {"label": label, "dataset": science}


def table_params(wildcards):
    study = STUDIES[wildcards.study]
    return {
        "published": study["published"],
        "model_order": list(study["models"]) + list(study["baselines"]),
    }


def figure_params(wildcards):
    return {"title": STUDIES[wildcards.study]["title"]}
