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
        dataset=from_plan(resolution.dataset_science),
        shard=from_plan(resolution.shard_range),
    script:
        "../scripts/generate_shard.py"


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
        dataset=from_plan(resolution.dataset_science),
        n_samples=from_plan(resolution.split_size),
    script:
        "../scripts/assemble_split.py"
