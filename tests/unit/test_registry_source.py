"""The registries read from source (to build the DAG without torch) match the imported
ones: the same names, and each class's constructor parameters as inspect reads them."""

import inspect

import pytest

from pderepro.config import ConfigError
from pderepro.studies.neural_spectral import PROBLEMS_SOURCE
from pderepro.studies.physics_informed import PINN_SOURCE
from pderepro.studies.registry_source import Registered, check_parameters, registered_classes


def _signature(cls) -> dict[str, bool]:
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return {p.name: p.default is inspect.Parameter.empty for p in parameters}


def _imported(which: str):
    if which == "pinn":
        from pderepro.training.pinn.problems import PROBLEMS

        return PINN_SOURCE / "problems", "register_problem", PROBLEMS
    from pderepro.training.spectral import OPERATOR_PROBLEMS

    return PROBLEMS_SOURCE, "register_operator_problem", OPERATOR_PROBLEMS


@pytest.mark.parametrize("which", ["pinn", "spectral"])
def test_source_reading_matches_the_constructors(which):
    source, decorator, registry = _imported(which)
    read = registered_classes(source, decorator)
    assert set(read) == set(registry)
    for name, cls in registry.items():
        assert dict(read[name].parameters) == _signature(cls), name


def test_an_unknown_or_missing_parameter_is_refused_naming_the_key():
    helmholtz = Registered({"a_x": True, "a_y": True, "k": True, "scale": False})
    check_parameters("p", {"a_x": 1, "a_y": 1, "k": 1}, helmholtz, "problem 'h'")
    with pytest.raises(ConfigError, match=r"'p\.kk': unknown parameter .* \['a_x', 'a_y', 'k'"):
        check_parameters("p", {"a_x": 1, "a_y": 1, "kk": 1}, helmholtz, "problem 'h'")
    with pytest.raises(ConfigError, match=r"needs \['k'\]"):
        check_parameters("p", {"a_x": 1, "a_y": 1}, helmholtz, "problem 'h'")
