"""Tests for the Darcy random coefficients, finite-difference solver and verification study."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import scipy.fft

from pderepro.solvers.elliptic.darcy import (
    DarcyProblem,
    coefficient_from_field,
    cosine_grf_eigenvalues,
    darcy_operator,
    generate_darcy_samples,
    sample_cosine_grf,
    solve_darcy,
)
from pderepro.verification.darcy import (
    FD5_ORDER,
    INTERFACE_ORDERS,
    SMOOTH_CASE,
    darcy_convergence,
    interface_case,
    manufactured_interface,
)
from pderepro.verification.table import COLUMNS

#: u(1/2, 1/2) for -Delta u = 1 on the unit square, u = 0 on the boundary (torsion problem).
TORSION_CENTRE = 0.07367135328

# ----------------------------------------------------------------------------- random fields


def _direct_grf(xi: np.ndarray, resolution: int, **grf) -> np.ndarray:
    """The cosine series summed term by term with an explicit basis matrix."""
    k = xi.shape[-1]
    x = np.linspace(0.0, 1.0, resolution)
    norm = np.where(np.arange(k) > 0, math.sqrt(2.0), 1.0)
    basis = np.cos(np.pi * np.outer(x, np.arange(k))) * norm  # (s, K)
    lam = cosine_grf_eigenvalues(k, **grf)
    return np.einsum("ik,nkl,jl->nij", basis, np.sqrt(lam) * xi, basis)


@pytest.mark.parametrize(("resolution", "n_modes"), [(13, None), (13, 7), (12, 12)])
def test_grf_matches_direct_series(resolution, n_modes):
    grf = {"shift": 4.0, "exponent": 1.5, "scale": 3.0}
    g = sample_cosine_grf(2, resolution, rng=np.random.default_rng(5), n_modes=n_modes, **grf)
    k = resolution if n_modes is None else n_modes
    xi = np.random.default_rng(5).standard_normal((2, k, k))
    assert g.shape == (2, resolution, resolution) and g.dtype == np.float64
    np.testing.assert_allclose(g, _direct_grf(xi, resolution, **grf), rtol=0, atol=1e-14)


def test_grf_deterministic_and_batch_independent():
    g = sample_cosine_grf(3, 17, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(g, sample_cosine_grf(3, 17, rng=np.random.default_rng(1)))
    rng = np.random.default_rng(1)
    one_by_one = np.concatenate([sample_cosine_grf(1, 17, rng=rng) for _ in range(3)])
    np.testing.assert_array_equal(g, one_by_one)
    assert not np.array_equal(g, sample_cosine_grf(3, 17, rng=np.random.default_rng(2)))
    assert sample_cosine_grf(0, 17, rng=np.random.default_rng(1)).shape == (0, 17, 17)


def test_grf_nested_grids_agree_with_fixed_modes():
    fine = sample_cosine_grf(2, 33, rng=np.random.default_rng(3), n_modes=9)
    coarse = sample_cosine_grf(2, 9, rng=np.random.default_rng(3), n_modes=9)
    np.testing.assert_allclose(fine[:, ::4, ::4], coarse, rtol=0, atol=1e-14)


def test_grf_zero_neumann():
    # Smooth parameters, so finite differences see the continuum derivative.
    s = 201
    g = sample_cosine_grf(4, s, exponent=4.0, rng=np.random.default_rng(0), n_modes=8)
    h = 1.0 / (s - 1)
    interior = np.sqrt(np.mean(((g[:, 2:, :] - g[:, :-2, :]) / (2 * h)) ** 2))
    # Second-order one-sided normal derivatives on all four sides.
    sides = [g, g[:, ::-1, :], g.transpose(0, 2, 1), g.transpose(0, 2, 1)[:, ::-1, :]]
    for side in sides:
        normal = (-3 * side[:, 0, :] + 4 * side[:, 1, :] - side[:, 2, :]) / (2 * h)
        assert np.max(np.abs(normal)) < 1e-3 * interior


def test_grf_mean_zero_and_variance():
    n, s, k = 400, 33, 16
    grf = {"shift": 9.0, "exponent": 2.0, "scale": 100.0}
    g = sample_cosine_grf(n, s, rng=np.random.default_rng(11), n_modes=k, **grf)
    w = np.full(s, 1.0 / (s - 1))
    w[[0, -1]] *= 0.5  # trapezoid weights: exact for products of the retained cosines
    np.testing.assert_allclose(np.einsum("i,nij,j->n", w, g, w), 0.0, atol=1e-12)
    # Each field's mean square is sum_k lambda_k xi_k^2: mean sum(lam), variance 2 sum(lam^2).
    lam = cosine_grf_eigenvalues(k, **grf)
    mean_square = np.einsum("i,nij,j->n", w, g**2, w)
    tolerance = 4.0 * math.sqrt(2.0 * np.sum(lam**2) / n)
    assert abs(mean_square.mean() - lam.sum()) < tolerance
    assert tolerance < 0.2 * lam.sum()  # the check has teeth


def test_coefficient_two_valued():
    problem = DarcyProblem(resolution=33)
    g = sample_cosine_grf(8, 33, rng=np.random.default_rng(4))
    a = coefficient_from_field(g, problem)
    assert a.dtype == np.float64 and a.shape == g.shape
    assert set(np.unique(a)) == {3.0, 12.0}
    assert 0.2 < np.mean(a == 12.0) < 0.8
    np.testing.assert_array_equal(
        coefficient_from_field(np.array([-1e-300, 0.0, 2.0]), problem), [3.0, 12.0, 12.0]
    )
    with pytest.raises(ValueError, match="NaN"):
        coefficient_from_field(np.array([0.0, np.nan]), problem)


# ----------------------------------------------------------------------------- solver


def _random_coefficient(n: int, s: int, seed: int = 0) -> np.ndarray:
    return coefficient_from_field(
        sample_cosine_grf(n, s, rng=np.random.default_rng(seed)), DarcyProblem(resolution=s)
    )


def test_solution_zero_on_boundary_and_positive():
    a = _random_coefficient(3, 41)
    u = solve_darcy(a, DarcyProblem(resolution=41))
    assert u.shape == a.shape and u.dtype == np.float64
    for edge in (u[:, 0, :], u[:, -1, :], u[:, :, 0], u[:, :, -1]):
        assert np.all(edge == 0.0)
    assert np.all(u[:, 1:-1, 1:-1] > 0)  # maximum principle for f = 1 > 0
    # Bounded by the torsion solutions of the extreme coefficients.
    assert np.max(u) < TORSION_CENTRE / 3.0 and np.max(u) > TORSION_CENTRE / 12.0


def test_discrete_residual_independent_stencil():
    s = 23
    problem = DarcyProblem(resolution=s)
    a = np.random.default_rng(2).uniform(0.5, 4.0, (s, s))
    f = np.random.default_rng(3).standard_normal((s, s))
    u = solve_darcy(a, problem, rhs=f)
    h = problem.h
    c = u[1:-1, 1:-1]
    fluxes = 0.0
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nb = u[1 + di : s - 1 + di, 1 + dj : s - 1 + dj]
        a1, a2 = a[1:-1, 1:-1], a[1 + di : s - 1 + di, 1 + dj : s - 1 + dj]
        face = 2.0 * a1 * a2 / (a1 + a2)  # harmonic face mean
        fluxes = fluxes + face * (c - nb)
    np.testing.assert_allclose(fluxes / h**2, f[1:-1, 1:-1], rtol=0, atol=1e-10)


def test_operator_symmetric():
    a = _random_coefficient(1, 15)[0]
    matrix = darcy_operator(a, 1.0 / 14)
    assert matrix.shape == (13**2, 13**2)
    assert abs(matrix - matrix.T).max() == 0.0


def test_constant_coefficient_matches_sine_series():
    s, a0 = 33, 2.5
    problem = DarcyProblem(resolution=s)
    u = solve_darcy(np.full((s, s), a0), problem)
    # Exact discrete solution: the 5-point Laplacian is diagonal in the DST-I basis.
    h, m = problem.h, np.arange(1, s - 1)
    eig = (4.0 / h**2) * np.sin(m * np.pi * h / 2) ** 2
    coeffs = scipy.fft.dstn(np.ones((s - 2, s - 2)), type=1)
    discrete = scipy.fft.idstn(coeffs / (a0 * (eig[:, None] + eig[None, :])), type=1)
    np.testing.assert_allclose(u[1:-1, 1:-1], discrete, rtol=1e-12, atol=0)
    # And second-order close to the continuum torsion solution.
    assert abs(u[s // 2, s // 2] - TORSION_CENTRE / a0) < 0.5 * h**2


def test_symmetric_coefficient_gives_symmetric_solution():
    g = sample_cosine_grf(2, 29, rng=np.random.default_rng(7))
    g = g + g.transpose(0, 2, 1)  # symmetric under x <-> y
    g = g + g[:, ::-1, ::-1]  # and under the point reflection through the centre
    problem = DarcyProblem(resolution=29)
    u = solve_darcy(coefficient_from_field(g, problem), problem)
    np.testing.assert_allclose(u, u.transpose(0, 2, 1), rtol=0, atol=1e-14)
    np.testing.assert_allclose(u, u[:, ::-1, ::-1], rtol=0, atol=1e-14)


def test_batch_and_rhs_shapes():
    s = 17
    problem = DarcyProblem(resolution=s, forcing=2.0)
    a = _random_coefficient(2, s)
    u = solve_darcy(a, problem)
    np.testing.assert_allclose(solve_darcy(a[1], problem), u[1], rtol=1e-13)
    np.testing.assert_allclose(solve_darcy(a, problem, rhs=2.0), u, rtol=1e-13)
    np.testing.assert_allclose(solve_darcy(a, problem, rhs=np.full((s, s), 2.0)), u, rtol=1e-13)
    stacked = np.stack([np.full((s, s), 2.0), np.full((s, s), -4.0)])
    u2 = solve_darcy(a, problem, rhs=stacked)
    np.testing.assert_allclose(u2[1], -2.0 * u[1], rtol=1e-13)


def test_generate_samples():
    problem = DarcyProblem(resolution=17)
    a, u = generate_darcy_samples(3, problem, seed=9)
    assert a.shape == u.shape == (3, 17, 17)
    g = sample_cosine_grf(3, 17, rng=np.random.default_rng(9))
    np.testing.assert_array_equal(a, coefficient_from_field(g, problem))
    np.testing.assert_array_equal(u, solve_darcy(a, problem))
    a2, u2 = generate_darcy_samples(3, problem, seed=9)
    np.testing.assert_array_equal(u, u2)
    assert not np.array_equal(a, generate_darcy_samples(3, problem, seed=10)[0])


def test_generate_logs_progress(caplog):
    with caplog.at_level(logging.INFO, logger="pderepro.solvers.elliptic.darcy"):
        generate_darcy_samples(20, DarcyProblem(resolution=9), seed=0)
    progress = [r for r in caplog.records if "samples" in r.getMessage()]
    assert 5 <= len(progress) <= 11 and "20/20" in progress[-1].getMessage()


# ----------------------------------------------------------------------------- verification


def test_convergence_second_order_smooth():
    table = darcy_convergence((17, 33, 65), interface_resolutions=())
    assert list(table.columns) == COLUMNS
    assert set(table["case"]) == {SMOOTH_CASE} and set(table["solver"]) == {"darcy_fd5"}
    assert table["dt"].isna().all()
    assert table["max_abs_error"].is_monotonic_decreasing
    orders = table["observed_order"].to_numpy()
    assert math.isnan(orders[0])
    assert np.all((orders[1:] > 1.8) & (orders[1:] < 2.2)), orders
    assert abs(orders[-1] - FD5_ORDER) < 0.1


def test_convergence_interface_order_by_face_mean():
    # harmonic faces: 1.93, 1.97, 1.99 here; arithmetic ones 0.72, 0.88, 0.94
    table = darcy_convergence((9,), interface_resolutions=(16, 32, 64, 128))
    for face_mean, order in INTERFACE_ORDERS.items():
        rows = table[table["case"] == interface_case(face_mean)]
        assert len(rows) == 4
        assert rows["max_abs_error"].is_monotonic_decreasing
        orders = rows["observed_order"].to_numpy()
        assert abs(orders[-1] - order) < 0.1, (face_mean, orders)
    harmonic = table[table["case"] == interface_case("harmonic")]["observed_order"].to_numpy()
    assert np.all((harmonic[1:] > 1.8) & (harmonic[1:] < 2.2)), harmonic


def test_arithmetic_faces_are_the_mean_of_the_two_vertices():
    a = np.array([[1.0, 1.0, 1.0], [1.0, 3.0, 1.0], [1.0, 1.0, 1.0]])
    single = darcy_operator(a, 1.0, "arithmetic").toarray()  # one unknown, four faces
    assert single[0, 0] == pytest.approx(4 * (3.0 + 1.0) / 2)
    assert darcy_operator(a, 1.0).toarray()[0, 0] == pytest.approx(4 * 2 * 3.0 / (3.0 + 1.0))
    with pytest.raises(ValueError, match="face_mean"):
        DarcyProblem(resolution=5, face_mean="geometric")


def test_interface_solution_continuous_flux():
    x = np.array([0.5 - 1e-7, 0.5 + 1e-7])
    a, u, _ = manufactured_interface(x, 0.5)
    assert abs(u[0] - u[1]) < 1e-7
    eps = 1e-6
    left = a[0] * (u[0] - manufactured_interface(x[0] - eps, 0.5)[1]) / eps
    right = a[1] * (manufactured_interface(x[1] + eps, 0.5)[1] - u[1]) / eps
    assert abs(left - right) < 1e-4
    assert manufactured_interface(np.array([0.0, 1.0]), 0.3)[1] == pytest.approx([0, 0], abs=1e-15)


# ----------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"resolution": 2}, "resolution"),
        ({"resolution": 33.0}, "resolution"),
        ({"psi_low": -3.0}, "psi_low"),
        ({"psi_high": math.inf}, "psi_high"),
        ({"forcing": math.nan}, "forcing"),
        ({"grf_shift": -20.0}, "shift"),
        ({"grf_exponent": 0.0}, "exponent"),
        ({"grf_scale": -1.0}, "scale"),
    ],
)
def test_problem_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DarcyProblem(**kwargs)


def test_problem_derived_grid():
    problem = DarcyProblem(resolution=421)
    assert problem.h == pytest.approx(1 / 420)
    assert problem.grid[0] == 0.0 and problem.grid[-1] == 1.0 and problem.grid.shape == (421,)


def test_bad_grf_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_modes"):
        sample_cosine_grf(1, 9, rng=rng, n_modes=10)
    with pytest.raises(ValueError, match="n_samples"):
        sample_cosine_grf(-1, 9, rng=rng)
    with pytest.raises(ValueError, match="resolution"):
        sample_cosine_grf(1, 2, rng=rng)


def test_solver_rejects_bad_inputs():
    problem = DarcyProblem(resolution=9)
    a = np.ones((9, 9))
    with pytest.raises(ValueError, match="shape"):
        solve_darcy(np.ones((8, 8)), problem)
    with pytest.raises(ValueError, match="positive"):
        solve_darcy(np.where(np.eye(9) > 0, -1.0, 1.0), problem)
    with pytest.raises(ValueError, match="non-finite"):
        solve_darcy(np.where(np.eye(9) > 0, np.nan, 1.0), problem)
    with pytest.raises(ValueError, match="rhs"):
        solve_darcy(a, problem, rhs=np.ones((5, 5)))
    with pytest.raises(ValueError, match="samples"):
        solve_darcy(np.ones((2, 9, 9)), problem, rhs=np.ones((3, 9, 9)))
    with pytest.raises(ValueError, match="even"):
        darcy_convergence((9,), interface_resolutions=(33,))
