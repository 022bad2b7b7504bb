# Data generation by the project's own solvers: a split of one shard is generated whole by
# assemble_split; a larger split is generated one job per shard and merged by it.


rule generate_shard:
    output:
        "data/raw/{dataset}/shards/{split}-{shard}.nc",
    log:
        "results/logs/generate_shard/{dataset}/{split}-{shard}.log",
    benchmark:
        BENCHMARKS["generate_shard"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(resolution.generate_mem_mb),
        runtime=from_plan(resolution.generate_runtime),
    params:
        **stage_params(
            "run_generate",
            job=lambda wildcards, output, threads: {
                "split": wildcards.split,
                "output": output[0],
                "threads": threads,
            },
            settings=lambda wildcards: {
                "dataset": from_plan(resolution.dataset_science)(wildcards),
                **from_plan(resolution.shard_range)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule assemble_split:
    input:
        from_plan(resolution.shard_files),
    output:
        "data/raw/{dataset}/{split}.nc",
    log:
        "results/logs/assemble_split/{dataset}/{split}.log",
    benchmark:
        BENCHMARKS["assemble_split"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(resolution.split_mem_mb),
        runtime=from_plan(resolution.split_runtime),
    params:
        **stage_params(
            "run_assemble_split",
            job=lambda wildcards, input, output, threads: {
                "split": wildcards.split,
                "shards": list(input),
                "output": output[0],
                "threads": threads,
            },
            settings=lambda wildcards: {
                "dataset": from_plan(resolution.dataset_science)(wildcards),
                "n_samples": from_plan(resolution.split_size)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT
