"""L5: study kinds, one module each, and the plan of the whole workflow.

A study file names its ``kind``; the kind (:mod:`.resolution`, :mod:`.regimes`,
:mod:`.closures`, :mod:`.parametric`) owns the schema of such studies, the keys its
presets may set, its checks, what it expands into, its targets, summary section and cost model.
:func:`resolve_config` merges and validates the config; :func:`make_plan` turns it into
a :class:`Plan`, which the Snakefile and the tests use alike. A new kind is one module
registered in :data:`KINDS`.

Nothing here imports torch, xarray or dask: Snakemake imports it to build the DAG, in
every process and every cluster job.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pderepro.config import (
    ConfigError,
    canonical,
    check_finite,
    deep_merge,
    load_yaml,
    validate,
)
from pderepro.data.closure_systems import CLOSURE_SYSTEMS
from pderepro.data.specs import DATASET_SPECS
from pderepro.studies import closures, parametric, regimes, resolution
from pderepro.studies.base import StudyKind
from pderepro.studies.schema import build_schema

#: Every study kind, by the ``kind`` value of a study file.
KINDS: dict[str, StudyKind] = {
    k.name: k for k in (resolution.KIND, regimes.KIND, closures.KIND, parametric.KIND)
}

#: Preset sections keyed by the study's own entries (regimes, PDEs, a parametric study's
#: models), each entry holding the allowed keys.
NESTED_PRESET_SECTIONS = ("regimes", "pdes", "models")
#: Every table and figure on one self-contained HTML page.
RESULTS_PAGE = "results/report/index.html"
#: Files of the solver verification (``verification: true``).
VALIDATION_TARGETS = (
    "results/validation/solvers.csv",
    "results/validation/figures/convergence.png",
)


def config_schema(top_schema_path: str | Path) -> dict[str, Any]:
    """The full config schema: the top-level file plus every kind's and spec's fragment."""
    return build_schema(
        load_yaml(top_schema_path),
        kinds={name: (kind.schema_def, kind.schema_path) for name, kind in KINDS.items()},
        datasets={s: (f"{s}_dataset", spec.schema_path) for s, spec in DATASET_SPECS.items()},
        systems={s: (f"{s}_system", spec.schema_path) for s, spec in CLOSURE_SYSTEMS.items()},
    )


def _check_preset(preset: Mapping[str, Any], path: Path, kinds: Mapping[str, str]) -> None:
    """Presets hold sizes (and run-length budgets) only: reject keys outside the kind's
    ``preset_keys``, and entries for studies that do not exist."""
    for study, sizes in preset.items():
        if not isinstance(sizes, Mapping):
            raise ConfigError(f"{path}: key '{study}' must map to the study's sizes")
        if study not in kinds:
            continue  # a study that is not enabled in this run
        allowed_keys = KINDS[kinds[study]].preset_keys
        for section, value in sizes.items():
            if section not in allowed_keys:
                raise ConfigError(
                    f"{path}: key '{study}.{section}' is not a size; presets may set only "
                    f"{sorted(allowed_keys)} for a {kinds[study]} study"
                )
            allowed = allowed_keys[section]
            if section in NESTED_PRESET_SECTIONS and isinstance(value, Mapping):
                for entry, entry_sizes in value.items():
                    extra = sorted(set(entry_sizes or {}) - allowed)
                    if extra:
                        raise ConfigError(
                            f"{path}: key '{study}.{section}.{entry}.{extra[0]}' is not a "
                            f"size; allowed: {sorted(allowed)}"
                        )
            elif allowed is not None and isinstance(value, Mapping):
                extra = sorted(set(value) - allowed)
                if extra:
                    raise ConfigError(
                        f"{path}: key '{study}.{section}.{extra[0]}' is not a size; "
                        f"allowed: {sorted(allowed)}"
                    )


def _load_study(config_dir: Path, name: str) -> dict[str, Any]:
    path = config_dir / "studies" / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in (config_dir / "studies").glob("*.yaml"))
        raise ConfigError(
            f"invalid configuration:\n  config key 'studies': no study file {path} "
            f"(studies: {known})"
        )
    study = load_yaml(path)
    kind = study.get("kind")
    if kind not in KINDS:
        raise ConfigError(
            f"invalid configuration:\n  config key 'study.{name}.kind': {kind!r} is not a "
            f"study kind ({sorted(KINDS)}); set it in {path}"
        )
    return study


def resolve_config(
    config: Mapping[str, Any], *, config_dir: str | Path = "config", schema_path: str | Path
) -> dict[str, Any]:
    """Merge and validate the workflow configuration.

    Parameters
    ----------
    config : mapping
        ``config/config.yaml`` with any ``--config`` overrides applied (Snakemake's config).
    config_dir : path
        Directory holding ``presets/`` and ``studies/``.
    schema_path : path
        ``workflow/schemas/config.schema.yaml`` (the top-level keys).

    Returns
    -------
    dict
        The validated config with defaults filled and ``study.<name>`` merged from the
        study file and the preset, in canonical form (every mapping's keys sorted), so
        that nothing downstream depends on how a config file orders its keys.

    Raises
    ------
    ConfigError
        On any invalid key, naming it.
    """
    schema = config_schema(schema_path)
    config_dir = Path(config_dir)
    top = copy.deepcopy(dict(config))
    if "study" in top:
        raise ConfigError("config key 'study' is filled in from config/studies; set 'studies'")
    validate(top, schema)  # preset and study names first: they pick the files below
    preset_path = config_dir / "presets" / f"{top['preset']}.yaml"
    preset = load_yaml(preset_path)
    studies = {name: _load_study(config_dir, name) for name in top["studies"]}
    _check_preset(preset, preset_path, {n: s["kind"] for n, s in studies.items()})
    for name, study in studies.items():
        top["study"][name] = deep_merge(study, preset.get(name, {}))
    validate(top, schema)
    check_finite(top)
    for name in top["studies"]:
        study = top["study"][name]
        KINDS[study["kind"]].check(f"study.{name}", study)
    return canonical(top)


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
        return [RESULTS_PAGE, "results/summary.md", *self.validation_targets()] + [
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
        counts = Counter(summary=1, results_page=1, all=1)
        if self.config["verification"]:
            counts["validate_solvers"] = 1
        for name, study in self.studies.items():
            counts += self.kind(name).jobs(name, study)
        return +counts  # drop rules with no job

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
