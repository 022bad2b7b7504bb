# Random-feature studies: one least-squares fit job per (dimension, seed) over every number
# of features, the errors and slopes tables, the figure (pderepro.studies.random_features).
from pderepro.studies import random_features


rule fit_random_features:
    output:
        random_features.METRICS,
    log:
        "results/logs/fit_random_features/{study}/{dimension}/seed{seed}.log",
    benchmark:
        BENCHMARKS["fit_random_features"]
    wildcard_constraints:
        study=matching(PLAN.of_kind("random_features")),
        dimension=matching(random_features.dimension_keys(PLAN)),
    conda:
        ENV
    threads: 1
    resources:
        runtime=from_plan(random_features.fit_runtime),
        mem_mb=from_plan(random_features.fit_mem_mb),
    params:
        **stage_params(
            "run_fit_random_features",
            job=lambda wildcards, output: {
                "output": output[0],
                "dimension_key": wildcards.dimension,
                "seed": int(wildcards.seed),
            },
            settings=lambda wildcards: {
                "settings": from_plan(random_features.fit_params)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT


rule random_features_tables:
    input:
        metrics=from_plan(random_features.metric_files),
    output:
        **{
            f"{t}_{ext}": f"results/{{study}}/tables/{t}.{ext}"
            for t in random_features.TABLES
            for ext in ("csv", "md")
        },
    log:
        "results/logs/random_features_tables/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("random_features")),
    conda:
        ENV
    params:
        **stage_params(
            "run_random_features_tables",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "outputs": dict(output.items()),
            },
            settings=from_plan(random_features.tables_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_random_features:
    input:
        metrics=from_plan(random_features.metric_files),
        slopes="results/{study}/tables/slopes.csv",
    output:
        png="results/{study}/figures/{figure}.png",
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "results/logs/plot_random_features/{study}/{figure}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("random_features")),
        figure=matching(random_features.FIGURES),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_random_features",
            job=lambda input, output: {
                "metrics": list(input.metrics),
                "slopes": input.slopes,
                "outputs": dict(output.items()),
            },
            settings=from_plan(random_features.figure_params),
        ),
    script:
        STAGE_SCRIPT
