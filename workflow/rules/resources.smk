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


def generate_mem_mb(wildcards):
    cfg = DATASETS[wildcards.dataset]
    # float64 fields and about 30 solver temporaries per sample of the shard
    return BASE_MB + int(
        30 * 8 * cfg["shard_size"] * cfg["base_resolution"] / BYTES_PER_MB
    )


def generate_runtime(wildcards):
    cfg = DATASETS[wildcards.dataset]
    steps = round(cfg["t_final"] / cfg["time_step"])
    work = cfg["shard_size"] * cfg["base_resolution"] * steps
    return _minutes(work * BURGERS_S_PER_POINT_STEP)


def split_mb(dataset, split):
    """Size of one raw split in MB (two float32 fields per sample)."""
    cfg = DATASETS[dataset]
    return 2 * 4 * cfg[f"n_{split}"] * cfg["base_resolution"] / BYTES_PER_MB


def merge_mem_mb(wildcards):
    return BASE_MB + int(2 * split_mb(wildcards.dataset, wildcards.split))


def preprocess_mem_mb(wildcards):
    # dask streams chunks of samples; the statistics need one pass over train
    return BASE_MB + int(split_mb(wildcards.dataset, "train") / 4)


def train_mem_mb(wildcards):
    dataset = STUDIES[wildcards.study]["dataset"]
    data_mb = 2 * 4 * dataset["n_train"] * int(wildcards.res) / BYTES_PER_MB
    # data, activations of a batch (about 200 floats per grid point) and weights
    batch = STUDIES[wildcards.study]["training"]["batch_size"]
    return BASE_MB + int(data_mb + 200 * 4 * batch * int(wildcards.res) / BYTES_PER_MB)


def train_runtime(wildcards):
    study = STUDIES[wildcards.study]
    training = model_training(study, wildcards.model)
    work = training["epochs"] * study["dataset"]["n_train"] * int(wildcards.res)
    return _minutes(work * TRAIN_S_PER_POINT_EPOCH)


def train_devices(wildcards):
    """GPUs (or CPU processes) of a training job: its `training.devices`."""
    return model_training(STUDIES[wildcards.study], wildcards.model)["devices"]
