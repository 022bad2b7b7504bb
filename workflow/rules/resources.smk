# Cluster resources derived from the preset's sizes (not typed per preset). Costs are
# measured on a 2-core CPU (REFERENCES.md §4 and our benchmarks) with a 3x margin; a
# profile can still override any of them with set-resources.

BYTES_PER_MB = 1e6
# Python + torch + xarray in a job process (RSS measured about 400 MB)
BASE_MB = 1000
# ETDRK4 Burgers: about 2e-11 s per sample, grid point and time step on one core
BURGERS_S_PER_POINT_STEP = 2e-11
# FNO-1D training: about 7.4e-9 s per sample, grid point and epoch on one CPU core
TRAIN_S_PER_POINT_EPOCH = 7.4e-9
MARGIN = 3


def _minutes(seconds):
    return max(10, int(MARGIN * seconds / 60) + 1)


# Darcy: sparse direct solve, about 5e-6 s per grid point (s^2) at s = 421 on one core
DARCY_S_PER_POINT = 5e-6
# Navier-Stokes: about 2e-8 s per sample, grid point and step at 64^2 on one core
NS_S_PER_POINT_STEP = 2e-8
# 2-D models (FNO-2D/3D, U-Net, ResNet): about 1e-5 s per sample, output point and epoch
TRAIN_2D_S_PER_POINT_EPOCH = 1e-5


def _points(cfg):
    """Grid points of one sample's fields on the solver grid."""
    return cfg["base_resolution"] ** (1 if cfg["solver"] == "burgers" else 2)


def generate_mem_mb(wildcards):
    cfg = DATASETS[wildcards.dataset]
    # float64 fields and about 30 solver temporaries per grid point, plus the stored
    # float32 values of the shard
    stored = cfg["shard_size"] * values_per_sample(cfg) * 4
    return BASE_MB + int(
        (30 * 8 * cfg["shard_size"] * _points(cfg) + stored) / BYTES_PER_MB
    )


def generate_runtime(wildcards):
    cfg = DATASETS[wildcards.dataset]
    points = cfg["shard_size"] * _points(cfg)
    if cfg["solver"] == "darcy":
        return _minutes(points * DARCY_S_PER_POINT)
    steps = round(cfg["t_final"] / cfg["time_step"])
    rate = (
        BURGERS_S_PER_POINT_STEP if cfg["solver"] == "burgers" else NS_S_PER_POINT_STEP
    )
    return _minutes(points * steps * rate)


def split_mb(dataset, split):
    """Size of one raw split in MB (float32 input and target fields)."""
    cfg = DATASETS[dataset]
    return 4 * cfg[f"n_{split}"] * values_per_sample(cfg) / BYTES_PER_MB


def merge_mem_mb(wildcards):
    return BASE_MB + int(2 * split_mb(wildcards.dataset, wildcards.split))


def preprocess_mem_mb(wildcards):
    # dask streams chunks of samples; the statistics need one pass over train
    return BASE_MB + int(split_mb(wildcards.dataset, "train") / 4)


def _sample_points(study, res):
    """Values of one processed sample (input and target) at resolution ``res``."""
    dataset = study["dataset"]
    scale = (res / dataset["base_resolution"]) ** (
        1 if dataset["solver"] == "burgers" else 2
    )
    return values_per_sample(dataset) * scale


def train_mem_mb(wildcards):
    study = STUDIES[wildcards.study]
    points = _sample_points(study, int(wildcards.res))
    data_mb = 4 * study["dataset"]["n_train"] * points / BYTES_PER_MB
    # data, activations of a batch (about 200 floats per value) and weights
    batch = study["training"]["batch_size"]
    return BASE_MB + int(data_mb + 200 * 4 * batch * points / BYTES_PER_MB)


def train_runtime(wildcards):
    study = STUDIES[wildcards.study]
    training = model_training(study, wildcards.model)
    points = _sample_points(study, int(wildcards.res))
    rate = (
        TRAIN_S_PER_POINT_EPOCH
        if study["dataset"]["solver"] == "burgers"
        else TRAIN_2D_S_PER_POINT_EPOCH
    )
    return _minutes(training["epochs"] * study["dataset"]["n_train"] * points * rate)


def train_devices(wildcards):
    """GPUs (or CPU processes) of a training job: its `training.devices`."""
    return model_training(STUDIES[wildcards.study], wildcards.model)["devices"]


# ---- closure studies -------------------------------------------------------------------
# Lorenz-96 truth: about 5e-6 s per trajectory and RK4 step on one core (numba)
L96_S_PER_TRAJ_STEP = 5e-6
# network closure fits: about 6e-5 s per training ring and epoch (FNO, one core)
CLOSURE_S_PER_RING_EPOCH = 6e-5
# coarse model with the FNO closure: about 2e-3 s per step of a batch of 100 runs
ONLINE_S_PER_STEP = 2e-3


def truth_mem_mb(wildcards):
    study = CLOSURE_STUDIES[wildcards.study]
    members, time, interval = truth_run_size(study["truth"], wildcards.role)
    K, J = study["system"]["K"], study["system"]["J"]
    per_state = K * (J + 1 if wildcards.role == "pairs" else 1)
    # float32 run plus the NetCDF writer's copy
    return BASE_MB + int(2 * 4 * members * time / interval * per_state / BYTES_PER_MB)


def truth_runtime(wildcards):
    study = CLOSURE_STUDIES[wildcards.study]
    members, time, _ = truth_run_size(study["truth"], wildcards.role)
    n_steps = (time + study["truth"]["spinup_time"]) / study["system"]["time_step"]
    return _minutes(members * n_steps * L96_S_PER_TRAJ_STEP)


def _train_rings(study):
    truth = study["truth"]
    return (
        truth["pair_trajectories"] * truth["pair_time"] / study["coarse"]["time_step"]
    )


def coarse_grain_mem_mb(wildcards):
    # dask streams chunks of 2000 saved times; each split is written from them
    study = CLOSURE_STUDIES[wildcards.study]
    return BASE_MB + int(
        3 * 4 * _train_rings(study) * study["system"]["K"] / BYTES_PER_MB
    )


def closure_mem_mb(wildcards):
    study = CLOSURE_STUDIES[wildcards.study]
    truth = study["truth"]
    climate = 2 * truth["climate_members"] * truth["climate_time"]
    climate *= len(study["setups"]) / truth["climate_save_interval"]
    states = 3 * _train_rings(study) + 2 * climate
    return BASE_MB + int(4 * 4 * states * study["system"]["K"] / BYTES_PER_MB)


def closure_fit_runtime(wildcards):
    study = CLOSURE_STUDIES[wildcards.study]
    epochs = study["training"]["epochs"]
    return _minutes(epochs * _train_rings(study) * CLOSURE_S_PER_RING_EPOCH)


def online_runtime(wildcards):
    study = CLOSURE_STUDIES[wildcards.study]
    truth, forecast = study["truth"], study["forecast"]
    dt, setups = study["coarse"]["time_step"], len(study["setups"])

    def seconds(steps, batch):  # the cost per step grows with the batch beyond 100 runs
        return steps * ONLINE_S_PER_STEP * max(1.0, batch / 100)

    climate_steps = (truth["climate_time"] + truth["spinup_time"]) / dt
    climate = seconds(climate_steps, setups * truth["climate_members"])
    forecasts = seconds(
        forecast["lead_time"] / dt, setups * forecast["starts"] * forecast["members"]
    )
    return _minutes(climate + forecasts)
