# Target lists of rule all and the summary's inputs, from the plan; no rules here.


def all_targets():
    return PLAN.targets()


def summary_inputs(wildcards):
    return PLAN.summary_inputs()


def summary_studies(wildcards):
    return PLAN.summary_sections()


def benchmark_files(wildcards):
    return PLAN.benchmark_files()


def results_page_inputs(wildcards):
    return PLAN.results_page_inputs()


def results_page_sections(wildcards):
    return PLAN.results_page()


def claims_inputs(wildcards):
    return PLAN.claims_inputs()


def claims_studies(wildcards):
    return PLAN.claims_studies()
