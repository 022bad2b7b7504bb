"""The claims of the studies, on the plan's side: the cross-key rules of a study file's
``claims`` (which its kind's schema cannot express) and what the ``claims`` rule reads.

A claim names one of its study's tables (:meth:`~pderepro.studies.base.StudyKind.claim_tables`)
and checks it declaratively (``schemas/claims.yaml``); :mod:`pderepro.evaluation.claims`
evaluates the claims (:mod:`pderepro.evaluation.claims_checks`: the checks). Nothing here
imports pandas: Snakemake imports it to build the DAG.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pderepro.config import ConfigError

#: The files of rule ``claims``.
CLAIMS_TARGETS = ("results/claims.csv", "results/claims.md")


def check_claims(
    where: str,
    claims: Sequence[Mapping[str, Any]],
    tables: Collection[str],
    presets: Collection[str],
    study: Mapping[str, Any] | None = None,
) -> None:
    """Cross-key rules of a study's claims (and of its ``budget``: :func:`check_budget`).

    Parameters
    ----------
    where : str
        The study's config key (``study.<name>``).
    claims : sequence of mapping
        The study's ``claims``, valid against ``schemas/claims.yaml``.
    tables : collection of str
        The tables the study builds (claims may check only these).
    presets : collection of str
        Every preset's name.
    study : mapping, optional
        The whole study, whose ``budget`` is checked too.

    Raises
    ------
    ConfigError
        On a repeated id, an unknown table or preset, both an interval and a spread, a
        comparison with both or neither of ``than`` and ``than_column``, a distance to a
        target that is not lower-is-better, an interval given for several columns, or a
        number (threshold, factor, margin) whose ``threshold_source`` is not given,
        naming the key.
    """
    check_budget(where, (study or {}).get("budget", {}), presets)
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        here, check = f"{where}.claims.{i}", claim["check"]
        if claim["id"] in seen:
            raise ConfigError(f"config key '{here}.id': {claim['id']!r} is not unique")
        seen.add(claim["id"])
        unknown = sorted(set(claim.get("presets", ())) - set(presets))
        if unknown:
            raise ConfigError(
                f"config key '{here}.presets': no preset {unknown[0]!r} ({sorted(presets)})"
            )
        if check["table"] not in tables:
            raise ConfigError(
                f"config key '{here}.check.table': {check['table']!r} is not a table of this "
                f"study ({sorted(tables)})"
            )
        for interval, spread in (("interval", "spread"), ("than_interval", "than_spread")):
            if interval in check and spread in check:
                raise ConfigError(
                    f"config key '{here}.check.{spread}': give {interval} or {spread}, not both"
                )
        number = next(
            (k for k in ("threshold", "factor", "margin") if check.get(k)), None
        )  # a margin of 0 asks for nothing
        if number and "threshold_source" not in claim:
            raise ConfigError(
                f"config key '{here}.threshold_source': the check's {number} needs its source "
                "('paper: <table or figure>' or 'ours: <why>')"
            )
        if check["kind"] == "compare" and ("than" in check) == ("than_column" in check):
            raise ConfigError(
                f"config key '{here}.check.than': give than (other rows) or than_column (a "
                "column of the same row), not both or neither"
            )
        if check.get("reference") == "none" and not (check.get("timing") or "than_column" in check):
            raise ConfigError(
                f"config key '{here}.check.reference': 'none' only for a timing or a column "
                "of the same row; an accuracy comparison names its no-learning rows (or than)"
            )
        if "target" in check and not check["lower_is_better"]:
            raise ConfigError(
                f"config key '{here}.check.lower_is_better': must be true with a target "
                "(the distance to the target is lower when better)"
            )
        if isinstance(check["column"], list) and ("interval" in check or "spread" in check):
            raise ConfigError(
                f"config key '{here}.check.column': several columns take no interval or spread"
            )


def active(claim: Mapping[str, Any], preset: str) -> bool:
    """Whether ``claim`` is meaningful at ``preset``."""
    return preset in claim.get("presets", [preset])


def check_budget(where: str, budget: Mapping[str, Any], presets: Collection[str]) -> None:
    """A study's ``budget`` names only presets that exist.

    Raises
    ------
    ConfigError
        On an unknown preset, naming the key.
    """
    unknown = sorted(set(budget.get("presets", {})) - set(presets))
    if unknown:
        raise ConfigError(
            f"config key '{where}.budget.presets.{unknown[0]}': no preset {unknown[0]!r} "
            f"({sorted(presets)})"
        )


def claims_studies(
    claims: Mapping[str, Sequence[Mapping[str, Any]]],
    enabled: Mapping[str, Mapping[str, str]],
    budgets: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """What rule ``claims`` receives, per study: its claims, whether it is enabled, its
    budget and the tables its claims read (enabled studies first, in their order).

    Parameters
    ----------
    claims : mapping
        ``{study: claims}`` of every study file, enabled or not.
    enabled : mapping
        ``{study: {table: csv path}}`` of the enabled studies.
    budgets : mapping, optional
        ``{study: budget}`` (the study file's ``budget``).
    """
    order = [*enabled, *sorted(set(claims) - set(enabled))]
    return {
        name: {
            "enabled": name in enabled,
            "claims": list(claims.get(name, [])),
            "budget": dict((budgets or {}).get(name) or {}),
            "tables": {
                c["check"]["table"]: enabled[name][c["check"]["table"]]
                for c in claims.get(name, [])
                if name in enabled
            },
        }
        for name in order
    }
