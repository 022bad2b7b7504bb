# What each surrogate costs: the solver timed at the surrogate's resolution, and a cost
# table per study with the break-even number of queries.


rule time_solver:
    output:
        "results/{study}/cost/solver_res{res}.csv",
    log:
        "results/logs/time_solver/{study}/res{res}.log",
    wildcard_constraints:
        study=matching(PLAN.units),
    conda:
        ENV
    threads: 1
    params:
        **stage_params(
            "run_time_solver",
            job=lambda wildcards, output, threads: {
                "resolution": int(wildcards.res),
                "output": output[0],
                "threads": threads,
            },
            settings=lambda wildcards: {
                "dataset": from_plan(cost.solver_timing_dataset)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule cost_table:
    input:
        from_plan(cost.cost_table_inputs),
    output:
        csv="results/{study}/tables/cost.csv",
        markdown="results/{study}/tables/cost.md",
    log:
        "results/logs/cost_table/{study}.log",
    wildcard_constraints:
        study=matching([*PLAN.of_kind("resolution"), *PLAN.of_kind("regimes")]),
    conda:
        ENV
    params:
        **stage_params(
            "run_cost_table",
            job=lambda output: {"csv": output.csv, "markdown": output.markdown},
            settings=from_plan(cost.cost_table_params),  # units, model_order, caption
        ),
    script:
        STAGE_SCRIPT
