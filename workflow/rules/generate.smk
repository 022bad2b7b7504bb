# Data generation by the project's own solvers, one job per shard of samples.


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


rule merge_shards:
    input:
        from_plan(resolution.shard_files),
    output:
        "data/raw/{dataset}/{split}.nc",
    log:
        "results/logs/merge_shards/{dataset}/{split}.log",
    conda:
        ENV
    resources:
        mem_mb=from_plan(resolution.merge_mem_mb),
        runtime=10,
    script:
        "../scripts/merge_shards.py"
