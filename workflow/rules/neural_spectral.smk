# Neural-spectral studies: each problem's test inputs, reference and supervised pairs, one
# training run per (problem, method, seed), the errors and speed tables and the figure
# (pderepro.studies.neural_spectral).
from pderepro.studies import neural_spectral, neural_spectral_inputs


rule nsm_data:
    output:
        neural_spectral.DATA,
    log:
        "results/logs/nsm_data/{study}/{problem}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("neural_spectral")),
        problem=matching(neural_spectral_inputs.problem_keys(PLAN)),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_nsm_data",
            job=lambda output: {"output": output[0]},
            settings=from_plan(neural_spectral_inputs.data_params),
        ),
    script:
        STAGE_SCRIPT


rule train_nsm:
    input:
        unpack(from_plan(neural_spectral_inputs.train_inputs)),
        # a run longer than cluster.max_job_minutes: this job is its last segment
        resume=from_plan(run_segments.NSM.previous_segment),
    output:
        **neural_spectral.RUN_FILES,
    log:
        "results/logs/train_nsm/{study}/{problem}/{method}/seed{seed}.log",
    benchmark:
        BENCHMARKS["train_nsm"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("neural_spectral")),
        problem=matching(neural_spectral_inputs.problem_keys(PLAN)),
        method=matching(neural_spectral_inputs.method_keys(PLAN)),
    conda:
        ENV
    threads: 1
    resources:
        gpu=from_plan(neural_spectral_inputs.train_gpus),
        runtime=from_plan(run_segments.NSM.segment_runtime),
        mem_mb=from_plan(neural_spectral_inputs.train_mem_mb),
    params:
        **stage_params(
            "run_train_nsm",
            job=lambda wildcards, input, output: {
                **nsm_run_job(wildcards, input),
                "outputs": dict(output.items()),
            },
            settings=lambda wildcards: {
                "settings": from_plan(neural_spectral_inputs.train_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


# The segments before the last of a run longer than cluster.max_job_minutes: each trains
# up to its stop iteration from the previous one's state and saves its own.
rule train_nsm_segment:
    input:
        unpack(from_plan(neural_spectral_inputs.train_inputs)),
        resume=from_plan(run_segments.NSM.previous_segment),
    output:
        state=run_segments.SEGMENT,
    log:
        "results/logs/train_nsm_segment/{study}/{problem}/{method}/seed{seed}/segment{segment}.log",
    benchmark:
        BENCHMARKS["train_nsm_segment"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("neural_spectral")),
        problem=matching(neural_spectral_inputs.problem_keys(PLAN)),
        method=matching(neural_spectral_inputs.method_keys(PLAN)),
    conda:
        ENV
    threads: 1
    resources:
        gpu=from_plan(neural_spectral_inputs.train_gpus),
        runtime=from_plan(run_segments.NSM.segment_runtime),
        mem_mb=from_plan(neural_spectral_inputs.train_mem_mb),
    params:
        **stage_params(
            "run_train_nsm",
            job=lambda wildcards, input, output: {
                **nsm_run_job(wildcards, input),
                "outputs": {},
                "state": output.state,
            },
            settings=lambda wildcards: {
                "settings": from_plan(neural_spectral_inputs.train_params)(wildcards),
                "stop_step": from_plan(run_segments.NSM.stop_step)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule nsm_tables:
    input:
        metrics=from_plan(neural_spectral_inputs.metric_files),
        data=from_plan(neural_spectral_inputs.data_files),
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in neural_spectral.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/nsm_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("neural_spectral")),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_nsm_tables",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "data": list(input.data),
                "outputs": dict(output.items()),
            },
            settings=from_plan(neural_spectral_inputs.tables_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_nsm:
    input:
        histories=from_plan(neural_spectral_inputs.history_files),
    output:
        png="results/{study}/figures/{figure}.png",
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "results/logs/plot_nsm/{study}/{figure}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("neural_spectral")),
        figure=matching(neural_spectral.FIGURES),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_nsm",
            job=lambda input, output: {
                "histories": list(input.histories),
                "outputs": dict(output.items()),
            },
            settings=from_plan(neural_spectral_inputs.figure_params),
        ),
    script:
        STAGE_SCRIPT
