"""The package's own requirements cover what the README's commands use.

The test extra pulls in packages (pytest brings pygments) that a user's install from the
README's first command does not have: `snakemake --report` once failed there for want of
pygments while CI passed. These tests read the installed package's declared requirements,
so they fail when a requirement of a documented command is dropped.
"""

from importlib.metadata import requires

from packaging.requirements import Requirement


def _core_requirements(package: str) -> list[Requirement]:
    """Requirements of ``package`` outside its optional extras."""
    parsed = [Requirement(r) for r in requires(package) or []]
    return [r for r in parsed if r.marker is None or "extra" not in str(r.marker)]


def test_snakemake_is_required_with_its_reports_extra():
    (snakemake,) = [r for r in _core_requirements("pderepro") if r.name == "snakemake"]
    assert "reports" in snakemake.extras, "snakemake --report needs snakemake[reports]"


def test_the_reports_extra_brings_what_the_report_imports():
    report_deps = {
        Requirement(r).name
        for r in requires("snakemake") or []
        if 'extra == "reports"' in r.replace("'", '"')
    }
    assert "pygments" in report_deps
    core = {r.name for r in _core_requirements("snakemake")}
    assert {"jinja2", "docutils"} <= core
