# One training job per study, model, resolution and seed.


rule train_model:
    input:
        train=from_plan(resolution.processed_train),
        validation=from_plan(resolution.processed_validation),
        stats=from_plan(resolution.processed_stats),
        # a training longer than cluster.max_job_minutes: this job is its last segment
        resume=from_plan(training_segments.previous_segment),
    output:
        checkpoint="results/{study}/models/{model}/res{res}/seed{seed}/checkpoint.pt",
        history="results/{study}/models/{model}/res{res}/seed{seed}/history.csv",
    log:
        "results/logs/train_model/{study}/{model}/res{res}/seed{seed}.log",
    benchmark:
        BENCHMARKS["train_model"]
    conda:
        ENV
    # one thread per process: on these models two 1-thread jobs beat one 2-thread job
    threads: from_plan(resolution.train_devices)
    resources:
        gpu=from_plan(resolution.train_devices),
        mem_mb=from_plan(resolution.train_mem_mb),
        runtime=from_plan(training_segments.train_runtime),
    params:
        **stage_params(
            "run_train",
            job=lambda wildcards, input, output, threads: {
                **training_job(wildcards, input, threads),
                "checkpoint": output.checkpoint,
                "history": output.history,
                "stop_epoch": None,
            },
            settings=from_plan(resolution.train_params),
        ),
    script:
        STAGE_SCRIPT


# The segments before the last of a training longer than cluster.max_job_minutes: each
# trains up to its stop epoch from the previous one's state and saves its own.
rule train_segment:
    input:
        train=from_plan(resolution.processed_train),
        validation=from_plan(resolution.processed_validation),
        stats=from_plan(resolution.processed_stats),
        resume=from_plan(training_segments.previous_segment),
    output:
        state=training_segments.SEGMENT,
    log:
        "results/logs/train_segment/{study}/{model}/res{res}/seed{seed}/segment{segment}.log",
    benchmark:
        BENCHMARKS["train_segment"]
    conda:
        ENV
    threads: from_plan(resolution.train_devices)
    resources:
        gpu=from_plan(resolution.train_devices),
        mem_mb=from_plan(resolution.train_mem_mb),
        runtime=from_plan(training_segments.train_runtime),
    params:
        **stage_params(
            "run_train",
            job=lambda wildcards, input, output, threads: {
                **training_job(wildcards, input, threads),
                "checkpoint": output.state,
                "history": None,
            },
            settings=lambda wildcards: {
                **from_plan(resolution.train_params)(wildcards),
                "stop_epoch": from_plan(training_segments.stop_epoch)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT
