# Parametric studies: one-step autoregressive surrogates trained across parameter values
# (cape protocol) or per value (pdebench protocol), rolled out on the test trajectories.


rule train_parametric:
    input:
        unpack(from_plan(parametric_inputs.train_inputs)),
    output:
        checkpoint="results/{study}/{pde}/models/{run}/seed{seed}/checkpoint.pt",
        history="results/{study}/{pde}/models/{run}/seed{seed}/history.csv",
    log:
        "results/logs/train_parametric/{study}/{pde}/{run}/seed{seed}.log",
    benchmark:
        BENCHMARKS["train_parametric"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(parametric_inputs.train_mem_mb),
        runtime=from_plan(parametric_inputs.train_runtime),
    params:
        **stage_params(
            "run_train_parametric",
            job=lambda wildcards, input, output, threads: {
                "train_paths": list(input.train),
                "validation_paths": list(input.validation),
                "checkpoint": output.checkpoint,
                "history": output.history,
                "pde": wildcards.pde,
                "model": wildcards.run,
                "seed": int(wildcards.seed),
                "threads": threads,
            },
            # spec, training, protocol, parameter, fractions
            settings=from_plan(parametric_inputs.train_params),
        ),
    script:
        STAGE_SCRIPT


rule evaluate_parametric:
    input:
        checkpoint="results/{study}/{pde}/models/{run}/seed{seed}/checkpoint.pt",
        test=from_plan(parametric_inputs.evaluate_inputs),
    output:
        metrics="results/{study}/{pde}/metrics/{run}/seed{seed}.csv",
        per_step="results/{study}/{pde}/per_step/{run}/seed{seed}.csv",
        predictions="results/{study}/{pde}/predictions/{run}/seed{seed}.nc",
    log:
        "results/logs/evaluate_parametric/{study}/{pde}/{run}/seed{seed}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_evaluate_parametric",
            job=lambda input, output, threads: {
                "checkpoint": input.checkpoint,
                "test_paths": list(input.test),
                "metrics": output.metrics,
                "per_step": output.per_step,
                "predictions": output.predictions,
                "threads": threads,
            },
            settings=plan_items(
                parametric_inputs.evaluate_params, seen_values="seen", n_keep="n_keep"
            ),
        ),
    script:
        STAGE_SCRIPT


rule parametric_tables:
    input:
        from_plan(parametric_inputs.metric_files),
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in parametric.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/parametric_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    params:
        **stage_params(
            "run_parametric_tables",
            job=lambda input, output: {
                "metrics": list(input),
                "outputs": dict(output.items()),
            },
            settings=from_plan(parametric_inputs.tables_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_parametric:
    input:
        parameters="results/{study}/tables/parameters.csv",
        per_step=from_plan(parametric_inputs.per_step_files),
        predictions=from_plan(parametric_inputs.rollout_files),
    output:
        **{
            f"{f}_{ext}": f"results/{{study}}/figures/{f}.{ext}"
            for f in parametric.FIGURES
            for ext in ("png", "pdf")
        },
    log:
        "results/logs/plot_parametric/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_parametric",
            job=lambda input, output: {
                "parameters": input.parameters,
                "per_step": list(input.per_step),
                "predictions": list(input.predictions),
                "outputs": dict(output.items()),
            },
            settings=from_plan(resolution.figure_params),  # title
        ),
    script:
        STAGE_SCRIPT


rule basic_forms_table:
    input:
        from_plan(parametric_inputs.basic_forms_metric_files),
    output:
        csv="results/{study}/tables/basic_forms.csv",
        md="results/{study}/tables/basic_forms.md",
    log:
        "results/logs/basic_forms_table/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    params:
        **stage_params(
            "run_basic_forms_table",
            job=lambda input, output: {
                "metrics": list(input),
                "csv": output.csv,
                "markdown": output.md,
            },
            settings=from_plan(parametric_inputs.basic_forms_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_basic_forms:
    input:
        "results/{study}/tables/basic_forms.csv",
    output:
        png="results/{study}/figures/basic_forms.png",
        pdf="results/{study}/figures/basic_forms.pdf",
    log:
        "results/logs/plot_basic_forms/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("parametric")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_basic_forms",
            job=lambda input, output: {
                "table": input[0],
                "png": output.png,
                "pdf": output.pdf,
            },
            settings=from_plan(resolution.figure_params),  # title
        ),
    script:
        STAGE_SCRIPT
