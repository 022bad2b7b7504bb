"""The conda environment file (its conda and pip sections) and pyproject.toml list the same
dependencies."""

import re
import tomllib

import yaml

from tests.workflow.helpers import ROOT

#: conda-forge names of packages whose PyPI names differ.
CONDA_NAMES = {"torch": "pytorch", "netcdf4": "netcdf4"}


def _split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*(.*)$", requirement).groups()
    return name.lower(), spec.replace(" ", "")


def test_env_file_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {CONDA_NAMES.get(n, n): s for n, s in map(_split, project["dependencies"])}
    env = yaml.safe_load((ROOT / "envs/pderepro.yaml").read_text())
    conda = dict(_split(d) for d in env["dependencies"] if isinstance(d, str) and d not in ("pip",))
    conda.pop("python")
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    # a PyPI-only requirement is installed by the env's pip section, its version as pyproject's
    from_pip = dict(_split(r.split("#")[0].strip()) for r in pip if not r.startswith("-"))
    assert {**conda, **from_pip} == wanted
    assert not set(conda) & set(from_pip), "a requirement listed twice"
    assert "-e ../.." in pip, "the env must install this package itself"
