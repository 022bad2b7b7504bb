# Target lists of rule all and the summary's inputs; no rules here.
from argparse import Namespace

FIGURE_FORMATS = ["png", "pdf"]


def study_targets(study):
    return [
        f"results/{study}/tables/resolution.csv",
        f"results/{study}/tables/resolution.md",
        *expand(
            "results/{study}/figures/error_vs_resolution.{ext}",
            study=study,
            ext=FIGURE_FORMATS,
        ),
        *expand(
            "results/{study}/figures/samples.{ext}", study=study, ext=FIGURE_FORMATS
        ),
    ]


def validation_targets():
    if not CONFIG["verification"]:
        return []
    return [
        "results/validation/solvers.csv",
        "results/validation/figures/convergence.png",
    ]


def all_targets():
    return ["results/summary.md", *validation_targets()] + [
        t for study in STUDIES for t in study_targets(study)
    ]


def benchmark_files(wildcards):
    """Benchmark files of every job upstream of the summary (wall time per stage)."""
    files = []
    for name, study in STUDIES.items():
        dataset = study["dataset"]
        for split in SPLITS:
            count = n_shards(dataset[f"n_{split}"], dataset["shard_size"])
            files += expand(
                "results/benchmarks/generate_shard/{dataset}/{split}-{shard}.tsv",
                dataset=dataset["name"],
                split=split,
                shard=range(count),
            )
        files += expand(
            "results/benchmarks/preprocess/{dataset}/res{res}.tsv",
            dataset=dataset["name"],
            res=study["resolutions"],
        )
        files += expand(
            "results/benchmarks/train_model/{study}/{model}/res{res}/seed{seed}.tsv",
            study=name,
            model=list(study["models"]),
            res=study["resolutions"],
            seed=seeds(name),
        )
    return files


def summary_studies(wildcards):
    """Per study: title, table and metrics paths, for results/summary.md."""
    return {
        name: {
            "title": study["title"],
            "tables": [f"results/{name}/tables/resolution.md"],
            "metrics": metric_files(Namespace(study=name)),
        }
        for name, study in STUDIES.items()
    }


def summary_inputs(wildcards):
    inputs = []
    for info in summary_studies(wildcards).values():
        inputs += info["tables"] + info["metrics"]
    return inputs + validation_targets()
