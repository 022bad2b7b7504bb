"""Diffusion-reaction (Fisher-KPP) solver and data: exact basic forms, second-order Strang
splitting, initial conditions in [0, 1], and datasets with (nu, rho) as coordinates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pderepro.data.generate_pdebench as gp
from pderepro.config import ConfigError, validate
from pderepro.data.io import open_layout_netcdf, write_netcdf
from pderepro.data.specs import DATASET_SPECS
from pderepro.solvers.common.pdebench_ic import cell_centres, draw_initial_condition, frame_times
from pderepro.solvers.reaction_diffusion.diffusion_reaction import (
    diffusion_reaction_frames,
    logistic,
    unit_interval_initial_conditions,
)
from pderepro.studies import config_schema
from pderepro.verification import diffusion_reaction as verification

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"


def _ics(n, seed=0):
    rng = np.random.default_rng(seed)
    return [draw_initial_condition(rng) for _ in range(n)]


def test_initial_conditions_span_the_unit_interval_per_sample():
    u0 = unit_interval_initial_conditions(_ics(32), cell_centres(256))
    np.testing.assert_allclose(u0.min(axis=1), 0.0, atol=0)
    np.testing.assert_allclose(u0.max(axis=1), 1.0, rtol=1e-15)


def test_basic_forms_are_exact_and_the_full_equation_converges_at_second_order():
    assert verification.pure_diffusion()["max_abs_error"] < 1e-12
    assert verification.pure_reaction(n_samples=4)["max_abs_error"] < 1e-11
    rows = verification.strang_self_convergence(n_samples=2)
    orders = [row["observed_order"] for row in rows[1:]]
    assert all(1.9 < order < 2.1 for order in orders), orders


def test_solution_stays_in_the_unit_interval_and_grows_towards_one():
    u0 = unit_interval_initial_conditions(_ics(8), cell_centres(128))
    u = diffusion_reaction_frames(u0, 0.5, 5.0, n_frames=21, steps_per_frame=10)
    assert u.shape == (8, 21, 128) and u.min() >= 0.0 and u.max() <= 1.0 + 1e-12
    means = u.mean(axis=2)  # (sample, time): logistic growth of the mean
    assert np.all(np.diff(means, axis=1) > 0)
    # no reaction: diffusion conserves the mean exactly
    still = diffusion_reaction_frames(u0, 0.5, 0.0, n_frames=5)
    np.testing.assert_allclose(
        still.mean(axis=2), np.repeat(u0.mean(axis=1)[:, None], 5, 1), rtol=1e-12
    )


def test_logistic_is_a_semigroup():
    u = np.linspace(0, 1, 11)
    np.testing.assert_allclose(logistic(logistic(u, 3.0, 0.2), 3.0, 0.3), logistic(u, 3.0, 0.5))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"nu": -1.0}, "nu must be finite and non-negative"), ({"rho": np.inf}, "rho must be"),
     ({"steps_per_frame": 0}, "steps_per_frame must be >= 1"),
     ({"steps_per_frame": 2.5}, "must be an integer")],
)  # fmt: skip
def test_bad_arguments_are_refused(kwargs, match):
    args = {"nu": 1.0, "rho": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        diffusion_reaction_frames(np.zeros((1, 8)) + 0.5, args.pop("nu"), args.pop("rho"), **args)


def _dataset(**overrides):
    node = {
        "name": "dr", "solver": "pdebench_diffusion_reaction", "nu": 1.0, "rho": 2.0,
        "base_resolution": 64, "n_frames": 11, "steps_per_frame": 5, "n_train": 4,
        "n_validation": 2, "n_test": 2, "shard_size": 4, "seed": 3, **overrides,
    }  # fmt: skip
    validate(node, {"$ref": "#/$defs/dataset", "$defs": config_schema(SCHEMA)["$defs"]})
    return node


def test_dataset_has_both_parameters_as_coordinates_and_round_trips(tmp_path):
    ds = gp.generate_pdebench_diffusion_reaction(_dataset(), split="train", start=0, count=3)
    assert ds["u"].shape == (3, 11, 64) and float(ds["u"].min()) >= 0.0
    np.testing.assert_array_equal(ds["time"], frame_times(1.0, 11))
    np.testing.assert_array_equal(ds["nu"], [1.0] * 3)
    np.testing.assert_array_equal(ds["rho"], [2.0] * 3)
    ds2, layout = open_layout_netcdf(write_netcdf(ds, tmp_path / "dr.nc"))
    assert layout == DATASET_SPECS["pdebench_diffusion_reaction"].layout
    assert layout.variables == ("u", "nu", "rho")
    # a basic form: rho = 0 is pure diffusion, so the mean stays put
    flat = gp.generate_pdebench_diffusion_reaction(
        _dataset(rho=0.0), split="train", start=0, count=3
    )
    means = flat["u"].to_numpy().astype(np.float64).mean(axis=2)
    np.testing.assert_allclose(means, np.repeat(means[:, :1], 11, axis=1), atol=1e-6)


def test_schema_defaults_are_pdebench_and_a_missing_coefficient_is_named():
    cfg = _dataset()
    del cfg["n_frames"], cfg["steps_per_frame"]
    validate(cfg, {"$ref": "#/$defs/dataset", "$defs": config_schema(SCHEMA)["$defs"]})
    assert (cfg["n_frames"], cfg["t_final"], cfg["steps_per_frame"]) == (101, 1.0, 100)
    with pytest.raises(ConfigError, match="rho"):
        _dataset(rho=-1.0)
    bad = {k: v for k, v in _dataset().items() if k != "rho"}
    with pytest.raises(ValueError, match="rho is not set"):
        gp.generate_pdebench_diffusion_reaction(bad, split="train", start=0, count=1)
