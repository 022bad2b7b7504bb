"""Closures of Lorenz-96: coarse model, coarse-graining, fits, online runs and metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
import xarray as xr

from pderepro.data.io import DataFileError
from pderepro.data.lorenz96_truth import coarse_grain, ring_pairs, time_blocks, truth_run
from pderepro.evaluation.climate import (
    autocorrelation,
    climate_distances,
    hellinger,
    histogram_pdf,
    kl_divergence,
    wasserstein,
)
from pderepro.evaluation.rollout import run_coarse_model
from pderepro.models.closures import Closure, LocalMLP, build_network, fit_ar1, fit_polynomial
from pderepro.solvers.lorenz96.coarse import (
    coarse_grained_tendency,
    coarse_rk4_step,
    resolved_tendency,
)
from pderepro.solvers.lorenz96.lorenz96 import Lorenz96Problem, subgrid_tendency
from pderepro.training.checkpoint import CheckpointError
from tests.unit.configs import study

PROBLEM = Lorenz96Problem(K=8, J=4, forcing=10.0, time_step=0.005)


def test_resolved_tendency_matches_the_equation_elementwise():
    x = np.random.default_rng(0).normal(size=(3, 8))
    expected = np.empty_like(x)
    for k in range(8):
        expected[:, k] = -x[:, k - 1] * (x[:, k - 2] - x[:, (k + 1) % 8]) - x[:, k] + 10.0
    np.testing.assert_allclose(resolved_tendency(x, 10.0), expected, rtol=1e-14)


def test_coarse_grained_tendency_of_an_x_only_trajectory_is_zero():
    x0 = np.random.default_rng(1).normal(5.0, 3.0, size=(2, 8))
    x1 = coarse_rk4_step(x0, 20.0, 0.005)
    assert np.abs(coarse_grained_tendency(x0, x1, 20.0, 0.005)).max() < 1e-10


def test_coarse_rk4_step_with_a_closure_adds_its_tendency():
    x = np.random.default_rng(2).normal(size=(4, 8))
    constant = Closure("polynomial", coefficients=[1.5])  # U = 1.5 everywhere
    stepped = coarse_rk4_step(x, 20.0, 0.01, constant.tendency)
    np.testing.assert_allclose(stepped, coarse_rk4_step(x, 21.5, 0.01), rtol=1e-14)


@pytest.fixture(scope="module")
def truth() -> xr.Dataset:
    return truth_run(
        PROBLEM, members=2, spinup_time=1.0, run_time=3.0, save_interval=0.005, seed=3,
        store_fast=True,
    )  # fmt: skip


def test_coarse_graining_with_dask_equals_eager_and_the_solver(truth):
    eager = coarse_grain(truth, coarse_step=0.01, coupling=PROBLEM.coupling)
    lazy = coarse_grain(truth.chunk({"time": 37}), coarse_step=0.01, coupling=PROBLEM.coupling)
    xr.testing.assert_allclose(eager, lazy.compute())
    assert eager.sizes["time"] == 3.0 / 0.01 - 1  # every second save, last one dropped
    y = truth["Y"].isel(time=slice(1, None, 2)).to_numpy().astype(np.float64)
    expected = subgrid_tendency(y, PROBLEM)[:, :-1]
    np.testing.assert_allclose(eager["subgrid_tendency"], expected, rtol=1e-5, atol=1e-5)


def test_time_blocks_are_contiguous_ordered_and_gapped():
    blocks = time_blocks(1000, {"train": 0.7, "validation": 0.15, "test": 0.15}, gap=20)
    assert blocks["train"].start == 0
    assert blocks["validation"].start == blocks["train"].stop + 20
    assert blocks["test"].start == blocks["validation"].stop + 20
    assert blocks["test"].stop == 1000
    with pytest.raises(ValueError, match="too short"):
        time_blocks(30, {"train": 0.7, "validation": 0.15, "test": 0.15}, gap=20)


def test_polynomial_and_ar1_fits_recover_known_parameters():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 5, size=20000)
    u = 0.3 - 0.5 * x + 0.02 * x**2 - 0.003 * x**3
    np.testing.assert_allclose(fit_polynomial(x, u, 3), [0.3, -0.5, 0.02, -0.003], atol=1e-10)
    e = np.zeros((4, 20000, 2))
    for t in range(1, e.shape[1]):  # phi = 0.9, stationary sigma = 2
        e[:, t] = 0.9 * e[:, t - 1] + 2.0 * np.sqrt(1 - 0.81) * rng.standard_normal((4, 2))
    noise = fit_ar1(e)
    assert noise.phi == pytest.approx(0.9, abs=0.01)
    assert noise.sigma == pytest.approx(2.0, rel=0.05)


def test_network_closures_are_shift_equivariant_on_the_ring():
    torch.manual_seed(0)
    x = torch.randn(5, 8)
    for net in (LocalMLP([8, 8]), build_network("fno", {"modes": 3, "width": 8, "layers": 2})):
        out = net(x)
        assert out.shape == (5, 8)
        torch.testing.assert_close(net(torch.roll(x, 3, dims=1)), torch.roll(out, 3, dims=1))


def test_a_diverging_closure_is_recorded_as_a_blow_up_not_an_error():
    exploding = Closure("polynomial", coefficients=[0.0, 0.0, 0.0, 1.0])  # U = +X^3
    x0 = np.full((3, 8), 2.0)
    x0[0] = 0.1  # stays small for a while
    run = run_coarse_model(
        exploding, x0, 0.0, dt=0.005, n_steps=400, save_every=10,
        rng=np.random.default_rng(0), blowup_threshold=50.0,
    )  # fmt: skip
    assert np.isfinite(run.blowup_time[1:]).all()
    blown = int(run.blowup_time[1] / 0.05)
    assert np.isnan(run.x[1, blown:]).all() and np.isfinite(run.x[1, : blown - 1]).all()


def test_coarse_model_without_closure_is_repeated_rk4():
    x0 = np.random.default_rng(5).normal(3, 2, size=(2, 8))
    run = run_coarse_model(
        Closure("none"), x0, 20.0, dt=0.005, n_steps=20, save_every=10,
        rng=np.random.default_rng(0),
    )  # fmt: skip
    x = x0
    for _ in range(20):
        x = coarse_rk4_step(x, 20.0, 0.005)
    np.testing.assert_allclose(run.x[:, -1], x.astype(np.float32), rtol=1e-6)


def test_distribution_metrics_on_known_cases():
    edges = np.linspace(-5, 5, 51)
    rng = np.random.default_rng(6)
    a = rng.normal(size=200_000)
    p = histogram_pdf(a, edges)
    assert hellinger(p, p) == 0 and kl_divergence(p, p) == 0
    disjoint = histogram_pdf(np.full(10, 4.9), edges), histogram_pdf(np.full(10, -4.9), edges)
    assert hellinger(*disjoint) == pytest.approx(1.0)
    assert wasserstein(a, a + 0.5) == pytest.approx(0.5, abs=1e-9)
    assert kl_divergence(p, histogram_pdf(a + 1.0, edges)) > 0.1
    assert np.isnan(histogram_pdf(np.full(3, np.nan), edges)).all()


def test_autocorrelation_of_an_ar1_series_decays_geometrically():
    rng = np.random.default_rng(7)
    x = np.zeros((8, 5000, 2))
    for t in range(1, x.shape[1]):
        x[:, t] = 0.8 * x[:, t - 1] + rng.standard_normal((8, 2))
    acf = autocorrelation(x, 4)
    np.testing.assert_allclose(acf, 0.8 ** np.arange(5), atol=0.02)
    x[0, 10] = np.nan  # a blown-up member is left out, not propagated
    assert np.isfinite(autocorrelation(x, 4)).all()


def test_climate_distances_of_a_run_with_itself_are_zero():
    x = np.random.default_rng(8).normal(size=(3, 400, 8))
    metrics, curves = climate_distances(x, x, edges=np.linspace(-4, 4, 33), max_lag=5)
    assert metrics == {"hellinger": 0.0, "kl": 0.0, "wasserstein": 0.0, "acf_rmse": 0.0}
    assert curves["acf"][0] == 1.0


# ---- stages, on a tiny study ---------------------------------------------------------------

# the shipped study, shrunk: J = 4 fast variables, coarser steps, short runs
TINY_STUDY = study(
    "l96_closures",
    system={"J": 4, "time_step": 0.005},
    truth={
        "save_interval": 0.01, "climate_save_interval": 0.05, "spinup_time": 1.0,
        "pair_trajectories": 2, "pair_time": 6.0, "climate_members": 3, "climate_time": 4.0,
    },
    coarse={"time_step": 0.01},
    online={"pdf": {"low": -20.0, "high": 30.0, "bins": 50}, "acf_max_lag": 1.0,
            "forecast_lead": 0.5},
    training={"epochs": 2, "batch_size": 64, "checkpoint_every": 1},
)  # fmt: skip
SYSTEM, TRUTH, TRAINING = TINY_STUDY["system"], TINY_STUDY["truth"], TINY_STUDY["training"]
ONLINE = {**TINY_STUDY["online"], "time_step": TINY_STUDY["coarse"]["time_step"]}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from pderepro.stages import run_coarse_grain, run_generate_truth, run_truth_floor

    root = tmp_path_factory.mktemp("closures")
    for setup, forcing in (("F10", 10.0), ("F12", 12.0)):
        for role in ("pairs", "climate"):
            run_generate_truth(
                system=SYSTEM, forcing=forcing, role=role, truth=TRUTH, seed=1,
                output=str(root / f"{setup}-{role}.nc"), title="test",
            )  # fmt: skip
        run_coarse_grain(
            raw=str(root / f"{setup}-pairs.nc"),
            outputs={s: str(root / f"{setup}-{s}.nc") for s in ("train", "validation", "test")},
            coarse_step=0.01, coupling=1.0,
            split={"train": 0.6, "validation": 0.2, "test": 0.2, "gap_time": 0.2},
        )  # fmt: skip
    run_truth_floor(
        climates={s: str(root / f"{s}-climate.nc") for s in ("F10", "F12")},
        online=ONLINE, metrics=str(root / "truth.csv"), curves=str(root / "truth.nc"),
    )  # fmt: skip
    return root


@pytest.mark.parametrize(
    ("closure", "spec"),
    [
        ("cubic_ar1", {"kind": "polynomial", "degree": 3, "noise": "ar1"}),
        ("fno", {"kind": "fno", "hparams": {"modes": 3, "width": 8, "layers": 2}}),
    ],
)
def test_fit_offline_and_online_stages_write_finite_tables(study, closure, spec):
    from pderepro.stages import run_fit_closure, run_offline, run_online

    checkpoint = str(study / f"{closure}.pt")
    run_fit_closure(
        train_path=str(study / "F10-train.nc"), validation_path=str(study / "F10-validation.nc"),
        checkpoint=checkpoint, closure=closure, spec=spec, target="coarse_grained",
        training=TRAINING, seed=0,
    )  # fmt: skip
    run_offline(
        checkpoint=checkpoint, tests={s: str(study / f"{s}-test.nc") for s in ("F10", "F12")},
        metrics=str(study / f"{closure}-offline.csv"), curves=str(study / f"{closure}-off.nc"),
        closure=closure,
    )  # fmt: skip
    offline = pd.read_csv(study / f"{closure}-offline.csv")
    assert list(offline["setup"]) == ["F10", "F12"] and offline[["r2", "rmse"]].notna().all().all()
    run_online(
        checkpoint=checkpoint, climates={s: str(study / f"{s}-climate.nc") for s in ("F10", "F12")},
        setups={"F10": 10.0, "F12": 12.0}, closure=closure, online=ONLINE,
        forecast={"starts": 4, "members": 3, "lead_time": 1.0}, spinup_time=0.5, seed=0,
        metrics=str(study / f"{closure}-online.csv"), curves=str(study / f"{closure}-on.nc"),
    )  # fmt: skip
    online = pd.read_csv(study / f"{closure}-online.csv")
    floor = pd.read_csv(study / "truth.csv")
    for table in (online, floor):
        assert np.isfinite(table[["hellinger", "kl", "wasserstein", "acf_rmse"]]).all().all()
    assert online["forecast_rmse_1mtu"].notna().all() and floor["forecast_rmse_1mtu"].isna().all()
    curves = xr.open_dataset(study / f"{closure}-on.nc")
    spread = curves["forecast_spread"].to_numpy()
    assert (spread > 0).all() if spec.get("noise") else (spread == 0).all()


def test_stages_refuse_files_made_for_another_purpose(study):
    from pderepro.evaluation.predict import load_closure
    from pderepro.stages import run_coarse_grain, run_fit_closure, run_offline

    with pytest.raises(DataFileError, match="Y"):  # a climate run has no Y to coarse-grain
        run_coarse_grain(
            raw=str(study / "F10-climate.nc"), outputs={}, coarse_step=0.01, coupling=1.0,
            split={"train": 0.6, "validation": 0.2, "test": 0.2, "gap_time": 0.2},
        )  # fmt: skip
    with pytest.raises(DataFileError, match="split"):  # validation and train swapped
        run_fit_closure(
            train_path=str(study / "F10-validation.nc"),
            validation_path=str(study / "F10-train.nc"), checkpoint=str(study / "x.pt"),
            closure="none", spec={"kind": "none"}, target="subgrid", training=TRAINING, seed=0,
        )  # fmt: skip
    checkpoint = str(study / "none.pt")
    run_fit_closure(
        train_path=str(study / "F10-train.nc"), validation_path=str(study / "F10-validation.nc"),
        checkpoint=checkpoint, closure="none", spec={"kind": "none"}, target="subgrid",
        training=TRAINING, seed=0,
    )  # fmt: skip
    with pytest.raises(CheckpointError, match="closure"):
        load_closure(checkpoint, expect={"closure": "mlp"})
    with pytest.raises(DataFileError, match="split"):  # a train block passed as a test block
        run_offline(
            checkpoint=checkpoint, tests={"F10": str(study / "F10-train.nc")},
            metrics=str(study / "x.csv"), curves=str(study / "x.nc"), closure="none",
        )  # fmt: skip
    x, u = ring_pairs(xr.open_dataset(study / "F10-test.nc"), "subgrid")
    assert x.shape == u.shape and x.shape[1] == 8
