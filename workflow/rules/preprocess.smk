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
        **stage_params(
            "run_preprocess",
            job=lambda wildcards, input, output, threads: {
                "raw": {split: input[split] for split in resolution.SPLITS},
                "processed": {split: output[split] for split in resolution.SPLITS},
                "resolution": int(wildcards.res),
                "out_stats": output.stats,
                "threads": threads,
            },
        ),
    script:
        STAGE_SCRIPT
