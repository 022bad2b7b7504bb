# Figures read evaluated metrics and predictions only, never models.


rule plot_resolution:
    input:
        table="results/{study}/tables/resolution.csv",
    output:
        png=report(
            "results/{study}/figures/error_vs_resolution.png",
            caption="../report/error_vs_resolution.rst",
            category="{study}",
        ),
        pdf="results/{study}/figures/error_vs_resolution.pdf",
    log:
        "results/logs/plot_resolution/{study}.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_resolution",
            job=lambda input, output: {"table": input.table, "figures": list(output)},
            settings=from_plan(resolution.figure_params),  # title
        ),
    script:
        STAGE_SCRIPT


rule plot_samples:
    input:
        from_plan(resolution.sample_prediction_files),
    output:
        png=report(
            "results/{study}/figures/samples.png",
            caption="../report/samples.rst",
            category="{study}",
        ),
        pdf="results/{study}/figures/samples.pdf",
    log:
        "results/logs/plot_samples/{study}.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_plot_samples",
            job=lambda input, output: {
                "predictions": list(input),
                "figures": list(output),
            },
            settings=lambda wildcards: {
                "n_samples": from_plan(resolution.n_kept_predictions)(wildcards),
            },
        ),
    script:
        STAGE_SCRIPT
