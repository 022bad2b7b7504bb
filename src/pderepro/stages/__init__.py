"""One function per workflow stage, called by name by workflow/scripts/stage.py (run_stage).

Each function takes plain paths and config slices, so it runs (and is tested) without
Snakemake. Inputs are checked against the provenance attributes they were made with,
and outputs are written atomically.

Stages are the package's top layer: they may use every other subpackage, and none uses
them; one stage module does not import another (shared code lives in the layer it belongs
to). The layers are listed, and checked by ``lint-imports``, in ``pyproject.toml``
(``[tool.importlinter]``).
"""

# Imported on first use (PEP 562): a job runs one stage, and importing them all (scipy.stats,
# matplotlib, the closures) took 3.7 s against 3.0-3.5 s for one, about a minute of CPU over
# the quick run's 124 jobs.

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

#: A stage is a module-level ``def run_<name>(`` in a module of this package: found by
#: reading the modules' source (no import), so a new stage registers itself where it is
#: defined and no table here is edited. This module is not one of them (``run_stage`` below
#: calls a stage, it is none).
_STAGE_DEFINITION = re.compile(r"^def (run_\w+)\(", re.MULTILINE)


@cache
def _stage_modules() -> dict[str, str]:
    """``{stage function: module}`` of every stage defined in this package."""
    out: dict[str, str] = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.stem.startswith("_"):
            continue
        for name in _STAGE_DEFINITION.findall(path.read_text()):
            if name in out:
                raise ImportError(f"stage {name} is defined in both {out[name]} and {path.stem}")
            out[name] = path.stem
    return out


#: The closure kind's stages of each truth system (``system.solver``), by rule: the rules are
#: the same for every system, the stage functions differ.
CLOSURE_STAGES = {
    "lorenz96": {
        "generate_truth": "run_generate_truth", "coarse_grain": "run_coarse_grain",
        "fit_closure": "run_fit_closure", "evaluate_offline": "run_offline",
        "evaluate_online": "run_online", "truth_floor": "run_truth_floor",
        "closure_tables": "run_closure_tables", "plot_closures": "run_plot_closures",
    },
    "turbulence2d": {
        "generate_truth": "run_generate_truth_turbulence",
        "coarse_grain": "run_coarse_grain_turbulence",
        "fit_closure": "run_fit_closure_turbulence", "evaluate_offline": "run_offline_turbulence",
        "evaluate_online": "run_online_turbulence", "truth_floor": "run_truth_floor_turbulence",
        "closure_tables": "run_closure_tables_turbulence",
        "plot_closures": "run_plot_closures_turbulence2d",
    },
    "shallow_water1d": {
        "generate_truth": "run_generate_truth_shallow_water",
        "coarse_grain": "run_coarse_grain_shallow_water",
        "fit_closure": "run_fit_closure_shallow_water",
        "evaluate_offline": "run_offline_shallow_water",
        "evaluate_online": "run_online_shallow_water",
        "truth_floor": "run_truth_floor_shallow_water",
        "closure_tables": "run_closure_tables_shallow_water",
        "plot_closures": "run_plot_closures_shallow_water1d",
    },
}  # fmt: skip

__all__ = sorted([*_stage_modules(), "CLOSURE_STAGES", "closure_stage", "run_stage"])


def run_stage(name: str, kwargs: Mapping[str, Any]) -> Any:
    """Call the stage function ``name`` with the keyword arguments ``kwargs``.

    The one entry point of the workflow (``workflow/scripts/stage.py``): each rule names
    its stage and gives its arguments as params (``workflow/rules/common.smk``:
    ``stage_params``).

    Parameters
    ----------
    name : str
        A stage function of this package, e.g. ``"run_train"``.
    kwargs : Mapping[str, Any]
        Its keyword arguments.

    Returns
    -------
    Any
        What the stage returns.

    Raises
    ------
    ValueError
        If ``name`` is not a stage; the message names the closest stages.
    """
    if name not in _stage_modules():
        close = difflib.get_close_matches(name, _stage_modules(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"no stage {name!r} in {__name__}{hint}")
    stage = globals().get(name) or __getattr__(name)
    return stage(**kwargs)


def closure_stage(rule: str, solver: str):
    """The stage function of closure-kind ``rule`` for the truth system ``solver``."""
    try:
        name = CLOSURE_STAGES[solver][rule]
    except KeyError:
        raise ValueError(f"no {rule!r} stage for closure system {solver!r}") from None
    return __getattr__(name)


def __getattr__(name: str) -> Any:
    module = _stage_modules().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
