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
        n_keep=from_plan(resolution.n_kept_predictions),
    script:
        "../scripts/evaluate_model.py"


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
        baseline=from_plan(resolution.baseline_params),
        n_keep=from_plan(resolution.n_kept_predictions),
    script:
        "../scripts/evaluate_baseline.py"


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
        table=from_plan(resolution.table_params),
    script:
        "../scripts/make_table.py"


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
    script:
        "../scripts/validate_solvers.py"
