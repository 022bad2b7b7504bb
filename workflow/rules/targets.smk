# Target lists of rule all and the summary's inputs; no rules here.

FIGURE_FORMATS = ["png", "pdf"]


def study_targets(study):
    if study in REGIME_STUDIES:
        return [
            f"results/{study}/tables/regimes.csv",
            f"results/{study}/tables/regimes.md",
            f"results/{study}/superresolution/metrics.csv",
            *expand(
                "results/{study}/figures/{name}.{ext}",
                study=study,
                name=["error_vs_time", "superresolution"],
                ext=FIGURE_FORMATS,
            ),
        ]
    if study in CLOSURE_STUDIES:
        return [
            f"results/{study}/tables/{kind}.{ext}"
            for kind in ("offline", "online")
            for ext in ("csv", "md")
        ] + expand(
            "results/{study}/figures/{name}.{ext}",
            study=study,
            name=CLOSURE_FIGURES,
            ext=FIGURE_FORMATS,
        )
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
        t for study in CONFIG["studies"] for t in study_targets(study)
    ]


def benchmark_files(wildcards):
    """Benchmark files of every job upstream of the summary (wall time per stage)."""
    files = []
    for name, study in CLOSURE_STUDIES.items():
        for setup in study["setups"]:
            files += expand(
                "results/benchmarks/generate_truth/{study}/{setup}/{role}.tsv",
                study=name,
                setup=setup,
                role=TRUTH_ROLES,
            )
            files.append(f"results/benchmarks/coarse_grain/{name}/{setup}.tsv")
        for stage in ("fit_closure", "evaluate_online"):
            files += expand(
                "results/benchmarks/{stage}/{study}/{closure}.tsv",
                stage=stage,
                study=name,
                closure=closure_keys(name),
            )
    for dataset in SUPERRES_DATASETS.values():
        files += expand(
            "results/benchmarks/generate_shard/{dataset}/test-{shard}.tsv",
            dataset=dataset["name"],
            shard=range(n_shards(dataset["n_test"], dataset["shard_size"])),
        )
    for name, study in RESOLUTION_STUDIES.items():
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
    studies = {}
    for name in CONFIG["studies"]:
        study = STUDIES[name]
        if name in CLOSURE_STUDIES:  # fitted and run on the CPU: no device column
            tables, metrics = ["offline", "online"], []
        elif name in REGIME_STUDIES:
            tables = ["regimes", "superresolution"]
            metrics = regime_metric_files(Namespace(study=name))
        else:
            tables, metrics = ["resolution"], metric_files(Namespace(study=name))
        studies[name] = {
            "title": study["title"],
            "tables": [f"results/{name}/tables/{t}.md" for t in tables],
            "metrics": metrics,
        }
    return studies


def summary_inputs(wildcards):
    inputs = []
    for info in summary_studies(wildcards).values():
        inputs += info["tables"] + info["metrics"]
    return inputs + validation_targets()
