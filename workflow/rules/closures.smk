# Closure studies: truth runs -> coarse-grained pairs -> fitted closures -> offline and
# online (coupled) evaluation -> tables and figures.


# Global from here on: every rule in a file included after this one sees these (rules
# there that take a {study} set their own constraint).
wildcard_constraints:
    setup=r"[A-Za-z0-9_]+",
    role="|".join(closures.ROLES),
    study=matching(PLAN.of_kind("closures")),
    closure=r"(?!truth\b)[a-z0-9_]+",  # "truth" names the noise floor, not a closure


rule generate_truth:
    input:
        # a run longer than cluster.max_job_minutes: this job is its last segment
        resume=from_plan(truth_segments.previous_segments),
    output:
        "data/raw/{study}/{setup}/{role}.nc",
    log:
        "results/logs/generate_truth/{study}/{setup}/{role}.log",
    benchmark:
        BENCHMARKS["generate_truth"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(closures.truth_mem_mb),
        runtime=from_plan(truth_segments.segment_runtime),
    params:
        **stage_params(
            system_stage("generate_truth"),
            job=lambda wildcards, input, output, threads: {
                "role": wildcards.role,
                "output": output[0],
                "threads": threads,
                # only a resumable system's truth is ever cut (truth_segments)
                **({"resume": list(input.resume)} if input.resume else {}),
            },
            # the system, the setup's parameter, truth sizes, seed, title
            settings=from_plan(closures.truth_params),
        ),
    script:
        STAGE_SCRIPT


# The segments before the last of a truth run longer than cluster.max_job_minutes (the
# turbulence DNS): each steps from the previous one's state up to its stop step and saves
# its state and its own snapshots.
rule generate_truth_segment:
    input:
        resume=from_plan(truth_segments.previous_segments),
    output:
        state=truth_segments.SEGMENT,
    log:
        "results/logs/generate_truth_segment/{study}/{setup}/{role}/segment{segment}.log",
    benchmark:
        BENCHMARKS["generate_truth_segment"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(truth_segments.segment_mem_mb),
        runtime=from_plan(truth_segments.segment_runtime),
    params:
        **stage_params(
            system_stage("generate_truth"),
            job=lambda wildcards, input, output, threads: {
                "role": wildcards.role,
                "output": None,
                "threads": threads,
                "resume": list(input.resume),
                "state": output.state,
            },
            settings=lambda wildcards: {
                **from_plan(closures.truth_params)(wildcards),
                "stop_step": from_plan(truth_segments.stop_step)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule coarse_grain:
    input:
        "data/raw/{study}/{setup}/pairs.nc",
    output:
        **{s: f"data/processed/{{study}}/{{setup}}/{s}.nc" for s in closures.SPLITS},
    log:
        "results/logs/coarse_grain/{study}/{setup}.log",
    benchmark:
        BENCHMARKS["coarse_grain"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(closures.coarse_grain_mem_mb),
    params:
        **stage_params(
            system_stage("coarse_grain"),
            job=lambda input, output, threads: {
                "raw": input[0],
                "outputs": dict(output.items()),
                "threads": threads,
            },
            settings=from_plan(closures.coarse_grain_params),
        ),
    script:
        STAGE_SCRIPT


rule fit_closure:
    input:
        train=from_plan(closures.closure_train),
        validation=from_plan(closures.closure_validation),
    output:
        "results/{study}/closures/{closure}/closure.pt",
    log:
        "results/logs/fit_closure/{study}/{closure}.log",
    benchmark:
        BENCHMARKS["fit_closure"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(closures.closure_mem_mb),
        runtime=from_plan(closures.closure_fit_runtime),
    params:
        **stage_params(
            system_stage("fit_closure"),
            job=lambda wildcards, input, output, threads: {
                "train_path": input.train,
                "validation_path": input.validation,
                "checkpoint": output[0],
                "closure": wildcards.closure,
                "threads": threads,
            },
            # a system may take the study's seed
            settings=lambda wildcards: {
                "seed": 0,
                **from_plan(closures.fit_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule evaluate_offline:
    input:
        unpack(from_plan(closures.closure_tests)),
        checkpoint="results/{study}/closures/{closure}/closure.pt",
    output:
        metrics="results/{study}/metrics/offline/{closure}.csv",
        curves="results/{study}/curves/offline/{closure}.nc",
    log:
        "results/logs/evaluate_offline/{study}/{closure}.log",
    conda:
        ENV
    params:
        **stage_params(
            system_stage("evaluate_offline"),
            job=lambda wildcards, input, output: {
                "checkpoint": input.checkpoint,
                "metrics": output.metrics,
                "curves": output.curves,
                "closure": wildcards.closure,
            },
            settings=lambda wildcards: {
                "tests": from_plan(closures.closure_tests)(wildcards),
                "n_scatter": from_plan(closures.scatter_points)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule evaluate_online:
    input:
        unpack(from_plan(closures.closure_climates)),
        checkpoint="results/{study}/closures/{closure}/closure.pt",
    output:
        metrics="results/{study}/metrics/online/{closure}.csv",
        curves="results/{study}/curves/online/{closure}.nc",
    log:
        "results/logs/evaluate_online/{study}/{closure}.log",
    benchmark:
        BENCHMARKS["evaluate_online"]
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=from_plan(closures.closure_mem_mb),
        runtime=from_plan(closures.online_runtime),
    params:
        **stage_params(
            system_stage("evaluate_online"),
            job=lambda wildcards, input, output, threads: {
                "checkpoint": input.checkpoint,
                "closure": wildcards.closure,
                "metrics": output.metrics,
                "curves": output.curves,
                "threads": threads,
            },
            settings=lambda wildcards: {
                "climates": from_plan(closures.closure_climates)(wildcards),
                **from_plan(closures.online_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


# the truth-vs-truth noise floor: a second truth ensemble scored like a closure
rule truth_floor:
    input:
        unpack(from_plan(closures.closure_climates)),
    output:
        metrics="results/{study}/metrics/online/truth.csv",
        curves="results/{study}/curves/online/truth.nc",
    log:
        "results/logs/truth_floor/{study}.log",
    conda:
        ENV
    params:
        **stage_params(
            system_stage("truth_floor"),
            job=lambda output: {"metrics": output.metrics, "curves": output.curves},
            settings=lambda wildcards: {
                "climates": from_plan(closures.closure_climates)(wildcards),
                **from_plan(closures.floor_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule closure_tables:
    input:
        offline=from_plan(closures.offline_metric_files),
        online=from_plan(closures.online_metric_files),
    output:
        **{
            f"{kind}_{ext}": f"results/{{study}}/tables/{kind}.{ext}"
            for kind in ("offline", "online")
            for ext in ("csv", "md")
        },
    log:
        "results/logs/closure_tables/{study}.log",
    conda:
        ENV
    params:
        **stage_params(
            system_stage("closure_tables"),
            job=lambda input, output: {
                "offline": list(input.offline),
                "online": list(input.online),
                "outputs": dict(output.items()),
            },
            settings=plan_items(closures.scoring_params, online_settings="online"),
        ),
    script:
        STAGE_SCRIPT


# one figure rule per truth system: each has its own figures (closures.SYSTEM_FIGURES)
for _solver, _figures in closures.SYSTEM_FIGURES.items():

    rule:
        name:
            f"plot_closures_{_solver}"
        input:
            unpack(from_plan(closures.closure_curve_files)),
            table="results/{study}/tables/online.csv",
        output:
            **{
                f"{name}_png": report(
                    f"results/{{study}}/figures/{name}.png",
                    caption=f"../report/{name}.rst",
                    category="{study}",
                )
                for name in _figures
            },
            **{f"{n}_pdf": f"results/{{study}}/figures/{n}.pdf" for n in _figures},
        log:
            f"results/logs/plot_closures_{_solver}/{{study}}.log",
        wildcard_constraints:
            study=matching(closures.studies_of_system(PLAN, _solver)),
        conda:
            ENV
        params:
            **stage_params(
                CLOSURE_STAGES[_solver]["plot_closures"],
                job=lambda input, output: {
                    "offline": list(input.offline),
                    "online": list(input.online),
                    "table": input.table,
                    "outputs": dict(output.items()),
                },
                settings=from_plan(closures.closure_figure_params),
            ),
        script:
            STAGE_SCRIPT
