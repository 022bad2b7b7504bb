"""Stages register where they are defined: every ``def run_<name>(`` of a stage module is
reachable as ``pderepro.stages.run_<name>`` and its module's own function, and every
stage the workflow's rules name is one of them."""

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


#: A rule's stage (workflow/rules/common.smk: ``stage_params``), where it is a name; the
#: closure rules name theirs through ``CLOSURE_STAGES``.
NAMED = re.compile(r'stage_params\(\s*"(\w+)"')


def test_every_stage_a_rule_names_exists():
    named = set()
    for rules in (ROOT / "workflow" / "rules").glob("*.smk"):
        named |= set(NAMED.findall(rules.read_text()))
    named |= {name for system in stages.CLOSURE_STAGES.values() for name in system.values()}
    assert len(named) > 50 and named <= set(stages._stage_modules())


def test_the_entry_point_is_not_a_stage():
    assert "run_stage" not in stages._stage_modules() and "run_stage" in stages.__all__
