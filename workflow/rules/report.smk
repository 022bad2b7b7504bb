# results/summary.md: the claims, then every table of every study, with preset, commit,
# device, wall times; results/report/index.html: the claims, then every table and figure
# on one page, for snakemake --report. Both open with results/claims.csv (rule claims).


rule summary:
    input:
        tables=summary_inputs,
        claims=rules.claims.output.csv,
        benchmarks=benchmark_files,
    output:
        report(
            "results/summary.md", caption="../report/summary.rst", category="Summary"
        ),
    log:
        "results/logs/summary.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_summary",
            job=lambda input, output: {
                "output": output[0],
                "claims": input.claims,
                "benchmarks": list(input.benchmarks),
            },
            settings=lambda wildcards: {
                "preset": CONFIG["preset"],
                "studies": summary_studies(wildcards),
                "validation": (PLAN.validation_targets()[:1] or [None])[0],
            },
        ),
    script:
        STAGE_SCRIPT


rule results_page:
    input:
        results_page_inputs,
        claims=rules.claims.output.csv,
    output:
        report(RESULTS_PAGE, caption="../report/results_page.rst", category="Summary"),
    log:
        "results/logs/results_page.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_results_page",
            job=lambda input, output: {"output": output[0], "claims": input.claims},
            settings=lambda wildcards: {
                "preset": CONFIG["preset"],
                "sections": results_page_sections(wildcards),
                "validation": (PLAN.validation_targets()[:1] or [None])[0],
            },
        ),
    script:
        STAGE_SCRIPT
