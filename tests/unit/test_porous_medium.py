"""The Barenblatt solution of u_t = Lap(u^m): its closed-form residual is round-off inside
the support (and its derivatives agree with finite differences), its mass is conserved
(quadrature in d = 1, 2 against the closed form), and its support has the stated front."""

import numpy as np
import pytest
from scipy import integrate

from pderepro.solvers.reaction_diffusion.porous_medium import Barenblatt, constant_for_front


def _inside(solution, n, rng, t=(1.0, 2.0)):
    """``n`` points strictly inside the support over the time window."""
    times = rng.uniform(*t, n)
    direction = rng.standard_normal((n, solution.d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = 0.95 * solution.front(times) * rng.random(n) ** (1 / solution.d)
    return direction * radius[:, None], times


@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("m", [1.5, 2.0, 3.0])
def test_the_residual_is_round_off_inside_the_support(d, m):
    solution = Barenblatt(d, m, constant_for_front(d, m, 0.8, 2.0))
    x, t = _inside(solution, 200, np.random.default_rng(d))
    residual = solution.residual(x, t)
    assert np.all(np.abs(residual) <= 1e-12 * solution.residual_scale(x, t))
    assert np.all(solution(x, t) > 0)


@pytest.mark.parametrize("d", [1, 3])
def test_closed_form_derivatives_match_finite_differences(d):
    solution = Barenblatt(d, 2.0, 0.03)
    x, t = _inside(solution, 50, np.random.default_rng(0))
    h = 1e-4
    u_t = (solution(x, t + h) - solution(x, t - h)) / (2 * h)
    lap = np.zeros(len(t))
    for i in range(d):
        step = np.zeros(d)
        step[i] = h
        power = [solution(x + s * step, t) ** 2 for s in (-1, 0, 1)]
        lap += (power[0] - 2 * power[1] + power[2]) / h**2
    scale = np.abs(solution.time_derivative(x, t)).max()
    np.testing.assert_allclose(solution.time_derivative(x, t), u_t, atol=1e-6 * scale)
    np.testing.assert_allclose(solution.laplacian_of_power(x, t), lap, atol=1e-5 * scale)


def test_zero_outside_the_support_and_front_where_stated():
    solution = Barenblatt(2, 2.0, constant_for_front(2, 2.0, 0.8, 2.0))
    assert solution.front(2.0) == pytest.approx(0.8)
    edge = np.array([[0.8 * (1 - 1e-9), 0.0], [0.8 * (1 + 1e-9), 0.0]])
    values = solution(edge, np.array([2.0, 2.0]))
    assert values[0] > 0 and values[1] == 0
    outside = np.array([[0.9, 0.0]])
    assert solution.residual(outside, np.array([2.0])) == 0


@pytest.mark.parametrize("t", [1.0, 1.5, 4.0])
def test_mass_is_conserved_in_one_dimension(t):
    solution = Barenblatt(1, 2.0, 0.05)
    front = float(solution.front(t))
    mass, _ = integrate.quad(lambda x: solution(np.array([[x]]), np.array([t]))[0],
                             -front, front, epsabs=1e-13)  # fmt: skip
    assert mass == pytest.approx(solution.mass(), rel=1e-9)


@pytest.mark.parametrize("t", [1.0, 3.0])
def test_mass_is_conserved_in_two_dimensions(t):
    """Radial quadrature of the 2-D profile, and a Cartesian check on a grid."""
    solution = Barenblatt(2, 3.0, 0.04)
    front = float(solution.front(t))

    def radial(r):
        return 2 * np.pi * r * solution(np.array([[r, 0.0]]), np.array([t]))[0]

    mass, _ = integrate.quad(radial, 0, front, epsabs=1e-13)
    assert mass == pytest.approx(solution.mass(), rel=1e-9)
    grid = np.linspace(-front, front, 801)
    xx, yy = np.meshgrid(grid, grid, indexing="ij")
    values = solution(np.stack([xx.ravel(), yy.ravel()], 1), np.full(xx.size, t))
    cartesian = values.sum() * (grid[1] - grid[0]) ** 2
    assert cartesian == pytest.approx(solution.mass(), rel=1e-3)


def test_bad_parameters_and_shapes_are_refused():
    with pytest.raises(ValueError, match="m > 1"):
        Barenblatt(2, 1.0, 1.0)
    solution = Barenblatt(2, 2.0, 1.0)
    with pytest.raises(ValueError, match=r"x \(n, 2\)"):
        solution(np.zeros((3, 1)), np.ones(3))
    with pytest.raises(ValueError, match="t > 0"):
        solution(np.zeros((1, 2)), np.zeros(1))
