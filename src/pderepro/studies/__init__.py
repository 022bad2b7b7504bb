"""L5: study kinds, one module each, and the plan of the whole workflow.

A study file names its ``kind``; the kind (:mod:`.resolution`, :mod:`.regimes`,
:mod:`.closures`, :mod:`.parametric`, :mod:`.physics_informed`, :mod:`.random_features`,
:mod:`.neural_spectral`) owns the schema of such studies, the keys its presets may set,
its checks, what it expands into, its targets, summary section and cost model.
:func:`resolve_config` merges and validates the config; :func:`make_plan` turns it into
a :class:`Plan`, which the Snakefile and the tests use alike. A new kind is one module
registered in :data:`~pderepro.studies.kinds.KINDS`; :mod:`.resolve` checks the config.

Nothing here imports torch, xarray or dask: Snakemake imports it to build the DAG, in
every process and every cluster job.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pderepro.config import load_yaml
from pderepro.studies import neural_spectral, physics_informed, run_segments, truth_segments
from pderepro.studies.base import StudyKind
from pderepro.studies.claims import CLAIMS_TARGETS, active, claims_studies
from pderepro.studies.kinds import KINDS
from pderepro.studies.resolve import NESTED_PRESET_SECTIONS, config_schema, resolve_config
from pderepro.studies.training_segments import segment_jobs

__all__ = [
    "KINDS", "NESTED_PRESET_SECTIONS", "RESULTS_PAGE", "Plan", "config_schema", "make_plan",
    "repository_plan", "resolve_config",
]  # fmt: skip

#: Every table and figure on one self-contained HTML page.
RESULTS_PAGE = "results/report/index.html"
#: Files of the solver verification (``verification: true``).
VALIDATION_TARGETS = (
    "results/validation/solvers.csv",
    "results/validation/figures/convergence.png",
)


@dataclass(frozen=True)
class Plan:
    """What the workflow builds, from a resolved config.

    Attributes
    ----------
    config : dict
        The resolved config.
    studies : dict
        Enabled studies by name.
    units : dict
        Resolution units (built by the generate ... evaluate rules) by unit name: the
        resolution studies and the regimes of regimes studies.
    datasets : dict
        Every dataset the generate and merge rules make, by name.
    """

    config: dict[str, Any]
    studies: dict[str, dict[str, Any]]
    units: dict[str, dict[str, Any]]
    datasets: dict[str, dict[str, Any]]

    def kind(self, study: str) -> StudyKind:
        return KINDS[self.studies[study]["kind"]]

    def of_kind(self, kind: str) -> list[str]:
        """Names of the enabled studies of one kind."""
        return [n for n, s in self.studies.items() if s["kind"] == kind]

    def validation_targets(self) -> list[str]:
        return list(VALIDATION_TARGETS) if self.config["verification"] else []

    def targets(self) -> list[str]:
        """Every file of rule ``all``."""
        return [RESULTS_PAGE, "results/summary.md", *CLAIMS_TARGETS, *self.validation_targets()] + [
            t for name in self.studies for t in self.kind(name).targets(name, self.studies[name])
        ]

    def summary_sections(self) -> dict[str, dict[str, Any]]:
        """Per study: title, tables and metrics files, for ``results/summary.md``."""
        return {name: section.as_dict() for name, section in self._sections().items()}

    def _sections(self) -> dict[str, Any]:
        preset = self.config["preset"]
        return {
            name: self.kind(name).summary(name, study, preset)
            for name, study in self.studies.items()
        }

    def results_page(self) -> dict[str, dict[str, Any]]:
        """Per study: title, tables with captions and figures, for the results page."""
        return {name: section.page() for name, section in self._sections().items()}

    def results_page_inputs(self) -> list[str]:
        files = [
            f
            for page in self.results_page().values()
            for f in [t["path"] for t in page["report_tables"]] + page["figures"]
        ]
        return files + self.validation_targets()[:1]

    def summary_inputs(self) -> list[str]:
        files = [
            f
            for section in self.summary_sections().values()
            for f in section["tables"] + section["metrics"]
        ]
        return files + self.validation_targets()

    def job_counts(self) -> Counter[str]:
        """Jobs per rule of the whole workflow, as the kinds count them (datasets shared
        by two studies would count twice; none are)."""
        counts = Counter(summary=1, results_page=1, claims=1, all=1)
        if self.config["verification"]:
            counts["validate_solvers"] = 1
        for name, study in self.studies.items():
            counts += self.kind(name).jobs(name, study)
        # trainings longer than the cluster's longest job: their segments before the last
        counts["train_segment"] = sum(segment_jobs(self, n, u) for n, u in self.units.items())
        for kind, rule, segments, runs in (
            ("physics_informed", "train_pinn_segment", run_segments.PINN, physics_informed.runs),
            ("neural_spectral", "train_nsm_segment", run_segments.NSM, neural_spectral.runs),
        ):
            counts[rule] = sum(
                segments.segment_jobs(self, n, runs(s))
                for n, s in self.studies.items()
                if self.kind(n).name == kind
            )
        counts["generate_truth_segment"] = sum(
            truth_segments.segment_jobs(self, n) for n in self.of_kind("closures")
        )
        return +counts  # drop rules with no job

    def claims_studies(self) -> dict[str, dict[str, Any]]:
        """Per study file: its claims, whether it is enabled and the tables its claims
        read, for rule ``claims`` (:func:`~pderepro.studies.claims.claims_studies`)."""
        tables = {n: self.kind(n).claim_tables(n, s) for n, s in self.studies.items()}
        return claims_studies(self.config.get("claims", {}), tables, self.config.get("budgets", {}))

    def claims_inputs(self) -> list[str]:
        """The tables read by the enabled studies' claims active at the preset."""
        preset = self.config["preset"]
        files = [
            study["tables"][claim["check"]["table"]]
            for study in self.claims_studies().values()
            if study["enabled"]
            for claim in study["claims"]
            if active(claim, preset)
        ]
        return list(dict.fromkeys(files))

    def benchmark_files(self) -> list[str]:
        """Benchmark files of every job upstream of the summary (wall time per stage)."""
        files = [
            f
            for name, study in self.studies.items()
            for f in self.kind(name).benchmarks(name, study)
        ]
        return list(dict.fromkeys(files))


def repository_plan(root: str | Path, preset: str, studies: Sequence[str] | None = None) -> Plan:
    """The plan of a checkout's own configuration (``config/config.yaml`` under ``root``)
    at ``preset``, for ``studies`` (default: those config.yaml names): what benchmarks and
    tests plan, as the workflow would."""
    root = Path(root)
    config = {**load_yaml(root / "config/config.yaml"), "preset": preset}
    if studies is not None:
        config["studies"] = list(studies)
    resolved = resolve_config(
        config,
        config_dir=root / "config",
        schema_path=root / "workflow/schemas/config.schema.yaml",
    )
    return make_plan(resolved)


def make_plan(config: Mapping[str, Any]) -> Plan:
    """The :class:`Plan` of a resolved config (:func:`resolve_config`)."""
    studies = {name: config["study"][name] for name in config["studies"]}
    units: dict[str, dict[str, Any]] = {}
    datasets: dict[str, dict[str, Any]] = {}
    for name, study in studies.items():
        kind = KINDS[study["kind"]]
        units.update(kind.units(name, study))
        datasets.update(kind.datasets(name, study))
    for unit in units.values():
        datasets.setdefault(unit["dataset"]["name"], unit["dataset"])
    return Plan(config=dict(config), studies=studies, units=units, datasets=datasets)
