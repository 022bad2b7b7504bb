# results/claims.{csv,md}: each paper claim of every study file, checked over the enabled
# studies' tables (pderepro.evaluation.claims); claims of other studies are "not run".


rule claims:
    input:
        claims_inputs,
    output:
        csv=report(
            "results/claims.csv", caption="../report/claims.rst", category="Summary"
        ),
        markdown="results/claims.md",
    log:
        "results/logs/claims.log",
    conda:
        ENV
    params:
        **stage_params(
            "run_claims",
            job=lambda output: {"csv": output.csv, "markdown": output.markdown},
            settings=lambda wildcards: {
                "studies": claims_studies(wildcards),
                "preset": CONFIG["preset"],
            },
        ),
    script:
        STAGE_SCRIPT
