# Test-set metrics per run, and tables beside the published numbers.


rule evaluate_model:
    input:
        checkpoint="results/{study}/models/{model}/res{res}/seed{seed}/checkpoint.pt",
        test=from_plan(resolution.processed_test),
    output:
        metrics="results/{study}/metrics/{model}/res{res}/seed{seed}.csv",
        predictions="results/{study}/predictions/{model}/res{res}/seed{seed}.nc",
    log:
        "results/logs/evaluate_model/{study}/{model}/res{res}/seed{seed}.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_evaluate",
            job=lambda wildcards, input, output, threads: {
                "checkpoint": input.checkpoint,
                "test_path": input.test,
                "metrics": output.metrics,
                "predictions": output.predictions,
                "study": wildcards.study,
                "model": wildcards.model,
                "resolution": int(wildcards.res),
                "seed": int(wildcards.seed),
                "threads": threads,
            },
            settings=lambda wildcards: {
                "n_keep": from_plan(resolution.n_kept_predictions)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule evaluate_baseline:
    input:
        test=from_plan(resolution.processed_test),
        train=from_plan(resolution.processed_train),
    output:
        metrics="results/{study}/metrics/{model}/res{res}/reference.csv",
        predictions="results/{study}/predictions/{model}/res{res}/reference.nc",
    log:
        "results/logs/evaluate_baseline/{study}/{model}/res{res}.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_baseline",
            job=lambda wildcards, input, output: {
                "test_path": input.test,
                "train_path": input.train,
                "metrics": output.metrics,
                "predictions": output.predictions,
                "study": wildcards.study,
                "baseline": wildcards.model,
                "resolution": int(wildcards.res),
            },
            settings=lambda wildcards: {
                **from_plan(resolution.baseline_params)(wildcards),  # label, dataset
                "n_keep": from_plan(resolution.n_kept_predictions)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule make_table:
    input:
        from_plan(resolution.metric_files),
    output:
        csv="results/{study}/tables/resolution.csv",
        markdown="results/{study}/tables/resolution.md",
    log:
        "results/logs/make_table/{study}.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_table",
            job=lambda input, output: {
                "metrics": list(input),
                "csv": output.csv,
                "markdown": output.markdown,
            },
            # published, caption, n_train, model_order
            settings=from_plan(resolution.table_params),
        ),
    script:
        STAGE_SCRIPT


rule validate_solvers:
    output:
        csv="results/validation/solvers.csv",
        figure=report(
            "results/validation/figures/convergence.png",
            caption="../report/convergence.rst",
            category="Solver verification",
        ),
    log:
        "results/logs/validate_solvers.log",
    benchmark:
        BENCHMARKS["validate_solvers"]
    conda:
        ENV
    params:
        **stage_params(
            "run_validate_solvers",
            job=lambda output: {"csv": output.csv, "figures": [output.figure]},
        ),
    script:
        STAGE_SCRIPT
