"""The workflow's configuration, merged and validated: ``config/config.yaml``, the preset
and every study file (enabled or not, as written and with every preset), each checked
against its kind's schema and cross-key rules, its claims against their tables.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pderepro.config import ConfigError, canonical, deep_merge, load_yaml, schema_errors, validate
from pderepro.data.closure_systems import CLOSURE_SYSTEMS
from pderepro.data.specs import DATASET_SPECS
from pderepro.studies.claims import check_claims
from pderepro.studies.claims_tables import check_claim_tables
from pderepro.studies.kinds import KINDS
from pderepro.studies.schema import as_written, build_schema

#: Preset sections keyed by the study's own entries (regimes, PDEs, a parametric study's
#: models), each entry holding the allowed keys.
NESTED_PRESET_SECTIONS = ("regimes", "pdes", "models", "problems", "methods")


def config_schema(top_schema_path: str | Path) -> dict[str, Any]:
    """The full config schema: the top-level file plus every kind's and spec's fragment."""
    return build_schema(
        load_yaml(top_schema_path),
        kinds={name: (kind.schema_def, kind.schema_path) for name, kind in KINDS.items()},
        datasets={s: (f"{s}_dataset", spec.schema_path) for s, spec in DATASET_SPECS.items()},
        systems={s: (f"{s}_system", spec.schema_path) for s, spec in CLOSURE_SYSTEMS.items()},
    )


def _preset_errors(sizes: Any, name: str, kind: str, path: Path, study_path: Path) -> list[str]:
    """Presets hold sizes (and run-length budgets) only: a line per key outside the
    kind's ``preset_keys``, naming the preset file and the key."""
    if not isinstance(sizes, Mapping):
        return [f"{path}: key '{name}' must map to the study's sizes"]
    allowed_keys = KINDS[kind].preset_keys
    errors = []
    for section, value in sizes.items():
        if section not in allowed_keys:
            errors.append(
                f"{path}: key '{name}.{section}' is not a size; presets may set only "
                f"{sorted(allowed_keys)} for a {kind} study (the science is in {study_path})"
            )
            continue
        allowed = allowed_keys[section]
        if section in NESTED_PRESET_SECTIONS and isinstance(value, Mapping):
            for entry, entry_sizes in value.items():
                # a non-mapping entry is left to the schema, which names its type
                if not isinstance(entry_sizes, Mapping):
                    continue
                here = f"{name}.{section}.{entry}"
                errors += _keys_outside(path, here, entry_sizes, allowed)
        elif allowed is not None and isinstance(value, Mapping):
            extra = sorted(set(value) - allowed)
            if extra:
                errors.append(
                    f"{path}: key '{name}.{section}.{extra[0]}' is not a size; "
                    f"allowed: {sorted(allowed)}"
                )
    return errors


def _keys_outside(
    path: Path, here: str, sizes: Mapping[str, Any], allowed: Mapping[str, Any] | set[str]
) -> list[str]:
    """A line per key of ``sizes`` outside ``allowed``: a set of keys, or a mapping from
    each key to the keys allowed inside it (None: any; the key ``"*"``: any name, e.g. a
    problem's, each with the keys it maps to)."""
    if isinstance(allowed, Mapping) and "*" in allowed:
        return [e for key, inner in sizes.items() if isinstance(inner, Mapping)
                for e in _keys_outside(path, f"{here}.{key}", inner, allowed["*"])]  # fmt: skip
    errors = [
        f"{path}: key '{here}.{key}' is not a size; allowed: {sorted(allowed)}"
        for key in sorted(set(sizes) - set(allowed))
    ][:1]
    if isinstance(allowed, Mapping):
        for key, inner in allowed.items():
            if inner is not None and isinstance(sizes.get(key), Mapping):
                errors += _keys_outside(path, f"{here}.{key}", sizes[key], inner)
    return errors


def _study_file_errors(
    name: str,
    path: Path,
    schemas: tuple[Mapping[str, Any], Mapping[str, Any]],
    presets: Mapping[str, tuple[Path, Mapping[str, Any]]],
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Check one study file as written, then merged with each preset.

    Returns
    -------
    merged : dict
        ``{preset: the study merged with it, defaults filled}`` (empty on any error).
    errors : list of str
        One line per violation, led by the file (and preset) holding it, then the key.
    """
    written_schema, merged_schema = schemas
    where = f"study.{name}"
    try:
        study = load_yaml(path)
    except ConfigError as err:
        return {}, [str(err)]
    if not study:
        return {}, [
            f"{path}: the file is empty; a study file is a mapping with at least its kind "
            f"({sorted(KINDS)}), claims and budget (docs/adding-a-study.md)"
        ]
    kind = study.get("kind")
    if kind not in KINDS:
        return {}, [
            f"{path}: config key '{where}.kind': {kind!r} is not a study kind ({sorted(KINDS)})"
        ]
    # as written: every value the file holds, whether or not a preset replaces it
    errors = [f"{path}: {e}" for e in schema_errors({"study": {name: study}}, written_schema)]
    if errors:
        return {}, errors
    merged: dict[str, dict[str, Any]] = {}
    found: dict[str, list[Path]] = {}  # line: the presets it is found with
    for preset_name, (preset_path, preset) in presets.items():
        sizes = preset.get(name, {})
        preset_errors = _preset_errors(sizes, name, kind, preset_path, path)
        if preset_errors:
            errors += preset_errors
            continue
        study_at = deep_merge(study, sizes)
        lines = schema_errors({"study": {name: study_at}}, merged_schema)
        if not lines:
            try:
                KINDS[kind].check(where, study_at)
                tables = KINDS[kind].claim_tables(name, study_at)
                check_claims(where, study_at.get("claims", []), tables, presets, study_at)
                check_claim_tables(
                    where, study_at.get("claims", []), KINDS[kind].table_schemas(name, study_at)
                )
            except ConfigError as err:
                lines = [str(err)]
        for line in lines:
            found.setdefault(line, []).append(preset_path)
        merged[preset_name] = study_at
    for line, paths in found.items():  # once where every preset meets it: the study's own
        with_ = "every preset" if len(paths) == len(presets) > 1 else ", ".join(map(str, paths))
        errors.append(f"{path} with {with_}: {line}")
    return ({} if errors else merged), errors


def _scalar(value: Any) -> Any:
    """A command-line string as YAML reads it (``'4'``: 4), anything else as it is."""
    return yaml.safe_load(value) if isinstance(value, str) else value


def resolve_config(
    config: Mapping[str, Any], *, config_dir: str | Path = "config", schema_path: str | Path
) -> dict[str, Any]:
    """Merge and validate the workflow configuration.

    Every study file under ``config_dir/studies``, enabled or not, is checked against
    its kind's schema as written (so a value is checked whether or not a preset
    replaces it), then merged with each preset and checked again, schema and cross-key
    rules, so that no file holds an error that waits for another preset or for the day
    its study is enabled (about 40 ms of each DAG build for seven studies and three
    presets).

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
        study file and the preset, for the enabled studies, ``claims.<name>`` the claims
        of every study file, in canonical form (every
        mapping's keys sorted), so that nothing downstream depends on how a config file
        orders its keys.

    Raises
    ------
    ConfigError
        On any invalid key, listing every one with the file that holds it and its key
        path (``config/studies/x.yaml: config key 'study.x.training.epochs': ...``).
    """
    schema = config_schema(schema_path)
    config_dir = Path(config_dir)
    top = copy.deepcopy(dict(config))
    if "study" in top:
        raise ConfigError("config key 'study' is filled in from config/studies; set 'studies'")
    if isinstance(top.get("cluster"), dict):  # `--config cluster={...}` gives strings
        top["cluster"] = {k: _scalar(v) for k, v in top["cluster"].items()}
    validate(top, schema)  # preset and study names first
    studies = {p.stem: p for p in sorted((config_dir / "studies").glob("*.yaml"))}
    missing = [name for name in top["studies"] if name not in studies]
    if missing:
        raise ConfigError(
            f"invalid configuration:\n  config key 'studies': no study file "
            f"{config_dir / 'studies' / missing[0]}.yaml (studies: {sorted(studies)})"
        )
    selected = config_dir / "presets" / f"{top['preset']}.yaml"
    preset_paths = sorted({selected, *(config_dir / "presets").glob("*.yaml")})
    presets = {p.stem: (p, load_yaml(p)) for p in preset_paths}
    errors = [
        f"{path}: key '{name}' names no study file (studies: {sorted(studies)})"
        for path, preset in presets.values()
        for name in preset
        if name not in studies
    ]
    study_schema = {
        "$defs": schema["$defs"],
        "properties": {"study": schema["properties"]["study"]},
    }
    schemas = (as_written(study_schema), study_schema)
    merged = {}
    for name, path in studies.items():
        merged[name], file_errors = _study_file_errors(name, path, schemas, presets)
        errors += file_errors
    if errors:
        raise ConfigError(
            "invalid configuration:\n  "
            + "\n  ".join(errors)
            + "\n(every file under config/studies is checked, enabled or not, as written and"
            " with every preset)"
        )
    top["study"] = {name: merged[name][top["preset"]] for name in top["studies"]}
    # every study's claims, enabled or not: the claims table lists them all
    top["claims"] = {name: merged[name][top["preset"]].get("claims", []) for name in studies}
    top["budgets"] = {name: merged[name][top["preset"]].get("budget", {}) for name in studies}
    return canonical(top)
