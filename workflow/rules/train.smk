# One training job per study, model, resolution and seed.


rule train_model:
    input:
        train=processed_train,
        stats=processed_stats,
    output:
        checkpoint="results/{study}/models/{model}/res{res}/seed{seed}/checkpoint.pt",
        history="results/{study}/models/{model}/res{res}/seed{seed}/history.csv",
    log:
        "results/logs/train_model/{study}/{model}/res{res}/seed{seed}.log",
    benchmark:
        "results/benchmarks/train_model/{study}/{model}/res{res}/seed{seed}.tsv"
    conda:
        ENV
    # one thread per process: on these models two 1-thread jobs beat one 2-thread job
    threads: train_devices
    resources:
        gpu=train_devices,
        mem_mb=train_mem_mb,
        runtime=train_runtime,
    params:
        run=train_params,
    script:
        "../scripts/train_model.py"
