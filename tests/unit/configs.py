"""Configs for tests, made by the real config loader from the shipped files.

Tests shrink sizes (and sometimes a horizon) for speed, but start from what
``pderepro.studies.resolve_config`` makes of the shipped study files, and the shrunken
result is validated against the same schema, so a test config cannot drift from the
real ones (a key added to a schema reaches the tests too).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from pderepro.config import deep_merge, validate
from pderepro.studies import KINDS, config_schema, resolve_config
from pderepro.studies.regimes import regime_units
from pderepro.studies.resolution import DATASET_SIZES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"


@cache
def _resolved(preset: str) -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    return resolve_config(
        {**config, "preset": preset}, config_dir=ROOT / "config", schema_path=SCHEMA
    )


@cache
def _defs() -> dict[str, Any]:
    return config_schema(SCHEMA)["$defs"]


def _checked(definition: str, node: dict[str, Any]) -> dict[str, Any]:
    validate(node, {"$ref": f"#/$defs/{definition}", "$defs": _defs()})
    return node


def study(study_name: str, preset: str = "smoke", **sections: Any) -> dict[str, Any]:
    """Study ``study_name`` as resolved at ``preset``, ``sections`` merged in, validated."""
    merged = deep_merge(copy.deepcopy(_resolved(preset)["study"][study_name]), sections)
    kind = KINDS[merged["kind"]]
    _checked(kind.schema_def, merged)
    kind.check(f"study.{study_name}", merged)
    return merged


def dataset(study_name: str, preset: str = "smoke", **overrides: Any) -> dict[str, Any]:
    """The dataset science (no sizes) of ``study_name``, as the generate rule receives it.

    For a regimes study, the dataset of its first run regime.
    """
    cfg = _resolved(preset)["study"][study_name]
    base = cfg["dataset"]
    if cfg["kind"] == "regimes":
        base = next(iter(regime_units(study_name, cfg).values()))["dataset"]
    merged = _checked("dataset", deep_merge(copy.deepcopy(base), overrides))
    return {k: v for k, v in merged.items() if k not in DATASET_SIZES}


def set_key(path: str, value: Any):
    """An edit of a study file's mapping: the value at the dotted ``path`` set to ``value``
    (for ``test_config._study_dir``)."""

    def edit(study: dict[str, Any]) -> None:
        node = study
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        node[last] = value

    return edit


def edit_preset(
    config_dir: Path, edit: Callable[[dict[str, Any]], None], preset: str = "quick"
) -> None:
    """Edit the mapping of preset file ``presets/<preset>.yaml`` under ``config_dir`` (a copy
    made by ``test_config._study_dir``) in place with ``edit(mapping)``."""
    path = config_dir / f"presets/{preset}.yaml"
    mapping = yaml.safe_load(path.read_text())
    edit(mapping)
    path.write_text(yaml.safe_dump(mapping))
