"""Registries of named classes (PINN problems, samplers and weightings; operator
problems): a class decorator that files a class under its ``name``, refusing a second
class of the same name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["registrar"]


def registrar(registry: dict[str, type[Any]], kind: str) -> Callable[[type[T]], type[T]]:
    """A class decorator that registers a ``kind`` under its ``name`` in ``registry``.

    Parameters
    ----------
    registry : dict of str to type
        Filled in place, ``{cls.name: cls}``.
    kind : str
        What the classes are, for the docstring and the error of a name used twice.
    """

    def register(cls: type[T]) -> type[T]:
        name = cls.name  # type: ignore[attr-defined]
        if name in registry:
            raise ValueError(f"{kind} {name!r} registered twice")
        registry[name] = cls
        return cls

    register.__doc__ = f"Class decorator: register a {kind} under its ``name``."
    return register
