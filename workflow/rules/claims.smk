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
        preset=CONFIG["preset"],
        studies=claims_studies,
    script:
        "../scripts/claims.py"
