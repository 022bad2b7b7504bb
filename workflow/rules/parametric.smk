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
        run=from_plan(parametric_inputs.train_params),
    script:
        "../scripts/train_parametric.py"


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
        evaluation=from_plan(parametric_inputs.evaluate_params),
    script:
        "../scripts/evaluate_parametric.py"


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
        table=from_plan(parametric_inputs.tables_params),
    script:
        "../scripts/parametric_tables.py"


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
        title=from_plan(resolution.figure_params),
    script:
        "../scripts/plot_parametric.py"


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
        table=from_plan(parametric_inputs.basic_forms_params),
    script:
        "../scripts/basic_forms_table.py"


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
        title=from_plan(resolution.figure_params),
    script:
        "../scripts/plot_basic_forms.py"
