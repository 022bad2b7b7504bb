"""Global provenance attributes: every output records what made it."""

from __future__ import annotations

import datetime as _dt
import functools
import json
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pderepro import __version__

#: The ``Conventions`` attribute written on every NetCDF file.
CF_CONVENTIONS = "CF-1.10"


@functools.cache
def git_commit() -> str:
    """Commit hash of the source tree, with ``-dirty`` if it has changes, or ``unknown``."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


def provenance_attrs(
    *,
    title: str,
    rule: str,
    params: Mapping[str, Any],
    seed: int | None = None,
    input_files: Iterable[str | Path] = (),
    history: str = "",
) -> dict[str, str | int]:
    """Global attributes describing how a file was made.

    Parameters
    ----------
    title : str
        Human-readable description of the content.
    rule : str
        Name of the workflow rule (or function) that made the file.
    params : mapping
        The configuration slice that determined the content; stored as JSON.
    seed : int, optional
        Base seed of the random draws, when the content is random.
    input_files : iterable of path
        Files read to make this one.
    history : str
        Earlier history lines (from the inputs), to which this step is appended.

    Returns
    -------
    dict
        Attributes ready for ``Dataset.attrs``; NetCDF-safe types only.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    attrs: dict[str, str | int] = {
        "Conventions": CF_CONVENTIONS,
        "title": title,
        "source": "pderepro",
        "pderepro_version": __version__,
        "git_commit": git_commit(),
        "rule": rule,
        "params": json.dumps(params, sort_keys=True, default=str),
        "created_utc": now,
        "input_files": json.dumps([str(p) for p in input_files]),
        "history": (history + "\n" if history else "") + f"{now} {rule}",
    }
    if seed is not None:
        attrs["seed"] = int(seed)
    return attrs


def derived_provenance(
    source: Mapping[str, Any],
    *,
    title: str,
    rule: str,
    params: Mapping[str, Any],
    input_files: Iterable[str | Path],
) -> dict[str, str | int]:
    """:func:`provenance_attrs` of a file made from another, whose ``seed`` and ``history``
    it carries on.

    Parameters
    ----------
    source : mapping
        The attributes of the file it was made from.
    title, rule, params, input_files
        As :func:`provenance_attrs` takes them.

    Returns
    -------
    dict
        Attributes ready for ``Dataset.attrs``.
    """
    return provenance_attrs(
        title=title, rule=rule, params=params, seed=source.get("seed"),
        input_files=input_files, history=source.get("history", ""),
    )  # fmt: skip


#: Keys of a file's ``params`` that say which part of a dataset it holds, not which dataset.
_PART_KEYS = ("split", "start", "count", "n_samples", "resolution")


def dataset_params(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The dataset identity recorded in a file's ``params`` (JSON), without the part it
    holds (split, samples, resolution)."""
    return {k: v for k, v in json.loads(attrs["params"]).items() if k not in _PART_KEYS}
