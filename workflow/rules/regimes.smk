# Regimes studies (Navier-Stokes): each run regime is a resolution study <study>/<regime>
# built by the generate ... evaluate rules; these rules gather them into the regimes
# table and figures, and test FNO-3D's zero-shot super-resolution.


rule regimes_table:
    input:
        from_plan(regimes.regime_metric_files),
    output:
        csv="results/{study}/tables/regimes.csv",
        markdown="results/{study}/tables/regimes.md",
    log:
        "results/logs/regimes_table/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("regimes")),
    conda:
        ENV
    params:
        **stage_params(
            "run_regimes_table",
            job=lambda input, output: {
                "metrics": list(input),
                "csv": output.csv,
                "markdown": output.markdown,
            },
            # regimes, published, caption, model_order
            settings=from_plan(regimes.regimes_table_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_error_vs_time:
    input:
        from_plan(regimes.regime_prediction_files),
    output:
        png=report(
            "results/{study}/figures/error_vs_time.png",
            caption="../report/error_vs_time.rst",
            category="{study}",
        ),
        pdf="results/{study}/figures/error_vs_time.pdf",
    log:
        "results/logs/plot_error_vs_time/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("regimes")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_error_vs_time",
            job=lambda input, output: {
                "predictions": list(input),
                "figures": list(output),
            },
            settings=from_plan(regimes.error_vs_time_params),  # title, regimes
        ),
    script:
        STAGE_SCRIPT


rule evaluate_superresolution:
    input:
        checkpoint=from_plan(regimes.superres_checkpoint),
        test=from_plan(regimes.superres_test),
    output:
        metrics="results/{study}/superresolution/metrics.csv",
        markdown="results/{study}/tables/superresolution.md",
        predictions="results/{study}/superresolution/predictions.nc",
    log:
        "results/logs/evaluate_superresolution/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("regimes")),
    conda:
        ENV
    params:
        **stage_params(
            "run_evaluate_superresolution",
            job=lambda input, output: {
                "checkpoint": input.checkpoint,
                "test_path": input.test,
                "metrics": output.metrics,
                "markdown": output.markdown,
                "predictions": output.predictions,
            },
            settings=from_plan(regimes.superres_params),
        ),
    script:
        STAGE_SCRIPT


rule plot_superresolution:
    input:
        "results/{study}/superresolution/predictions.nc",
    output:
        png=report(
            "results/{study}/figures/superresolution.png",
            caption="../report/superresolution.rst",
            category="{study}",
        ),
        pdf="results/{study}/figures/superresolution.pdf",
    log:
        "results/logs/plot_superresolution/{study}.log",
    wildcard_constraints:
        study=matching(PLAN.of_kind("regimes")),
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_superresolution",
            job=lambda input, output: {
                "predictions": input[0],
                "figures": list(output),
            },
        ),
    script:
        STAGE_SCRIPT
