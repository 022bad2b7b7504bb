"""Workflow configuration: merge config.yaml, a preset and the studies, then validate.

Nothing here imports Snakemake: the Snakefile calls :func:`resolve_config`, and the
tests call it directly. Errors name the offending key and what was expected.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from pderepro.data.layouts import LAYOUTS, subsample_stride

#: Keys that presets may set: sizes only, never the science.
PRESET_KEYS = {
    # time_step: Navier-Stokes' stable step depends on the grid the preset picks
    "dataset": {"base_resolution", "n_train", "n_test", "shard_size", "time_step"},
    # per regime: which run, their sample counts and horizon
    "regimes": {"run", "n_train", "n_test", "t_final"},
    # which trained regime super-resolution reuses (one the preset runs) and its samples
    "superresolution": {"regime", "n_test"},
    "resolutions": None,
    # the optimiser's budget: a run of a few hundred steps needs smaller batches, a larger rate
    # and a decay over the whole run; the study's own settings (the paper's) apply otherwise
    "training": {"epochs", "seeds", "checkpoint_every", "batch_size", "learning_rate", "scheduler"},
    "truth": {"spinup_time", "pair_trajectories", "pair_time", "climate_members", "climate_time"},
    "forecast": {"starts", "members", "lead_time"},
}


class ConfigError(ValueError):
    """The configuration is invalid; the message names the key(s)."""


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping, with the file named in any error."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
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


def _describe(error: jsonschema.ValidationError) -> str:
    """One line per violation, naming the full key (unknown keys included)."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if known and unknown:
            return "\n  ".join(
                f"config key '{_key([*path, k])}': unknown key; expected one of {known}"
                for k in unknown
            )
    return f"config key '{_key(path)}': {error.message}"


def validate(config: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Validate ``config`` in place against ``schema`` (filling defaults).

    Raises
    ------
    ConfigError
        Listing every violation as ``config key 'a.b.c': what was expected``.
    """
    errors = sorted(_Validator(schema).iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [_describe(e) for e in errors]
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))
    bad = [k for k, v in _walk(config) if isinstance(v, float) and not math.isfinite(v)]
    if bad:
        raise ConfigError(
            "invalid configuration:\n  "
            + "\n  ".join(f"config key '{k}': must be a finite number" for k in bad)
        )


def _walk(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, Mapping):
        for k, v in node.items():
            yield from _walk(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{prefix}.{i}")
    else:
        yield prefix, node


def _check_preset(preset: Mapping[str, Any], path: Path) -> None:
    """Presets hold sizes only: reject any key outside :data:`PRESET_KEYS`."""
    for study, sizes in preset.items():
        if not isinstance(sizes, Mapping):
            raise ConfigError(f"{path}: key '{study}' must map to the study's sizes")
        for section, value in sizes.items():
            if section not in PRESET_KEYS:
                raise ConfigError(
                    f"{path}: key '{study}.{section}' is not a size; presets may "
                    f"set only {sorted(PRESET_KEYS)}"
                )
            allowed = PRESET_KEYS[section]
            if section == "regimes" and isinstance(value, Mapping):
                for regime, sizes in value.items():
                    extra = sorted(set(sizes or {}) - allowed)
                    if extra:
                        raise ConfigError(
                            f"{path}: key '{study}.regimes.{regime}.{extra[0]}' is not a "
                            f"size; allowed: {sorted(allowed)}"
                        )
            elif allowed is not None and isinstance(value, Mapping):
                extra = sorted(set(value) - allowed)
                if extra:
                    raise ConfigError(
                        f"{path}: key '{study}.{section}.{extra[0]}' is not a "
                        f"size; allowed: {sorted(allowed)}"
                    )


def _multiple(value: float, step: float) -> bool:
    n = round(value / step)
    return n >= 1 and math.isclose(n * step, value, rel_tol=1e-9)


def _check_closure_study(where: str, study: Mapping[str, Any]) -> None:
    """Cross-key rules of a closure study: setups and time intervals that fit together."""
    if study["training_setup"] not in study["setups"]:
        raise ConfigError(
            f"config key '{where}.training_setup': {study['training_setup']!r} is not one of "
            f"the setups {sorted(study['setups'])}"
        )
    truth, coarse = study["truth"], study["coarse"]
    checks = [
        ("truth.save_interval", truth["save_interval"], study["system"]["time_step"]),
        ("coarse.time_step", coarse["time_step"], truth["save_interval"]),
        ("truth.climate_save_interval", truth["climate_save_interval"], coarse["time_step"]),
        ("truth.spinup_time", truth["spinup_time"], truth["climate_save_interval"]),
        ("truth.climate_time", truth["climate_time"], truth["climate_save_interval"]),
        ("truth.pair_time", truth["pair_time"], truth["save_interval"]),
        ("forecast.lead_time", study["forecast"]["lead_time"], truth["climate_save_interval"]),
        ("online.acf_max_lag", study["online"]["acf_max_lag"], truth["climate_save_interval"]),
    ]
    for key, value, step in checks:
        if not _multiple(value, step):
            raise ConfigError(f"config key '{where}.{key}': {value} is not a multiple of {step}")
    if study["online"]["acf_max_lag"] >= truth["climate_time"]:
        raise ConfigError(
            f"config key '{where}.online.acf_max_lag': must be shorter than truth.climate_time"
        )
    pdf = study["online"]["pdf"]
    if pdf["low"] >= pdf["high"]:
        raise ConfigError(f"config key '{where}.online.pdf.low': must be below pdf.high")
    for key, closure in study["closures"].items():
        if (closure["kind"] == "polynomial") != ("degree" in closure):
            raise ConfigError(
                f"config key '{where}.closures.{key}.degree': required for polynomial "
                "closures and only for them"
            )


def _check_regimes(where: str, study: Mapping[str, Any]) -> None:
    """Cross-key rules of a regimes study: run regimes are fully sized, horizons fit."""
    run = [key for key, regime in study["regimes"].items() if regime["run"]]
    if not run:
        raise ConfigError(f"config key '{where}.regimes': the preset runs none of them")
    frames_in = study["dataset"]["frames_in"]
    for key in run:
        regime = study["regimes"][key]
        for size in ("viscosity", "t_final", "n_train", "n_test"):
            if size not in regime:
                raise ConfigError(f"config key '{where}.regimes.{key}.{size}': required")
        if not float(regime["t_final"]).is_integer() or regime["t_final"] <= frames_in:
            raise ConfigError(
                f"config key '{where}.regimes.{key}.t_final': must be a whole number of "
                f"time units beyond dataset.frames_in={frames_in}"
            )
        frames_out = (regime["t_final"] - frames_in) * study["dataset"]["records_per_time"]
        for name, model in study["models"].items():
            hparams = model.get("hparams", {})
            if "modes_time" in hparams:
                room = frames_out + hparams.get("time_padding", 0)
                if room < 2 * hparams["modes_time"]:
                    raise ConfigError(
                        f"config key '{where}.models.{name}.hparams.modes_time': "
                        f"{hparams['modes_time']} temporal modes need target frames + "
                        f"time_padding >= {2 * hparams['modes_time']}; regime {key} has "
                        f"{frames_out:g} + {hparams.get('time_padding', 0)}"
                    )
    sr = study["superresolution"]
    if sr.get("regime") not in run:
        raise ConfigError(
            f"config key '{where}.superresolution.regime': {sr.get('regime')!r} is not a "
            f"regime the preset runs ({run})"
        )
    if sr["model"] not in study["models"]:
        raise ConfigError(f"config key '{where}.superresolution.model': no model {sr['model']!r}")


def _check_consistency(study_name: str, study: Mapping[str, Any]) -> None:
    """Cross-key rules that a JSON schema cannot express."""
    where = f"study.{study_name}"
    if study["kind"] == "closures":
        _check_closure_study(where, study)
        return
    if study["kind"] == "regimes":
        _check_regimes(where, study)
    base = study["dataset"]["base_resolution"]
    grid = LAYOUTS[study["dataset"]["solver"]].grid
    for res in study["resolutions"]:
        if subsample_stride(base, res, grid) is None:
            raise ConfigError(
                f"config key '{where}.resolutions': no stride takes the {grid} grid of "
                f"dataset.base_resolution={base} points to {res}"
            )
    for key, model in study["models"].items():
        hparams = model.get("hparams", {})
        modes = hparams.get("modes")
        room = min(study["resolutions"]) + hparams.get("padding", 0)
        if modes is not None and 2 * modes > room:
            raise ConfigError(
                f"config key '{where}.models.{key}.hparams.modes': {modes} modes "
                f"need resolution + padding >= {2 * modes}, got {room}"
            )
    known = set(study["models"]) | set(study.get("baselines", {}))
    for key in study.get("published", {}).get("values", {}):
        if key not in known:
            raise ConfigError(
                f"config key '{where}.published.values.{key}': no such model or "
                f"baseline (known: {sorted(known)})"
            )


def resolve_config(
    config: Mapping[str, Any], *, config_dir: str | Path = "config", schema_path: str | Path
) -> dict[str, Any]:
    """Merge and validate the workflow configuration.

    Parameters
    ----------
    config : mapping
        ``config/config.yaml`` with any ``--config`` overrides applied (Snakemake's config).
    config_dir : path
        Directory holding ``presets/`` and ``studies/``.
    schema_path : path
        ``workflow/schemas/config.schema.yaml``.

    Returns
    -------
    dict
        The validated config with defaults filled and ``study.<name>`` merged from the
        study file and the preset.

    Raises
    ------
    ConfigError
        On any invalid key, naming it.
    """
    schema = load_yaml(schema_path)
    config_dir = Path(config_dir)
    top = copy.deepcopy(dict(config))
    if "study" in top:
        raise ConfigError("config key 'study' is filled in from config/studies; set 'studies'")
    validate(top, schema)  # preset and study names first: they pick the files below
    preset_path = config_dir / "presets" / f"{top['preset']}.yaml"
    preset = load_yaml(preset_path)
    _check_preset(preset, preset_path)
    for name in top["studies"]:
        study = load_yaml(config_dir / "studies" / f"{name}.yaml")
        top["study"][name] = deep_merge(study, preset.get(name, {}))
    validate(top, schema)
    for name in top["studies"]:
        _check_consistency(name, top["study"][name])
    return top


def regime_studies(name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The resolution studies, one per run regime, that a regimes study is built from.

    Each is named ``<study>/<regime>`` (so its outputs nest under ``results/<study>/``)
    and has its own dataset ``<dataset>_<regime>`` with the regime's viscosity, horizon
    and sample counts.
    """
    out = {}
    for key, regime in study["regimes"].items():
        if not regime["run"]:
            continue
        dataset = {
            **study["dataset"],
            "name": f"{study['dataset']['name']}_{key}".replace("-", "_"),
            **{k: regime[k] for k in ("viscosity", "t_final", "n_train", "n_test")},
        }
        out[f"{name}/{key}"] = {
            "kind": "resolution",
            "title": f"{study['title']}, {regime.get('label', key)}",
            "regime": key,
            "dataset": dataset,
            "resolutions": study["resolutions"],
            "models": study["models"],
            "training": study["training"],
            "baselines": {},
            "figures": study["figures"],
        }
    return out


def superresolution_dataset(study: Mapping[str, Any]) -> dict[str, Any]:
    """The test-only dataset of a regimes study's super-resolution: the regime's data on
    the solver grid with ``time_factor`` frames per time unit."""
    sr = study["superresolution"]
    regime = study["regimes"][sr["regime"]]
    base = study["dataset"]
    return {
        **base,
        "name": f"{base['name']}_{sr['regime']}_fine".replace("-", "_"),
        "viscosity": regime["viscosity"],
        "t_final": regime["t_final"],
        "records_per_time": base["records_per_time"] * sr["time_factor"],
        "n_train": 1,  # unused: only the test split is made
        "n_test": sr["n_test"],
    }


def model_training(study: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The study's training settings with the model's own overrides applied."""
    return deep_merge(study["training"], study["models"][model].get("training", {}))
