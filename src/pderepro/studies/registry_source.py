"""The registries of the torch-side packages as their source declares them, read without
importing them: building the DAG must import no torch.

A registered class is one decorated with a registering function (``@register_problem``
or ``@register_operator_problem(...)``) that sets ``name = "..."`` in its body. Its
parameters are the arguments of its ``__init__``, found on the class or on the nearest
base class in the same package that defines one. Unit tests check both readings against
the imported registries and ``inspect.signature``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pderepro.config import ConfigError


@dataclass(frozen=True)
class Registered:
    """One registered class: its constructor's parameters, ``{name: required}``."""

    parameters: Mapping[str, bool]

    @property
    def required(self) -> list[str]:
        return sorted(k for k, needed in self.parameters.items() if needed)


def _decorator_name(node: ast.expr) -> str | None:
    node = node.func if isinstance(node, ast.Call) else node
    return node.id if isinstance(node, ast.Name) else None


def _class_name(node: ast.ClassDef) -> str | None:
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "name" for t in statement.targets)
            and isinstance(statement.value, ast.Constant)
        ):
            return statement.value.value
    return None


def _init_parameters(node: ast.ClassDef) -> dict[str, bool] | None:
    """``{argument: required}`` of the class's own ``__init__`` (None without one)."""
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
            args = statement.args
            positional = args.posonlyargs + args.args
            first_default = len(positional) - len(args.defaults)
            out = {a.arg: i < first_default for i, a in enumerate(positional)}
            out.pop("self", None)
            for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                out[arg.arg] = default is None
            return out
    return None


@cache
def registered_classes(source: Path, decorator: str) -> dict[str, Registered]:
    """Every class under ``source`` (a package folder, searched recursively) decorated
    with ``decorator``, by its ``name``, with its constructor's parameters."""
    classes: dict[str, ast.ClassDef] = {}
    for path in sorted(source.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = node

    def parameters(node: ast.ClassDef) -> dict[str, bool]:
        own = _init_parameters(node)
        if own is not None:
            return own
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                return parameters(classes[base.id])
        return {}

    out = {}
    for node in classes.values():
        if any(_decorator_name(d) == decorator for d in node.decorator_list):
            name = _class_name(node)
            if name is not None:
                out[name] = Registered(parameters(node))
    return out


def check_parameters(
    here: str, given: Mapping[str, Any], registered: Registered, what: str
) -> None:
    """Refuse a parameter ``registered`` does not take, or a required one left out.

    Parameters
    ----------
    here : str
        The config key of the parameters (``study.<name>.problems.<key>.parameters``).
    given : mapping
        The parameters as the study (and a method's options) set them.
    registered : Registered
        The class they are passed to.
    what : str
        The class, for the message (``problem 'helmholtz'``).

    Raises
    ------
    ConfigError
        Naming the key and the parameters the class accepts.
    """
    accepted = sorted(registered.parameters)
    for key in given:
        if key not in registered.parameters:
            raise ConfigError(
                f"config key '{here}.{key}': unknown parameter of {what}; "
                f"it takes {accepted or 'none'}"
            )
    missing = [k for k in registered.required if k not in given]
    if missing:
        raise ConfigError(f"config key '{here}': {what} needs {missing} (it takes {accepted})")
