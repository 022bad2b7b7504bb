"""Stages register where they are defined: every ``def run_<name>(`` of a stage module is
reachable as ``pderepro.stages.run_<name>`` and its module's own function, and every
stage the workflow scripts call is one of them."""

import importlib
import re

from pderepro import stages
from tests.unit.test_config import ROOT


def test_every_stage_definition_is_reachable_from_the_package():
    found = stages._stage_modules()
    assert len(found) > 50
    for name, module in found.items():
        defined = getattr(importlib.import_module(f"pderepro.stages.{module}"), name)
        assert getattr(stages, name) is defined


IMPORT = re.compile(r"from pderepro\.stages import ([\w, ]+)")


def test_every_stage_a_script_calls_exists():
    called = set()
    for script in (ROOT / "workflow" / "scripts").glob("*.py"):
        for names in IMPORT.findall(script.read_text()):
            called |= {name.strip() for name in names.split(",")}
    called.discard("closure_stage")
    assert called and called <= set(stages._stage_modules())
