# Config validation, named helpers and wildcard constraints; no rules here.
import os
from argparse import Namespace

from pderepro.config import (
    ConfigError,
    model_training,
    regime_studies,
    resolve_config,
    superresolution_dataset,
)
from pderepro.data.generate import n_shards, shard_bounds, values_per_sample
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
# regimes studies (kind: regimes) are built from one resolution study per regime they
# run, named <study>/<regime>, whose outputs nest under results/<study>/<regime>/
REGIME_STUDIES = {n: s for n, s in STUDIES.items() if s["kind"] == "regimes"}
for _name, _study in REGIME_STUDIES.items():
    STUDIES.update(regime_studies(_name, _study))
# resolution studies (kind: resolution) train models on datasets at several resolutions
RESOLUTION_STUDIES = {n: s for n, s in STUDIES.items() if s["kind"] == "resolution"}
DATASETS = {s["dataset"]["name"]: s["dataset"] for s in RESOLUTION_STUDIES.values()}
# super-resolution test sets: the solver grid at a finer frame rate, test split only
SUPERRES_DATASETS = {n: superresolution_dataset(s) for n, s in REGIME_STUDIES.items()}
DATASETS.update({d["name"]: d for d in SUPERRES_DATASETS.values()})
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


# ---- regimes studies -----------------------------------------------------------------------

# matches the regimes studies only (a never-matching pattern when there are none)
REGIME_PATTERN = "|".join(REGIME_STUDIES) or "(?!)"


def run_regimes(study):
    """Keys of the regimes a regimes study runs, in study order."""
    return [k for k, r in REGIME_STUDIES[study]["regimes"].items() if r["run"]]


def regime_metric_files(wildcards):
    return [
        f
        for regime in run_regimes(wildcards.study)
        for f in metric_files(Namespace(study=f"{wildcards.study}/{regime}"))
    ]


def regime_prediction_files(wildcards):
    """Predictions at the finest training resolution, seed 0, by regime and model."""
    study = REGIME_STUDIES[wildcards.study]
    res = max(study["resolutions"])
    return {
        f"{regime}__{model}": f"results/{wildcards.study}/{regime}/predictions/{model}/res{res}/seed0.nc"
        for regime in run_regimes(wildcards.study)
        for model in study["models"]
    }


def regimes_table_params(wildcards):
    study = REGIME_STUDIES[wildcards.study]
    return {
        "regimes": {k: study["regimes"][k] for k in run_regimes(wildcards.study)},
        "published": study["published"],
        "model_order": list(study["models"]),
    }


def superres_checkpoint(wildcards):
    study = REGIME_STUDIES[wildcards.study]
    sr = study["superresolution"]
    res = max(study["resolutions"])
    return f"results/{wildcards.study}/{sr['regime']}/models/{sr['model']}/res{res}/seed0/checkpoint.pt"


def superres_test(wildcards):
    return f"data/raw/{SUPERRES_DATASETS[wildcards.study]['name']}/test.nc"


def superres_params(wildcards):
    study = REGIME_STUDIES[wildcards.study]
    return {
        "regime": study["superresolution"]["regime"],
        "time_factor": study["superresolution"]["time_factor"],
        "n_keep": study["figures"]["samples"],
    }
