"""What a claim may name in its table, checked at dry run: the table's columns
(``schemas/tables.yaml``) and, for its key columns, the values the study's rows take
(each kind's :meth:`~pderepro.studies.base.StudyKind.table_keys`).

A claim's ``column``, ``interval``, ``spread``, ``for_each``, ``than_column``,
``than_interval`` and ``than_spread`` must be columns; the keys of its filters
(``rows``, ``better``, ``than``, ``exclude``, ``noise_floor``, ``reference``) too, and
their values, on a key column, values of its rows. The nearest valid name is suggested.
Nothing here imports pandas: Snakemake imports it to build the DAG.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pderepro.config import ConfigError, load_yaml

#: ``{kind: {table: columns or {truth system's solver: columns}}}``.
TABLES_SCHEMA = Path(__file__).parent / "schemas" / "tables.yaml"
#: Check keys naming one column or a list of columns.
COLUMN_KEYS = ("column", "interval", "spread", "for_each", "than_column", "than_interval",
               "than_spread")  # fmt: skip
#: Check keys holding a row filter ``{column: value or [values]}``.
FILTER_KEYS = ("rows", "better", "than", "exclude", "noise_floor", "reference")
#: The cost tables' solver row (``pderepro.evaluation.cost.SOLVER_LABEL``, which imports
#: pandas; a unit test checks that they agree).
SOLVER_ROW = "solver (no learning)"


@dataclass(frozen=True)
class TableSchema:
    """A table's columns and the values of its key columns (``{column: values}``)."""

    columns: tuple[str, ...]
    keys: Mapping[str, frozenset[str]] = field(default_factory=dict)


@cache
def _declared() -> dict[str, Any]:
    return load_yaml(TABLES_SCHEMA)


def table_columns(kind: str, table: str, study: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The declared columns of ``table`` of a ``kind`` study (None: not declared)."""
    entry = _declared().get(kind, {}).get(table)
    if isinstance(entry, Mapping):  # by the truth system's solver
        entry = entry.get(study.get("system", {}).get("solver"))
    return tuple(entry) if entry is not None else None


def _suggest(name: Any, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(name), sorted(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _columns_named(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _refuse_column(key: str, name: str, table: str, schema: TableSchema) -> None:
    raise ConfigError(
        f"config key '{key}': {name!r} is not a column of table {table!r}"
        f"{_suggest(name, schema.columns)} (its columns: {list(schema.columns)})"
    )


def check_claim_tables(
    where: str, claims: Sequence[Mapping[str, Any]], schemas: Mapping[str, TableSchema]
) -> None:
    """Refuse a claim that names a column its table lacks, or a key value no row has.

    Parameters
    ----------
    where : str
        The study's config key (``study.<name>``).
    claims : sequence of mapping
        The study's claims (their tables already checked to exist).
    schemas : mapping
        ``{table: TableSchema}``; a table without one is not checked.

    Raises
    ------
    ConfigError
        Naming the key, the table's columns or the key column's values, and the nearest.
    """
    for i, claim in enumerate(claims):
        check = claim["check"]
        schema = schemas.get(check["table"])
        if schema is None:
            continue
        here = f"{where}.claims.{i}.check"
        columns = set(schema.columns)
        for key in COLUMN_KEYS:
            for name in _columns_named(check.get(key, ())):
                if name not in columns:
                    _refuse_column(f"{here}.{key}", name, check["table"], schema)
        for key in FILTER_KEYS:
            rows = check.get(key)
            if not isinstance(rows, Mapping):  # all_other, than, none
                continue
            for column, wanted in rows.items():
                if column not in columns:
                    _refuse_column(f"{here}.{key}.{column}", column, check["table"], schema)
                values = schema.keys.get(column)
                if values is None:
                    continue
                for value in wanted if isinstance(wanted, list) else [wanted]:
                    if str(value) not in values:
                        raise ConfigError(
                            f"config key '{here}.{key}.{column}': {value!r} is not a value of "
                            f"column {column!r} in table {check['table']!r}"
                            f"{_suggest(value, values)} (its values: {sorted(values)})"
                        )


def labels(entries: Mapping[str, Any]) -> set[str]:
    """The table labels of a study map's entries (each ``label``, else its key)."""
    return {
        str(spec.get("label", key)) if isinstance(spec, Mapping) else str(key)
        for key, spec in entries.items()
    }


def check_map_keys(
    where: str, node: Any, levels: Sequence[Iterable[str] | None], what: Sequence[str]
) -> None:
    """Refuse a key of a nested map (``published.values``: ``{problem: {method: ...}}``)
    that names nothing the study has, where a typo would drop a value silently.

    Parameters
    ----------
    where : str
        The map's config key.
    node : mapping
        The map.
    levels : sequence
        The allowed keys at each depth (None: any key, e.g. a resolution).
    what : sequence of str
        What the keys at each depth name, for the message (``problem``, ``method``).

    Raises
    ------
    ConfigError
        Naming the key, the allowed ones and the nearest.
    """
    if not levels or not isinstance(node, Mapping):
        return
    allowed = None if levels[0] is None else {str(k) for k in levels[0]}
    for key, inner in node.items():
        if allowed is not None and str(key) not in allowed:
            raise ConfigError(
                f"config key '{where}.{key}': not a {what[0]} of the study"
                f"{_suggest(key, allowed)} ({sorted(allowed)})"
            )
        check_map_keys(f"{where}.{key}", inner, levels[1:], what[1:])


def check_published_keys(where: str, study: Mapping[str, Any]) -> None:
    """Refuse a key of ``published``'s maps (values, best, iterations, unverified,
    baselines) that names none of a problem-by-method study's problems and methods (a
    typo would drop a published value from the table without a word)."""
    published, keys = study.get("published", {}), (study["problems"], study["methods"])
    for name, depth in (("values", 2), ("best", 2), ("iterations", 1), ("unverified", 1),
                        ("baselines", 1)):  # fmt: skip
        check_map_keys(
            f"{where}.published.{name}", published.get(name), keys[:depth], ("problem", "method")
        )
