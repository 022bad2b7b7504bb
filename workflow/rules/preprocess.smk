# xarray + dask: subsample to each resolution; normalisation statistics from train only.


rule preprocess:
    input:
        train="data/raw/{dataset}/train.nc",
        test="data/raw/{dataset}/test.nc",
    output:
        train="data/processed/{dataset}/res{res}/train.nc",
        test="data/processed/{dataset}/res{res}/test.nc",
        stats="data/processed/{dataset}/res{res}/stats.nc",
    log:
        "results/logs/preprocess/{dataset}/res{res}.log",
    benchmark:
        BENCHMARKS["preprocess"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(resolution.preprocess_mem_mb),
        runtime=15,
    script:
        "../scripts/preprocess.py"
