# Generative-surrogate studies: solver samples -> one training job per (method, seed) that
# trains, samples and scores -> the no-learning rows -> the samples table and figure
# (pderepro.studies.generative).
from pderepro.studies import generative


rule generative_data:
    output:
        generative.DATA,
    log:
        "results/logs/generative_data/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("generative_surrogate")),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_generative_data",
            job=lambda output, threads: {"output": output[0], "threads": threads},
            settings=from_plan(generative.data_params),
        ),
    script:
        STAGE_SCRIPT


rule train_generative:
    input:
        data=generative.DATA,
    output:
        **generative.RUN_FILES,
    log:
        "results/logs/train_generative/{study}/{method}/seed{seed}.log",
    benchmark:
        BENCHMARKS["train_generative"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("generative_surrogate")),
        method=matching(generative.method_keys(PLAN)),
    conda:
        ENV
    threads: 1
    resources:
        gpu=from_plan(generative.train_gpus),
        runtime=from_plan(generative.train_runtime),
        mem_mb=from_plan(generative.train_mem_mb),
    params:
        **stage_params(
            "run_train_generative",
            job=lambda wildcards, input, output, threads: {
                "data": input.data,
                "outputs": dict(output.items()),
                "method_key": wildcards.method,
                "seed": int(wildcards.seed),
                "threads": threads,
            },
            settings=from_plan(generative.train_params),
        ),
    script:
        STAGE_SCRIPT


rule generative_references:
    input:
        data=generative.DATA,
    output:
        generative.REFERENCE_METRICS,
    log:
        "results/logs/generative_references/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("generative_surrogate")),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_generative_references",
            job=lambda input, output: {"data": input.data, "output": output[0]},
            settings=from_plan(generative.reference_params),
        ),
    script:
        STAGE_SCRIPT


rule generative_tables:
    input:
        metrics=from_plan(generative.metric_files),
        references=generative.REFERENCE_METRICS,
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in generative.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/generative_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("generative_surrogate")),
    conda:
        ENV
    params:
        **stage_params(
            "run_generative_tables",
            job=lambda input, output: {
                "metrics": [*input.metrics, input.references],
                "outputs": dict(output.items()),
            },
            settings=from_plan(generative.tables_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_generative:
    input:
        data=generative.DATA,
        samples=from_plan(generative.sample_files),
        table="results/{study}/tables/samples.csv",
    output:
        png="results/{study}/figures/generated_samples.png",
        pdf="results/{study}/figures/generated_samples.pdf",
    log:
        "results/logs/plot_generative/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("generative_surrogate")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_generative",
            job=lambda input, output: {
                "data": input.data,
                "samples": list(input.samples),
                "table": input.table,
                "outputs": dict(output.items()),
            },
            settings=from_plan(generative.figure_params),
        ),
    script:
        STAGE_SCRIPT
