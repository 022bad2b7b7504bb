"""The dry runs of ``test_dryrun.py``, started in the background when a session collects
those tests.

The everyday loop runs its tests one after another on one core; each of these Snakemake
runs costs about 10 s, mostly Snakemake's start-up and DAG. ``tests/conftest.py`` starts
them all at collection, one after another in a background thread, so they run on the second
core while the unit tests run on the first; a test then waits for its run's result. A test
run alone (or a run that failed to start) runs its Snakemake call itself.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.workflow.helpers import copy_workflow, replace_in_file, snakemake

LES_STEP = "  time_step: 5.0e-4             # LES"


def _break_les_turbulence(workdir: Path) -> None:
    """A malformed value in les_turbulence's study file (the run enables only fno_burgers)."""
    study = workdir / "config/studies/les_turbulence.yaml"
    replace_in_file(study, LES_STEP, "  time_step: -7  # LES")


@dataclass(frozen=True)
class DryRun:
    """Snakemake's arguments, and an edit of the copied workflow before it runs."""

    args: tuple[str, ...]
    edit: Callable[[Path], None] | None = None


BAD_CONFIG = {
    "preset": "preset=papr",
    "studies": "studies=[fno_burger]",
    "verification": "verification=maybe",
    "epochs": "epochs=3",
}
RUNS: dict[str, DryRun] = {
    **{f"all_{p}": DryRun(("-n", "--config", f"preset={p}")) for p in ("smoke", "quick", "paper")},
    **{
        f"turbulence_{p}": DryRun(("-n", "--config", f"preset={p}", "studies=[les_turbulence]"))
        for p in ("smoke", "quick", "paper")
    },
    **{f"bad_{key}": DryRun(("--cores", "1", "--config", o)) for key, o in BAD_CONFIG.items()},
    "malformed_les": DryRun(
        ("--cores", "1", "--config", "studies=[fno_burgers]"), edit=_break_les_turbulence
    ),
    "lint": DryRun(("--lint", "--config", "preset=smoke")),
}

_results: dict[str, tuple[subprocess.CompletedProcess, Path]] = {}
_done: dict[str, threading.Event] = {}
_scratch: list[Path] = []


def _run(name: str) -> None:
    workdir = copy_workflow(Path(tempfile.mkdtemp(prefix="pderepro-dry-")) / "workflow")
    _scratch.append(workdir.parent)
    run = RUNS[name]
    if run.edit is not None:
        run.edit(workdir)
    _results[name] = (snakemake(*run.args, cwd=workdir), workdir)


def start() -> None:
    """Run every dry run, one after another, in a background thread."""
    for name in RUNS:
        _done.setdefault(name, threading.Event())

    def worker() -> None:
        for name in RUNS:
            try:
                _run(name)
            except Exception:  # noqa: BLE001  (the test runs it again and sees the error)
                pass
            finally:
                _done[name].set()

    threading.Thread(target=worker, name="dry-runs", daemon=True).start()


def result(name: str) -> tuple[subprocess.CompletedProcess, Path]:
    """The finished run ``name`` and the workflow copy it ran in."""
    event = _done.get(name)
    if event is not None:
        event.wait(timeout=900)
    if name not in _results:
        _run(name)
    return _results[name]


def clean() -> None:
    """Remove the workflow copies."""
    for path in _scratch:
        shutil.rmtree(path, ignore_errors=True)
