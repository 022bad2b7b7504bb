# Helpers of the closure studies (kind: closures, e.g. l96_closures); no rules here.
# Each returns only the config slice its rule depends on, so a changed closure
# hyperparameter reruns that closure's jobs and the tables and figures, nothing else.

from pderepro.data.lorenz96_truth import ROLES as TRUTH_ROLES, truth_run_size

CLOSURE_SPLITS = ["train", "validation", "test"]
CLOSURE_STUDIES = {n: s for n, s in STUDIES.items() if s["kind"] == "closures"}


def _closure_study(wildcards):
    return CLOSURE_STUDIES[wildcards.study]


def truth_params(wildcards):
    study = _closure_study(wildcards)
    return {
        "system": study["system"],
        "forcing": study["setups"][wildcards.setup],
        "truth": study["truth"],
        "seed": study["seed"],
        "title": study["title"],
    }


def coarse_grain_params(wildcards):
    study = _closure_study(wildcards)
    system = study["system"]
    return {
        "coarse_step": study["coarse"]["time_step"],
        "coupling": system["h"] * system["c"] / system["b"],
        "split": study["split"],
    }


def closure_split(wildcards, split):
    study = _closure_study(wildcards)
    return f"data/processed/{wildcards.study}/{study['training_setup']}/{split}.nc"


def closure_train(wildcards):
    return closure_split(wildcards, "train")


def closure_validation(wildcards):
    return closure_split(wildcards, "validation")


def fit_params(wildcards):
    study = _closure_study(wildcards)
    return {
        "spec": study["closures"][wildcards.closure],
        "target": study["coarse"]["target"],
        "training": study["training"],
    }


def setup_order(study):
    """The training setup first, then the others in config order."""
    first = study["training_setup"]
    return [first] + [s for s in study["setups"] if s != first]


def closure_tests(wildcards):
    study = _closure_study(wildcards)
    return {
        s: f"data/processed/{wildcards.study}/{s}/test.nc" for s in setup_order(study)
    }


def closure_climates(wildcards):
    study = _closure_study(wildcards)
    return {s: f"data/raw/{wildcards.study}/{s}/climate.nc" for s in setup_order(study)}


def scatter_points(wildcards):
    return _closure_study(wildcards)["figures"]["scatter_points"]


def online_params(wildcards):
    study = _closure_study(wildcards)
    return {
        "forcings": study["setups"],
        "online": {**study["online"], "time_step": study["coarse"]["time_step"]},
        "forecast": study["forecast"],
        "spinup_time": study["truth"]["spinup_time"],
        "seed": study["seed"],
    }


def floor_params(wildcards):
    return {"online": _closure_study(wildcards)["online"]}


def closure_keys(study):
    return list(CLOSURE_STUDIES[study]["closures"])


def closure_metric_files(wildcards, kind):
    """Per-closure metrics of one kind (offline or online); online includes the floor."""
    names = closure_keys(wildcards.study) + (["truth"] if kind == "online" else [])
    return [f"results/{wildcards.study}/metrics/{kind}/{c}.csv" for c in names]


def offline_metric_files(wildcards):
    return closure_metric_files(wildcards, "offline")


def online_metric_files(wildcards):
    return closure_metric_files(wildcards, "online")


def closure_curve_files(wildcards):
    study, names = wildcards.study, closure_keys(wildcards.study)
    return {
        "offline": [f"results/{study}/curves/offline/{c}.nc" for c in names],
        "online": [f"results/{study}/curves/online/{c}.nc" for c in names + ["truth"]],
    }


def closure_figure_params(wildcards):
    study = _closure_study(wildcards)
    return {
        "title": study["title"],
        "training_setup": study["training_setup"],
        "forcings": study["setups"],
    }
