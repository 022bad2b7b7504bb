# Physics-informed studies: a reference solution per problem, one training run per
# (problem, method, seed), the errors table and the figures (pderepro.studies.physics_informed).


rule pinn_reference:
    output:
        physics_informed.REFERENCE.format(study="{study}", problem="{problem}"),
    log:
        "results/logs/pinn_reference/{study}/{problem}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_pinn_reference",
            job=lambda output: {"output": output[0]},
            settings=from_plan(physics_informed_inputs.reference_params),
        ),
    script:
        STAGE_SCRIPT


rule train_pinn:
    input:
        unpack(from_plan(physics_informed_inputs.train_inputs)),
        # a run longer than cluster.max_job_minutes: this job is its last segment
        resume=from_plan(run_segments.PINN.previous_segment),
    output:
        **physics_informed.RUN_FILES,
    log:
        "results/logs/train_pinn/{study}/{problem}/{method}/seed{seed}.log",
    benchmark:
        BENCHMARKS["train_pinn"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
    conda:
        ENV
    threads: 1
    resources:
        gpu=from_plan(physics_informed_inputs.train_gpus),
        runtime=from_plan(run_segments.PINN.segment_runtime),
        mem_mb=from_plan(physics_informed_inputs.train_mem_mb),
    params:
        **stage_params(
            "run_train_pinn",
            job=lambda wildcards, input, output: {
                **pinn_run_job(wildcards, input),
                "outputs": dict(output.items()),
            },
            settings=lambda wildcards: {
                "settings": from_plan(physics_informed_inputs.train_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


# The segments before the last of a run longer than cluster.max_job_minutes: each trains
# up to its stop step (an Adam iteration or an L-BFGS block) from the previous one's state
# and saves its own.
rule train_pinn_segment:
    input:
        unpack(from_plan(physics_informed_inputs.train_inputs)),
        resume=from_plan(run_segments.PINN.previous_segment),
    output:
        state=run_segments.SEGMENT,
    log:
        "results/logs/train_pinn_segment/{study}/{problem}/{method}/seed{seed}/segment{segment}.log",
    benchmark:
        BENCHMARKS["train_pinn_segment"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
    conda:
        ENV
    threads: 1
    resources:
        gpu=from_plan(physics_informed_inputs.train_gpus),
        runtime=from_plan(run_segments.PINN.segment_runtime),
        mem_mb=from_plan(physics_informed_inputs.train_mem_mb),
    params:
        **stage_params(
            "run_train_pinn",
            job=lambda wildcards, input, output: {
                **pinn_run_job(wildcards, input),
                "outputs": {},
                "state": output.state,
            },
            settings=lambda wildcards: {
                "settings": from_plan(physics_informed_inputs.train_params)(wildcards),
                "stop_step": from_plan(run_segments.PINN.stop_step)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule pinn_tables:
    input:
        metrics=from_plan(physics_informed_inputs.metric_files),
        references=from_plan(physics_informed_inputs.reference_files),
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in physics_informed.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/pinn_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
    conda:
        ENV
    params:
        **stage_params(
            "run_pinn_tables",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "references": list(input.references),
                "outputs": dict(output.items()),
            },
            settings=from_plan(physics_informed_inputs.tables_params),
        ),
    script:
        STAGE_SCRIPT


rule pinn_scaling:
    input:
        metrics=from_plan(physics_informed_inputs.metric_files),
    output:
        csv=f"results/{{study}}/tables/{physics_informed.SCALING_TABLE}.csv",
        md=f"results/{{study}}/tables/{physics_informed.SCALING_TABLE}.md",
    log:
        "results/logs/pinn_scaling/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
    conda:
        ENV
    params:
        **stage_params(
            "run_pinn_scaling",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "outputs": dict(output.items()),
            },
            settings=from_plan(physics_informed_inputs.scaling_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_pinn:
    input:
        metrics=from_plan(physics_informed_inputs.metric_files),
        histories=from_plan(physics_informed_inputs.history_files),
        fields=from_plan(physics_informed_inputs.field_files),
        references=from_plan(physics_informed_inputs.reference_files),
    output:
        png="results/{study}/figures/{figure}.png",
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "results/logs/plot_pinn/{study}/{figure}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("physics_informed")),
        figure=matching(physics_informed.FIGURE_NAMES),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_pinn",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "histories": list(input.histories),
                "fields": list(input.fields),
                "references": list(input.references),
                "outputs": dict(output.items()),
            },
            settings=from_plan(physics_informed_inputs.figure_params),
        ),
    script:
        STAGE_SCRIPT
