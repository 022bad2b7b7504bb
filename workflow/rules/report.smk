# results/summary.md: every table of every study, with preset, commit, device, wall times.


rule summary:
    input:
        tables=summary_inputs,
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
        preset=CONFIG["preset"],
        studies=summary_studies,
        validation=PLAN.validation_targets()[:1],
    script:
        "../scripts/summary.py"
