"""Seeded fuzz of the config files: a malformed value anywhere is refused by the loader.

Mutations (a negative number, a string where a number belongs, NaN, an unknown key, a
misspelt kind) are drawn over every study and preset file and each is run through
``pderepro.studies.resolve_config``, the entry point the Snakefile calls, at the default
``config/config.yaml``: a study that is not enabled, and a value that the default preset
replaces, must be refused too, naming the file and the key path, with nothing written.
"""

from __future__ import annotations

import copy
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from pderepro.config import ConfigError
from pderepro.studies import resolve_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
BASE = yaml.safe_load((ROOT / "config/config.yaml").read_text())
SEED = 29
MUTATIONS = 40
FILES = sorted((ROOT / "config/studies").glob("*.yaml")) + sorted(
    (ROOT / "config/presets").glob("*.yaml")
)
#: Values the science lets take either sign (a forcing, a coupling, a pdf's range, a
#: closure setup's forcing or beta plane, a claim's threshold or target): a negative one
#: is no error.
SIGNED = {"forcing", "forcing_amplitude", "h", "low", "high", "threshold", "target"}
#: Maps whose keys are free names: a new key there is a new entry, not an unknown key (a
#: claim's row filters name table columns, checked when the claim is evaluated).
FREE_NAMES = {"setups", "rows", "better", "than", "exclude", "noise_floor"}


def _nodes(node: Any, path: tuple = ()):
    """``(path, value)`` of every mapping and leaf under ``node``."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, (*path, i))
    else:
        yield path, node


def _candidates(doc: dict) -> dict[str, list[tuple[tuple, Any]]]:
    """Every mutation of ``doc`` that must be refused, by what it does."""
    out: dict[str, list[tuple[tuple, Any]]] = {}
    for path, value in _nodes(doc):
        parent = path[-2] if len(path) > 1 else None
        if isinstance(value, dict):
            if not path or path[-1] not in FREE_NAMES:
                out.setdefault("unknown key", []).append(((*path, "unknown_option_q"), 1))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.setdefault("string for a number", []).append((path, "lots"))
            out.setdefault("NaN", []).append((path, float("nan")))
            if value > 0 and path[-1] not in SIGNED and parent not in FREE_NAMES:
                out.setdefault("negative", []).append((path, -7))
        elif path and path[-1] == "kind" and isinstance(value, str):
            out.setdefault("misspelt kind", []).append((path, f"{value}_typo"))
    return out


def _draw() -> list[tuple[Path, tuple, Any, str]]:
    """``MUTATIONS`` mutations, the files in turn, each of a kind drawn first."""
    rng = random.Random(SEED)
    candidates = {f: _candidates(yaml.safe_load(f.read_text())) for f in FILES}
    drawn = []
    for i in range(MUTATIONS):
        path = FILES[i % len(FILES)]
        what = rng.choice(sorted(candidates[path]))
        key, value = rng.choice(candidates[path][what])
        drawn.append((path, key, value, what))
    return drawn


DRAWN = _draw()


def _id(case) -> str:
    path, key, value, _ = case
    return f"{path.parent.name}/{path.name}:{'.'.join(map(str, key))}={value!r}"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_draw_covers_every_file_and_every_kind_of_mutation():
    assert {path for path, *_ in DRAWN} == set(FILES)
    assert {what for *_, what in DRAWN} == {
        "unknown key",
        "string for a number",
        "NaN",
        "negative",
        "misspelt kind",
    }


@pytest.mark.parametrize("case", DRAWN, ids=[_id(c) for c in DRAWN])
def test_a_mutated_config_file_is_refused_naming_the_file_and_key(tmp_path, case):
    path, key, value, _ = case
    shutil.copytree(ROOT / "config", tmp_path / "config")
    target = tmp_path / path.relative_to(ROOT)
    doc = yaml.safe_load(target.read_text())
    node = doc
    for part in key[:-1]:
        node = node[part]
    node[key[-1]] = value
    target.write_text(yaml.safe_dump(doc))
    before = _tree(tmp_path)
    with pytest.raises(ConfigError) as err:
        resolve_config(copy.deepcopy(BASE), config_dir=tmp_path / "config", schema_path=SCHEMA)
    dotted = ".".join(map(str, key))
    # studies: "config key 'study.<name>.<key>'"; presets: "<study>.<key>'" in either form
    named = f"'study.{path.stem}.{dotted}'" if path.parent.name == "studies" else f"{dotted}'"
    lines = [line for line in str(err.value).splitlines() if str(target) in line]
    assert any(named in line for line in lines), str(err.value)
    assert _tree(tmp_path) == before  # nothing written
