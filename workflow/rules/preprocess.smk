# xarray + dask: subsample to each resolution; normalisation statistics from train only.


rule preprocess:
    input:
        **{s: f"data/raw/{{dataset}}/{s}.nc" for s in resolution.SPLITS},
    output:
        **{
            s: f"data/processed/{{dataset}}/res{{res}}/{s}.nc"
            for s in resolution.SPLITS
        },
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
    params:
        splits=resolution.SPLITS,
    script:
        "../scripts/preprocess.py"
