# Data generation by the project's own solvers, one job per shard of samples.


rule generate_shard:
    output:
        "data/raw/{dataset}/shards/{split}-{shard}.nc",
    log:
        "results/logs/generate_shard/{dataset}/{split}-{shard}.log",
    benchmark:
        "results/benchmarks/generate_shard/{dataset}/{split}-{shard}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=generate_mem_mb,
        runtime=generate_runtime,
    params:
        dataset=dataset_science,
        shard=shard_range,
    script:
        "../scripts/generate_shard.py"


rule merge_shards:
    input:
        shard_files,
    output:
        "data/raw/{dataset}/{split}.nc",
    log:
        "results/logs/merge_shards/{dataset}/{split}.log",
    conda:
        ENV
    resources:
        mem_mb=merge_mem_mb,
        runtime=10,
    script:
        "../scripts/merge_shards.py"
