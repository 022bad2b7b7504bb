"""The tables' declared columns and key values (what claims are checked against at dry
run) are those of the tables the recorded quick run wrote (docs/studies/<study>/tables),
and a claim naming a column or a row its table lacks is refused with the nearest name."""

from __future__ import annotations

import copy
import csv
from functools import cache

import pytest

from pderepro.config import ConfigError, load_yaml
from pderepro.studies import KINDS, resolve_config
from pderepro.studies.claims_tables import (
    SOLVER_ROW,
    TableSchema,
    check_claim_tables,
    table_columns,
)
from tests.unit.test_config import ROOT

STUDIES = sorted(p.stem for p in (ROOT / "config" / "studies").glob("*.yaml"))
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _recorded(study: str) -> dict[str, list[dict[str, str]]]:
    """``{table: rows}`` of the study's recorded quick tables (CSV), as strings."""
    out = {}
    for path in sorted((ROOT / "docs" / "studies" / study / "tables").glob("*.csv")):
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            out[path.stem] = [reader.fieldnames, *reader]
    return out


@cache
def _resolved() -> dict:
    base = load_yaml(ROOT / "config" / "config.yaml")  # default preset: quick
    return resolve_config(base, config_dir=ROOT / "config", schema_path=SCHEMA)["study"]


def _study(name: str) -> tuple[str, dict]:
    study = _resolved()[name]
    return study["kind"], study


@pytest.mark.parametrize("name", STUDIES)
def test_declared_tables_are_those_the_quick_run_wrote(name):
    kind, study = _study(name)
    recorded = _recorded(name)
    assert recorded, f"no recorded tables for {name}: run python -m pderepro.studies.pages"
    keys = KINDS[kind].table_keys(study)
    for table, rows in recorded.items():
        columns = table_columns(kind, table, study)
        assert columns is not None, f"{name}: table {table!r} not in schemas/tables.yaml"
        header, *rows = rows
        assert list(columns) == header, f"{name}/{table}"
        for column, values in keys.get(table, {}).items():
            if column in columns:
                written = {row[column] for row in rows}
                assert written <= {str(v) for v in values}, (name, table, column)


def test_the_solver_row_is_the_cost_tables():
    from pderepro.evaluation.cost import SOLVER_LABEL

    assert SOLVER_ROW == SOLVER_LABEL


FIXTURE = {"errors": TableSchema(("problem", "method", "rel_l2"), {"method": frozenset({"pig"})})}
CLAIM = {"check": {"table": "errors", "rows": {"method": "pig"}, "column": "rel_l2"}}


def _with(**check):
    claim = copy.deepcopy(CLAIM)
    claim["check"].update(check)
    return [claim]


def test_a_valid_claim_passes():
    check_claim_tables("study.s", _with(), FIXTURE)


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (
            {"column": "rel_l3"},
            r"'study.s.claims.0.check.column': 'rel_l3' .* did you mean 'rel_l2'",
        ),
        ({"than_spread": "rel_std"}, r"check.than_spread': 'rel_std' is not a column"),
        ({"rows": {"metod": "pig"}}, r"check.rows.metod': .* did you mean 'method'"),
        ({"better": {"method": "pgi"}}, r"check.better.method': 'pgi' is not a value .* 'pig'"),
        ({"interval": ["lo", "rel_l2"]}, r"check.interval': 'lo' is not a column"),
    ],
)
def test_a_misspelt_name_is_refused_with_the_nearest(check, message):
    with pytest.raises(ConfigError, match=message):
        check_claim_tables("study.s", _with(**check), FIXTURE)
