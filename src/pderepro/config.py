"""Config utilities: read YAML, merge, validate against a JSON schema, canonical form.

The workflow's config is resolved by :func:`pderepro.studies.resolve_config`, which uses
these with each study kind's schema and checks. Errors name the offending key and what
was expected. Kept free of heavy imports: Snakemake imports it to build the DAG.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

#: libyaml's safe loader where PyYAML was built with it: parsing the 14 config and schema
#: files with the pure-Python loader took 0.43 s of every DAG build (every dry run and
#: cluster job); the same safe constructors and resolvers, so the same values.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ConfigError(ValueError):
    """The configuration is invalid; the message names the key(s)."""


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping, with the file named in any error."""
    path = Path(path)
    try:
        data = yaml.load(path.read_text(), Loader=_SAFE_LOADER)
    except FileNotFoundError as err:
        raise ConfigError(f"{path}: file not found") from err
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML ({err})") from err
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Recursively merge ``override`` into a copy of ``base`` (mappings merge, rest replaces)."""
    out = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _with_defaults(validator_class: type) -> type:
    """A validator class that also fills in each property's ``default``."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


_Validator = _with_defaults(jsonschema.Draft202012Validator)


def _key(path: Any) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


def _fitting_branch(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors behind a ``oneOf``/``anyOf`` violation, in the one branch whose type
    fits the value (a list for the list branch), so that a bad number inside a pair is
    named at its own index; ``[error]`` itself where no single branch fits."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    depth = len(error.absolute_path)
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs
        for subs in branches.values()
        if not any(e.validator == "type" and len(e.absolute_path) == depth for e in subs)
    ]
    if len(fitting) != 1:
        return [error]
    return [inner for sub in fitting[0] for inner in _fitting_branch(sub)]


def _describe(error: jsonschema.ValidationError) -> list[str]:
    """One line per violation, naming the full key (unknown keys included)."""
    inner = _fitting_branch(error)
    if inner != [error]:
        return [line for e in inner for line in _describe(e)]
    path = list(error.absolute_path)
    types = [
        e.validator_value
        for e in error.context
        if e.validator == "type" and len(e.absolute_path) == len(path)
    ]
    if error.validator in ("oneOf", "anyOf") and len(types) == len(error.validator_value):
        return [
            f"config key '{_key(path)}': {error.instance!r} is not of type "
            + " or ".join(repr(t) for t in types)
        ]
    if "propertyNames" in error.relative_schema_path:  # a key's name, not its value
        return [
            f"config key '{_key([*path, error.instance])}': not an allowed key ({error.message})"
        ]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if known and unknown:
            return [
                f"config key '{_key([*path, k])}': unknown key; expected one of {known}"
                for k in unknown
            ]
    return [f"config key '{_key(path)}': {error.message}"]


def schema_errors(config: dict[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Every violation of ``schema`` in ``config`` (filling defaults in place), NaN and
    infinite numbers included, one line each: ``config key 'a.b.c': what was expected``."""
    errors = sorted(
        _Validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [line for e in errors for line in _describe(e)] or finite_errors(config)


def validate(config: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Validate ``config`` in place against ``schema`` (filling defaults).

    Raises
    ------
    ConfigError
        Listing every violation as ``config key 'a.b.c': what was expected``.
    """
    lines = schema_errors(config, schema)
    if lines:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))


def finite_errors(config: Mapping[str, Any]) -> list[str]:
    """A line per NaN or infinite number anywhere in ``config``, naming its key."""
    return [
        f"config key '{k}': must be a finite number"
        for k, v in _walk(config)
        if isinstance(v, float) and not math.isfinite(v)
    ]


def _walk(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, Mapping):
        for k, v in node.items():
            yield from _walk(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{prefix}.{i}")
    else:
        yield prefix, node


def canonical(node: Any) -> Any:
    """``node`` with every mapping's keys sorted (recursively); lists keep their order.

    Snakemake compares a job's params by their ``repr``, in which a dict's key order
    shows: passing params in this form means reordering, reformatting or commenting a
    config file reruns nothing, while any changed value still does.
    """
    if isinstance(node, Mapping):
        return {k: canonical(node[k]) for k in sorted(node, key=str)}
    if isinstance(node, list | tuple):
        return [canonical(v) for v in node]
    return node
