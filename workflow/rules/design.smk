# Design studies: one job per task running every method on the same physics, the tasks
# and wins tables, the figures of the designs and of the compliance against evaluations
# (pderepro.studies.design).
from pderepro.studies import design


rule design_task:
    output:
        metrics=design.METRICS,
        designs=design.DESIGNS,
        histories=design.HISTORIES,
    log:
        "results/logs/design_task/{study}/{task}.log",
    benchmark:
        BENCHMARKS["design_task"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("design")),
        task=matching(design.task_keys(PLAN)),
    conda:
        ENV
    threads: 1
    resources:
        runtime=from_plan(design.task_runtime),
        mem_mb=from_plan(design.task_mem_mb),
    params:
        **stage_params(
            "run_design_task",
            job=lambda output, threads: {
                "metrics": output.metrics,
                "designs": output.designs,
                "histories": output.histories,
                "threads": threads,
            },
            settings=from_plan(design.task_args),
        ),
    script:
        STAGE_SCRIPT


rule design_tables:
    input:
        metrics=from_plan(design.metric_files),
        designs=from_plan(design.design_files),
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in design.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/design_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("design")),
    conda:
        ENV
    params:
        **stage_params(
            "run_design_tables",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "designs": list(input.designs),
                "outputs": dict(output.items()),
            },
            settings=from_plan(design.tables_args),
        ),
    script:
        STAGE_SCRIPT


rule plot_designs:
    input:
        designs=from_plan(design.design_files),
        tasks="results/{study}/tables/tasks.csv",
    output:
        png="results/{study}/figures/designs.png",
        pdf="results/{study}/figures/designs.pdf",
    log:
        "results/logs/plot_designs/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("design")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_designs",
            job=lambda input, output: {
                "designs": list(input.designs),
                "tasks": input.tasks,
                "outputs": dict(output.items()),
            },
            settings=from_plan(design.figure_args),
        ),
    script:
        STAGE_SCRIPT


rule plot_design_curves:
    input:
        histories=from_plan(design.history_files),
    output:
        png="results/{study}/figures/compliance_vs_evaluation.png",
        pdf="results/{study}/figures/compliance_vs_evaluation.pdf",
    log:
        "results/logs/plot_design_curves/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("design")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_design_curves",
            job=lambda input, output: {
                "histories": list(input.histories),
                "outputs": dict(output.items()),
            },
            settings=from_plan(design.figure_args),
        ),
    script:
        STAGE_SCRIPT
