# pderepro: rebuild the papers' tables and figures from raw inputs.
# What and where live here and in workflow/rules; how lives in src/pderepro.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/targets.smk"
include: "workflow/rules/generate.smk"
include: "workflow/rules/preprocess.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/closures.smk"
include: "workflow/rules/regimes.smk"
include: "workflow/rules/cost.smk"
include: "workflow/rules/parametric.smk"
include: "workflow/rules/physics_informed.smk"
include: "workflow/rules/random_features.smk"
include: "workflow/rules/neural_spectral.smk"
include: "workflow/rules/design.smk"
include: "workflow/rules/generative.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_targets(),
        REMADE,
