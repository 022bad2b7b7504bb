"""The config schema: the workflow's top-level keys plus every kind's and spec's fragment.

``workflow/schemas/config.schema.yaml`` holds the top-level keys; each study kind owns
the schema of its studies (``schemas/<kind>.yaml`` beside this module), each dataset
spec and closure system the schema of its config (``pderepro/data/schemas``). A study
is checked against its kind's schema (dispatched on ``kind``), a dataset against its
solver's (on ``dataset.solver``), a truth system against its system's (on
``system.solver``), so a new kind or solver adds a fragment and nothing here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pderepro.config import load_yaml

COMMON_SCHEMA = Path(__file__).parent / "schemas" / "common.yaml"
#: The claims every kind's studies may list (``$defs`` ``claims``, ``claim``, ...).
CLAIMS_SCHEMA = Path(__file__).parent / "schemas" / "claims.yaml"


def _dispatch(key: str, choices: Mapping[str, str], what: str) -> dict[str, Any]:
    """A schema checking an object against ``$defs[choices[obj[key]]]``."""
    return {
        "description": f"A {what}, checked against the schema of its {key}.",
        "type": "object",
        "required": [key],
        "properties": {key: {"enum": sorted(choices)}},
        "allOf": [
            {
                "if": {"properties": {key: {"const": value}}, "required": [key]},
                "then": {"$ref": f"#/$defs/{definition}"},
            }
            for value, definition in sorted(choices.items())
        ],
    }


def build_schema(
    top: Mapping[str, Any],
    *,
    kinds: Mapping[str, tuple[str, Path]],
    datasets: Mapping[str, tuple[str, Path]],
    systems: Mapping[str, tuple[str, Path]],
) -> dict[str, Any]:
    """The full config schema.

    Parameters
    ----------
    top : mapping
        The top-level schema (``workflow/schemas/config.schema.yaml``).
    kinds, datasets, systems : mapping
        ``{kind or solver: ($defs name, fragment path)}`` of the study kinds, dataset
        specs and closure systems.
    """
    schema = copy.deepcopy(dict(top))
    defs = schema.setdefault("$defs", {})
    paths: Iterable[Path] = [COMMON_SCHEMA, CLAIMS_SCHEMA] + [
        path for group in (kinds, datasets, systems) for _, path in group.values()
    ]
    for path in dict.fromkeys(paths):  # a fragment may serve several entries
        defs.update(load_yaml(path))
    defs["study"] = _dispatch("kind", {k: d for k, (d, _) in kinds.items()}, "study")
    defs["dataset"] = _dispatch("solver", {k: d for k, (d, _) in datasets.items()}, "dataset")
    defs["closure_system"] = _dispatch(
        "solver", {k: d for k, (d, _) in systems.items()}, "closure system"
    )
    return schema


def as_written(node: Any) -> Any:
    """``node`` (a schema) without its ``required`` lists, except inside ``if`` conditions.

    The schema of a study file as written, before a preset is merged: the preset may still
    supply a required key (the sizes), but every value the file does hold, and every key
    name, is checked as strictly as in the merged config. ``if`` conditions keep theirs so
    that dispatch on ``kind`` or ``solver`` still needs the key present.
    """
    if isinstance(node, Mapping):
        return {
            k: copy.deepcopy(v) if k == "if" else as_written(v)
            for k, v in node.items()
            if not (k == "required" and isinstance(v, list))
        }
    if isinstance(node, list):
        return [as_written(v) for v in node]
    return node
