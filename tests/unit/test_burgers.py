"""Tests for the Burgers solver, the Gaussian random field and the verification study."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pderepro.solvers.burgers.burgers import (
    BurgersProblem,
    cole_hopf_sine,
    heat_solution,
    solve_burgers,
)
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.common.random_fields import grf_eigenvalues_1d, grf_periodic_1d
from pderepro.verification.burgers import ETDRK4_ORDER, burgers_convergence

CPU = "cpu"


def test_grf_shape_dtype_and_zero_mean():
    u = grf_periodic_1d(50, 128, rng=np.random.default_rng(0))
    assert u.shape == (50, 128)
    assert u.dtype == np.float64
    np.testing.assert_allclose(u.mean(axis=1), 0.0, atol=1e-12)


def test_grf_reproducible_for_same_seed():
    a = grf_periodic_1d(3, 64, rng=np.random.default_rng(7))
    b = grf_periodic_1d(3, 64, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)


def test_grf_variance_matches_eigenvalue_sum():
    # Variance is dominated by k = 1, whose estimate has relative spread 1/sqrt(samples).
    n = 32
    u = grf_periodic_1d(20000, n, rng=np.random.default_rng(1))
    lam = grf_eigenvalues_1d((n - 1) // 2)
    # Each mode k contributes lambda_k through both e^{+ikx} and e^{-ikx}.
    expected = 2.0 * lam.sum()
    # Pointwise variance, averaged over the (statistically homogeneous) grid.
    assert u.var(axis=0).mean() == pytest.approx(expected, rel=0.03)


def test_grf_spectrum_matches_eigenvalues():
    n, samples = 32, 20000
    u = grf_periodic_1d(samples, n, rng=np.random.default_rng(2))
    c = np.fft.rfft(u, axis=1) / n
    n_modes = (n - 1) // 2
    # c_k = sqrt(2 lambda_k) (a_k - i b_k) / 2, so E|c_k|^2 = lambda_k.
    power = (np.abs(c[:, 1 : n_modes + 1]) ** 2).mean(axis=0)
    lam = grf_eigenvalues_1d(n_modes)
    np.testing.assert_allclose(power, lam, rtol=0.05)
    assert np.all(np.abs(c[:, n // 2]) < 1e-12 * np.abs(c).max())  # Nyquist left at zero


def test_grf_parameters_change_spectrum():
    lam = grf_eigenvalues_1d(3, scale=2.0, shift=1.0, exponent=3.0)
    k = np.arange(1, 4)
    np.testing.assert_allclose(lam, 2.0 * ((2 * np.pi * k) ** 2 + 1.0) ** -3.0)


def test_cole_hopf_initial_condition():
    x = np.arange(200) / 200
    u = cole_hopf_sine(x, 0.0, amplitude=1.5, viscosity=0.1)
    np.testing.assert_allclose(u, 1.5 * np.sin(2 * np.pi * x), atol=1e-13)


def test_cole_hopf_large_z_does_not_overflow():
    x = np.arange(64) / 64
    u = cole_hopf_sine(x, 0.5, amplitude=1.0, viscosity=0.005)  # z ~ 16
    assert np.all(np.isfinite(u))
    assert np.abs(u).max() <= 1.0 + 1e-9  # maximum principle


def test_solve_burgers_matches_cole_hopf():
    problem = BurgersProblem(viscosity=0.1, t_final=1.0, time_step=1e-3, resolution=256)
    x = problem.grid
    u = solve_burgers(np.sin(2 * np.pi * x)[None], problem, device=CPU)
    exact = cole_hopf_sine(x, 1.0, amplitude=1.0, viscosity=0.1)
    assert np.abs(u[0] - exact).max() <= 1e-8


def test_solve_burgers_1d_input_returns_1d():
    problem = BurgersProblem(t_final=0.1, time_step=1e-2, resolution=32)
    u = solve_burgers(np.sin(2 * np.pi * problem.grid), problem, device=CPU)
    assert u.shape == (32,)


def test_time_order_is_four():
    table = burgers_convergence(
        resolutions=(16,),
        time_steps=(0.0125, 0.00625, 0.003125),
        time_resolution=64,
    )
    time_rows = table[table["case"] == "cole_hopf_time"]
    finest = time_rows["observed_order"].iloc[-1]
    assert abs(finest - ETDRK4_ORDER) < 0.3
    assert list(table.columns) == [
        "solver",
        "case",
        "resolution",
        "dt",
        "max_abs_error",
        "observed_order",
    ]
    assert set(table["solver"]) == {"burgers_etdrk4"}
    assert math.isnan(time_rows["observed_order"].iloc[0])


def test_batch_equals_individual_solves():
    problem = BurgersProblem(t_final=0.2, time_step=1e-2, resolution=64)
    u0 = grf_periodic_1d(3, 64, rng=np.random.default_rng(3))
    batch = solve_burgers(u0, problem, device=CPU)
    for i in range(3):
        single = solve_burgers(u0[i : i + 1], problem, device=CPU)
        np.testing.assert_allclose(batch[i], single[0], rtol=0, atol=1e-14)


def test_mean_is_conserved():
    problem = BurgersProblem(t_final=0.5, time_step=5e-3, resolution=128)
    u0 = grf_periodic_1d(4, 128, rng=np.random.default_rng(4)) + np.array([[0.0], [0.3], [-1], [2]])
    u = solve_burgers(u0, problem, device=CPU)
    np.testing.assert_allclose(u.mean(axis=1), u0.mean(axis=1), atol=1e-13)


def test_heat_solution_single_mode():
    n, nu, t = 64, 0.05, 0.7
    x = np.arange(n) / n
    u0 = np.stack([np.cos(2 * np.pi * 3 * x), 2.0 + np.sin(2 * np.pi * 5 * x)])
    u = heat_solution(u0, nu, t)
    expected = np.stack(
        [
            np.exp(-nu * (2 * np.pi * 3) ** 2 * t) * np.cos(2 * np.pi * 3 * x),
            2.0 + np.exp(-nu * (2 * np.pi * 5) ** 2 * t) * np.sin(2 * np.pi * 5 * x),
        ]
    )
    np.testing.assert_allclose(u, expected, atol=1e-14)


def test_problem_derived_properties():
    p = BurgersProblem(t_final=1.0, time_step=0.1, resolution=8)
    assert p.n_steps == 10
    assert p.dx == 0.125
    np.testing.assert_array_equal(p.grid, np.arange(8) / 8)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"viscosity": 0.0}, "viscosity"),
        ({"viscosity": -0.1}, "viscosity"),
        ({"t_final": -1.0}, "t_final"),
        ({"time_step": 0.0}, "time_step"),
        ({"time_step": float("nan")}, "time_step"),
        ({"time_step": 0.3}, "time_step"),
        ({"resolution": 0}, "resolution"),
        ({"resolution": 16.5}, "resolution"),
    ],
)
def test_problem_rejects_bad_values(kwargs, field):
    with pytest.raises(ValueError, match=field):
        BurgersProblem(**kwargs)


def test_diverged_error_names_sample():
    problem = BurgersProblem(t_final=0.1, time_step=1e-3, resolution=32)
    u0 = grf_periodic_1d(4, 32, rng=np.random.default_rng(5))
    u0[2, 7] = np.nan
    with pytest.raises(SolverDivergedError, match="sample 2") as info:
        solve_burgers(u0, problem, device=CPU)
    assert "t=" in str(info.value)
    assert isinstance(info.value, RuntimeError)


def test_rejects_wrong_shape():
    problem = BurgersProblem(t_final=0.1, time_step=1e-2, resolution=32)
    with pytest.raises(ValueError, match="shape"):
        solve_burgers(np.zeros((2, 16)), problem, device=CPU)


def test_stepper_step_leaves_input_unchanged():
    import torch

    from pderepro.solvers.burgers.burgers import BurgersETDRK4

    stepper = BurgersETDRK4(32, 0.1, 1e-2, device=CPU)
    v = torch.fft.rfft(torch.as_tensor(grf_periodic_1d(2, 32, rng=np.random.default_rng(6))))
    before = v.clone()
    out = stepper.step(v)
    assert torch.equal(v, before)
    assert torch.equal(out, stepper.step_(v.clone()))
