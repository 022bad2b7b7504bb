"""Mutations of every study file, of each class a new user makes, refused at dry run.

The classes: an unknown key in a map that once took any key (a problem's ``parameters``,
a method's ``problem_options``, a solver ladder's rung, a ``published`` map's problem or
model); a claim naming a column its
table lacks (``column``, a filter's column, ``than_spread``) or a row value no row has;
a wrong type; a negative or zero size in a preset; an empty or non-mapping study file.
Each goes through ``pderepro.studies.resolve_config`` (what the Snakefile calls before any
job) and must be refused with the file and the key path named and nothing written; one
goes through ``snakemake -n`` itself to show what the console says.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
import yaml

from pderepro.config import ConfigError
from pderepro.studies import KINDS, resolve_config
from pderepro.studies.claims_tables import FILTER_KEYS
from tests.unit.test_config import BASE, ROOT, SCHEMA
from tests.unit.test_config_fuzz import _tree

STUDIES = sorted(p.stem for p in (ROOT / "config" / "studies").glob("*.yaml"))


@dataclass(frozen=True)
class Mutation:
    what: str  #: the class of mutation
    file: str  #: relative to config/
    key: str  #: the key path the message must name, quoted as the message quotes it
    apply: Callable[[Any], Any] | str  #: the change to the loaded YAML, or the new text

    @property
    def id(self) -> str:
        return f"{self.what}:{self.file}:{self.key}"


def _set(path: tuple, value: Any) -> Callable[[Any], Any]:
    def apply(doc):
        node = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        return doc

    return apply


@cache
def _resolved() -> dict[str, Any]:
    return resolve_config(copy.deepcopy(BASE), config_dir=ROOT / "config", schema_path=SCHEMA)


def _study_file(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "config" / "studies" / f"{name}.yaml").read_text())


def _open_map_mutations(name: str, doc: dict) -> list[Mutation]:
    out, file = [], f"studies/{name}.yaml"
    for key, spec in doc.get("problems", {}).items():
        if isinstance(spec, dict) and "parameters" in spec:
            path = ("problems", key, "parameters", "unknown_option_q")
            out.append(Mutation("unknown parameter", file, ".".join(path), _set(path, 1)))
            break  # one problem per study: the same check serves each
    for key, spec in doc.get("methods", {}).items():
        if isinstance(spec, dict) and "problem_options" in spec:
            path = ("methods", key, "problem_options", "unknown_option_q")
            out.append(Mutation("unknown problem option", file, ".".join(path), _set(path, 1)))
    values = doc.get("published", {}).get("values")
    if isinstance(values, dict) and values and doc["kind"] != "parametric":
        first = next(iter(values))

        def misspell(d, first=first):
            d["published"]["values"][f"{first}x"] = d["published"]["values"].pop(first)
            return d

        out.append(Mutation("published key", file, f"published.values.{first}x", misspell))
    return out


def _claim_mutations(name: str, doc: dict) -> list[Mutation]:
    """A misspelt column, filter column, filter value and spread column of a claim."""
    study = _resolved()["study"][name]
    keys = KINDS[study["kind"]].table_keys(study)
    file, out = f"studies/{name}.yaml", []
    for i, claim in enumerate(doc.get("claims", [])):
        check = claim["check"]
        here = f"claims.{i}.check"
        if isinstance(check["column"], str) and not any(m.what == "claim column" for m in out):
            typo = _set(("claims", i, "check", "column"), check["column"] + "x")
            out.append(Mutation("claim column", file, f"{here}.column", typo))
        for field in FILTER_KEYS:
            rows = check.get(field)
            if not isinstance(rows, dict):
                continue
            column, value = next(iter(rows.items()))
            if not any(m.what == "claim filter column" for m in out):
                renamed = {column + "x" if c == column else c: v for c, v in rows.items()}
                typo = _set(("claims", i, "check", field), renamed)
                out.append(Mutation("claim filter column", file, f"{here}.{field}.{column}x", typo))
            declared = keys.get(check["table"], {})
            if column in declared and not any(m.what == "claim row value" for m in out):
                first = value[0] if isinstance(value, list) else value
                typo = _set(("claims", i, "check", field, column), f"{first}x")
                out.append(Mutation("claim row value", file, f"{here}.{field}.{column}", typo))
        spread_free = check["kind"] == "compare" and "than_interval" not in check
        if spread_free and not any(m.what == "claim spread column" for m in out):
            typo = _set(("claims", i, "check", "than_spread"), "spreadx")
            out.append(Mutation("claim spread column", file, f"{here}.than_spread", typo))
    return out


def _mutations() -> list[Mutation]:
    out = []
    for name in STUDIES:
        doc = _study_file(name)
        out += _open_map_mutations(name, doc) + _claim_mutations(name, doc)
    for name in STUDIES[::5]:  # the seeded fuzz (test_config_fuzz.py) draws more of these
        out.append(Mutation("wrong type", f"studies/{name}.yaml", "title", _set(("title",), 3)))
    out += [
        Mutation("unknown rung size", "studies/nsm.yaml", "problems.poisson.solver_ladder.0.nz",
                 lambda d: d["problems"]["poisson"].__setitem__("solver_ladder", [{"nz": 8}]) or d),
        Mutation("empty file", "studies/pig.yaml", "empty", ""),
        Mutation("non-mapping file", "studies/sdgd.yaml", "mapping", "- a\n- b\n"),
        Mutation("zero size", "presets/quick.yaml", "fno_burgers.dataset.n_train",
                 _set(("fno_burgers", "dataset", "n_train"), 0)),
        Mutation("negative size", "presets/quick.yaml", "fno_darcy.training.seeds",
                 _set(("fno_darcy", "training", "seeds"), -2)),
        Mutation("zero size", "presets/smoke.yaml", "pig.problems.helmholtz.training'",
                 _set(("pig", "problems", "helmholtz", "training"),
                      {"iterations": 0, "lbfgs_iterations": 0})),
        Mutation("negative size", "presets/paper.yaml", "les_turbulence.truth.members",
                 _set(("les_turbulence", "truth", "members"), -1)),
    ]  # fmt: skip
    return out


MUTATIONS = _mutations()


def test_every_class_is_drawn_and_there_are_at_least_forty():
    classes = {m.what for m in MUTATIONS}
    assert len(MUTATIONS) >= 40
    assert {"unknown parameter", "claim column", "claim filter column", "claim row value",
            "claim spread column", "wrong type", "empty file", "non-mapping file",
            "zero size", "negative size"} <= classes  # fmt: skip
    assert {m.file for m in MUTATIONS} >= {f"studies/{name}.yaml" for name in STUDIES}


def _write(tmp_path, mutation: Mutation):
    shutil.copytree(ROOT / "config", tmp_path / "config")
    target = tmp_path / "config" / mutation.file
    if isinstance(mutation.apply, str):
        target.write_text(mutation.apply)
    else:
        target.write_text(yaml.safe_dump(mutation.apply(yaml.safe_load(target.read_text()))))
    return target


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.id)
def test_a_mutation_is_refused_naming_the_file_and_the_key(tmp_path, mutation):
    target = _write(tmp_path, mutation)
    before = _tree(tmp_path)
    with pytest.raises(ConfigError) as err:
        resolve_config(copy.deepcopy(BASE), config_dir=tmp_path / "config", schema_path=SCHEMA)
    lines = [line for line in str(err.value).splitlines() if str(target) in line]
    assert lines, str(err.value)
    assert any(mutation.key in line for line in lines), str(err.value)
    assert _tree(tmp_path) == before  # nothing written


def test_a_claim_typo_stops_the_dry_run_before_any_job(tmp_path):
    """What the console shows: the file, the key and the nearest column, and no job."""
    shutil.copytree(ROOT / "config", tmp_path / "config")
    for name in ("Snakefile", "workflow"):
        (tmp_path / name).symlink_to(ROOT / name)
    target = tmp_path / "config" / "studies" / "pig.yaml"
    target.write_text(target.read_text().replace("column: rel_l2_mean", "column: rel_l2_meen", 1))
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    console = done.stdout + done.stderr
    assert done.returncode != 0
    assert "study.pig.claims.0.check.column" in console and "did you mean 'rel_l2_mean'" in console
    assert not (tmp_path / "results").exists()
