"""References of the physics-informed study: Allen-Cahn by ETDRK4 (exact linear part, the
closed-form reaction, fourth order in dt, agreement with Strang splitting, spectral in
space) and the convection formula (the PDE, the initial condition, the Fourier modes)."""

from __future__ import annotations

import numpy as np
import pytest

from pderepro.solvers.common.etdrk4 import etdrk4_coefficients
from pderepro.solvers.reaction_diffusion.allen_cahn import (
    allen_cahn_frames,
    periodic_grid,
    reaction_flow,
    study_initial_condition,
)
from pderepro.solvers.transport.advection import convection_exact
from pderepro.verification import allen_cahn as verification


def test_periodic_grid_leaves_out_the_right_end():
    x = periodic_grid(-1.0, 1.0, 8)
    assert x.shape == (8,) and x[0] == -1.0 and x[-1] == 0.75
    np.testing.assert_allclose(np.diff(x), 0.25, rtol=1e-15)


def test_coefficients_match_their_limits():
    linear = -np.array([0.0, 1e-8, 1e-3, 1.0, 30.0, 1e4])  # z = h L from 0 to stiff
    ours = etdrk4_coefficients(linear, 0.01)
    # z -> 0: Q -> h / 2, f1 = f3 -> h / 6, f2 -> h / 6
    np.testing.assert_allclose([ours[k][0] for k in ("Q", "f1", "f2", "f3")],
                               [0.005, 0.01 / 6, 0.01 / 6, 0.01 / 6], rtol=1e-14)  # fmt: skip


def test_linear_problem_is_solved_exactly_whatever_the_step():
    x = periodic_grid(-1.0, 1.0, 64)
    u0 = np.sin(np.pi * x) + 0.5 * np.cos(3 * np.pi * x + 0.2) + 0.3  # (64,)
    d, times = 0.01, np.linspace(0.0, 2.0, 9)
    u = allen_cahn_frames(u0, 2.0, times, diffusion=d, reaction=0.0, steps_per_unit=3)
    decay = np.exp(-d * (np.pi * np.array([1.0, 3.0])) ** 2 * times[:, None])  # (9, 2)
    exact = decay[:, :1] * np.sin(np.pi * x) + 0.5 * decay[:, 1:] * np.cos(3 * np.pi * x + 0.2)
    exact += 0.3
    assert u.shape == (9, 64)
    np.testing.assert_allclose(u, exact, rtol=0, atol=1e-12)


def test_pure_reaction_matches_the_closed_form():
    x = periodic_grid(-1.0, 1.0, 32)
    u0 = study_initial_condition(x)
    times = np.linspace(0.0, 1.0, 11)
    u = allen_cahn_frames(u0, 2.0, times, diffusion=0.0, reaction=5.0, steps_per_unit=400)
    exact = np.stack([reaction_flow(u0, 5.0, t) for t in times])  # (11, 32)
    np.testing.assert_allclose(u, exact, rtol=0, atol=1e-9)
    # the flow is a semigroup, keeps the stable states and the sign
    np.testing.assert_allclose(
        reaction_flow(reaction_flow(u0, 5.0, 0.2), 5.0, 0.3), reaction_flow(u0, 5.0, 0.5)
    )
    np.testing.assert_array_equal(reaction_flow(np.array([-1.0, 0.0, 1.0]), 5.0, 3.0), [-1, 0, 1])


def test_etdrk4_is_fourth_order_in_time():
    rows = verification.time_self_convergence(levels=(20, 40, 80, 160), n=256)
    orders = [row["observed_order"] for row in rows[1:]]
    assert all(3.8 < order < 4.2 for order in orders), orders


def test_strang_splitting_agrees_at_second_order():
    rows = verification.strang_agreement()
    orders = [row["observed_order"] for row in rows[1:]]
    assert all(1.9 < order < 2.1 for order in orders), orders
    assert rows[-1]["max_abs_error"] < 1e-7


def test_grid_converges_spectrally_at_t1_and_the_kink_stays_bounded():
    rows = verification.space_convergence()
    errors = [row["max_abs_error"] for row in rows[:-1]]  # 256, 512, 1024 vs next finer
    assert all(b < a / 100 for a, b in zip(errors, errors[1:], strict=False)), errors
    assert errors[1] < 1e-5 and errors[2] < 1e-8, errors
    assert rows[-1]["resolution"] == 512 and rows[-1]["max_abs_error"] < 2e-3


def test_frames_do_not_depend_on_the_requested_grid_when_steps_align():
    x = periodic_grid(-1.0, 1.0, 64)
    u0 = study_initial_condition(x)
    many = allen_cahn_frames(u0, 2.0, np.linspace(0.0, 1.0, 11), 1e-3, 5.0, 100)
    one = allen_cahn_frames(u0, 2.0, np.array([1.0]), 1e-3, 5.0, 100)
    np.testing.assert_allclose(many[-1], one[0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(many[0], u0)
    # frames off the step grid take slightly shorter steps, never longer ones
    odd = allen_cahn_frames(u0, 2.0, np.array([0.2345, 1.0]), 1e-3, 5.0, 100)
    assert 1e-12 < np.abs(odd[-1] - one[0]).max() < 1e-6


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"diffusion": -1.0}, "diffusion must be finite and non-negative"),
     ({"reaction": np.nan}, "reaction must be finite"),
     ({"steps_per_unit": 0}, "steps_per_unit must be >= 1"),
     ({"steps_per_unit": 2.5}, "must be an integer"),
     ({"times": np.array([0.5, 0.2])}, "strictly increasing"),
     ({"length": 0.0}, "length must be positive")],
)  # fmt: skip
def test_bad_arguments_are_refused(kwargs, match):
    args = {"u0": np.zeros(8), "length": 2.0, "times": np.array([0.0, 1.0]), **kwargs}
    with pytest.raises(ValueError, match=match):
        allen_cahn_frames(**args)


def test_convection_formula_solves_the_pde_and_starts_from_sine():
    beta, h, tau = 50.0, 1e-4, 1e-5
    x, t = periodic_grid(0.0, 2 * np.pi, 256), np.linspace(0.0, 1.0, 11)[1:-1]
    u_t = (convection_exact(x, t + tau, beta) - convection_exact(x, t - tau, beta)) / (2 * tau)
    u_x = (convection_exact(x + h, t, beta) - convection_exact(x - h, t, beta)) / (2 * h)
    assert u_t.shape == (9, 256)
    assert np.abs(u_t + beta * u_x).max() < 1e-4 * beta
    assert np.abs(u_t).max() > 0.9 * beta  # not trivially zero
    np.testing.assert_array_equal(convection_exact(x, np.array([0.0]), beta)[0], np.sin(x))
    assert verification.convection_fourier()["max_abs_error"] < 1e-11
