"""The mutable state of a training's plain Python objects (samplers, weightings, loss
objectives, time probes), saved between the segments of a training longer than a cluster
job and restored in the next, so that the segments together give the uninterrupted run.

Modules and optimisers have ``state_dict``; these objects keep their state in attributes:
tensors (points, running weights), random generators, numbers and small containers of
them. :func:`attribute_state` walks an object's attributes and keeps those as tensors and
plain containers (so the file loads with ``torch.load(weights_only=True)``, like every
checkpoint of the project: no pickled code); :func:`restore_attributes` writes them back
into an object built the same way (a parameter in place, so that the optimiser holding it
still does; other tensors are replaced). Callables, dtypes, devices and modules are
configuration, rebuilt by the caller, and skipped; a type this module cannot keep raises,
so a new kind of state is never silently dropped. :func:`save_training_state` and
:func:`load_training_state` write and read a segment's whole state: where it stands, the
``state_dict`` of its modules and optimisers, its objects' attributes and torch's stream.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from pderepro.data.io import atomic_write

#: Types rebuilt with the object, never saved.
_CONFIGURATION = (
    torch.dtype,
    torch.device,
    nn.Module,
    type,
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    functools.partial,
)
#: Keys marking an encoded value (plain dicts of the object's own are kept as dicts).
_GENERATOR, _NUMPY_GENERATOR, _ARRAY, _TUPLE, _OBJECT = (
    "__torch_generator__", "__numpy_generator__", "__ndarray__", "__tuple__", "__object__",
)  # fmt: skip
_MAX_DEPTH = 6


def attribute_state(obj: Any, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The state of ``obj``'s attributes, as tensors and plain containers.

    Parameters
    ----------
    obj : object
        An object with a ``__dict__`` (a sampler, a weighting, a dataclass).
    skip : tuple of str
        Attribute names the caller rebuilds (e.g. a reference to the problem).

    Returns
    -------
    dict
        ``{attribute: encoded value}`` for :func:`restore_attributes`.
    """
    return {
        name: _encode(value, f"{type(obj).__name__}.{name}", 0)
        for name, value in vars(obj).items()
        if name not in skip and not _is_configuration(value)
    }


def restore_attributes(obj: Any, state: dict[str, Any]) -> None:
    """Write :func:`attribute_state`'s ``state`` back into ``obj`` (in place); tensors go
    to the device the attribute's current tensor is on, generators are reseated."""
    for name, encoded in state.items():
        current = getattr(obj, name, None)
        setattr(obj, name, _decode(encoded, current))


def _is_configuration(value: Any) -> bool:
    return isinstance(value, _CONFIGURATION)


def _encode(value: Any, where: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise TypeError(f"{where}: nested too deep to save")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, torch.Generator):
        return {_GENERATOR: value.get_state()}
    if isinstance(value, np.random.Generator):
        return {_NUMPY_GENERATOR: value.bit_generator.state}
    if isinstance(value, np.ndarray):
        return {_ARRAY: torch.from_numpy(np.ascontiguousarray(value).copy())}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [_encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]}
    if isinstance(value, (set, frozenset)):
        return {_TUPLE: sorted(value)}
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int)) for k in value):
            raise TypeError(f"{where}: only str and int keys are saved between segments")
        return {k: _encode(v, f"{where}[{k!r}]", depth + 1) for k, v in value.items()}
    standard_library = type(value).__module__.split(".")[0] in sys.stdlib_module_names
    if hasattr(value, "__dict__") and not standard_library:
        # a helper object or a dataclass held by the object: its attributes, restored into
        # the one the caller rebuilt (or rebuilt here for a dataclass of plain fields)
        return {_OBJECT: attribute_state(value)}
    raise TypeError(f"{where}: cannot save a {type(value).__name__} between segments")


def _decode(encoded: Any, current: Any) -> Any:
    if isinstance(encoded, torch.Tensor):
        if isinstance(current, nn.Parameter):  # an optimiser holds it: write in place
            with torch.no_grad():
                current.copy_(encoded)
            return current
        device = current.device if isinstance(current, torch.Tensor) else "cpu"
        return encoded.to(device)
    if isinstance(encoded, list):
        old = current if isinstance(current, list) and len(current) == len(encoded) else None
        return [_decode(e, None if old is None else old[i]) for i, e in enumerate(encoded)]
    if not isinstance(encoded, dict):
        return encoded
    if _GENERATOR in encoded:
        generator = current if isinstance(current, torch.Generator) else torch.Generator()
        generator.set_state(encoded[_GENERATOR])
        return generator
    if _NUMPY_GENERATOR in encoded:
        generator = current if isinstance(current, np.random.Generator) else np.random.default_rng()
        generator.bit_generator.state = encoded[_NUMPY_GENERATOR]
        return generator
    if _ARRAY in encoded:
        return encoded[_ARRAY].numpy()
    if _TUPLE in encoded:
        return tuple(_decode(e, None) for e in encoded[_TUPLE])
    if _OBJECT in encoded:
        if current is None:
            raise TypeError("an object attribute to restore into is missing")
        if dataclasses.is_dataclass(current) and current.__dataclass_params__.frozen:
            fields = {k: _decode(v, getattr(current, k, None)) for k, v in encoded[_OBJECT].items()}
            return dataclasses.replace(current, **fields)
        restore_attributes(current, encoded[_OBJECT])
        return current
    return {k: _decode(v, current.get(k) if isinstance(current, dict) else None)
            for k, v in encoded.items()}  # fmt: skip


def save_training_state(
    path: str | Path,
    *,
    format: str,
    where: Mapping[str, Any],
    stateful: Mapping[str, Any],
    objects: Mapping[str, Any],
    skip: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Write a segment's state atomically: ``where`` it stands (plain values),
    ``stateful`` objects by their ``state_dict()`` (modules, optimisers, schedules),
    ``objects`` by :func:`attribute_state` (less their ``skip`` attributes, which the
    caller keeps in ``where``), and torch's global stream."""
    state = {
        "format": format,
        "where": dict(where),
        "stateful": {name: obj.state_dict() for name, obj in stateful.items()},
        "objects": {
            name: attribute_state(obj, skip=(skip or {}).get(name, ()))
            for name, obj in objects.items()
        },
        "torch_rng": torch.get_rng_state(),
    }
    atomic_write(path, lambda tmp: torch.save(state, tmp))


def load_training_state(
    path: str | Path,
    *,
    format: str,
    stateful: Mapping[str, Any],
    objects: Mapping[str, Any],
    before_load: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Restore :func:`save_training_state`'s file into objects built as the saving job
    built them; returns ``where``. ``before_load(where)`` runs first (e.g. a dtype change
    the saved weights need)."""
    state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or state.get("format") != format:
        raise ValueError(f"{path}: not a {format} state")
    if before_load is not None:
        before_load(state["where"])
    for name, obj in stateful.items():
        obj.load_state_dict(state["stateful"][name])
    for name, obj in objects.items():
        restore_attributes(obj, state["objects"][name])
    torch.set_rng_state(state["torch_rng"])
    return state["where"]
