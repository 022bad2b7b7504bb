"""1-D shallow water: conservation, well balance, positivity, convergence to the exact dam
breaks, the exact Stoker state, and the verification rows' own thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.shallow_water.problem import ShallowWaterProblem
from pderepro.solvers.shallow_water.shallow_water import (
    face_fluxes,
    solve_shallow_water,
    stable_time_step,
    step,
    tendency,
    total_energy,
    total_mass,
)
from pderepro.verification import shallow_water as verification
from pderepro.verification.shallow_water import (
    dam_break_exact,
    random_states,
    stoker_middle_state,
)

SCHEMES = [
    {"flux": "hll", "limiter": "minmod", "integrator": "ssprk2"},
    {"flux": "rusanov", "limiter": "mc", "integrator": "ssprk3"},
]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_mass_is_conserved_to_round_off_on_a_periodic_domain(scheme):
    problem = ShallowWaterProblem(resolution=128, **scheme)
    state0 = random_states(problem, samples=6, seed=3)
    assert (state0[:, 0] == 0).any()  # dry patches
    states = solve_shallow_water(state0, problem, [0.25, 0.5])  # (S, T, 2, n)
    mass0 = total_mass(state0, problem)
    for k in range(2):
        np.testing.assert_allclose(total_mass(states[:, k], problem), mass0, rtol=1e-14)
    assert states[:, :, 0].min() >= 0.0


def test_step_is_a_difference_of_its_face_fluxes():
    problem = ShallowWaterProblem(resolution=64, integrator="ssprk3")
    state = random_states(problem, samples=3, seed=1)
    dt = stable_time_step(state, problem)
    new, flux = step(state, dt, problem, return_flux=True)
    assert flux.shape == (3, 2, 65)
    np.testing.assert_array_equal(flux[..., 0], flux[..., -1])  # periodic: one face
    flux_form = state - dt * (flux[..., 1:] - flux[..., :-1]) / problem.dx
    np.testing.assert_allclose(new, flux_form, rtol=0, atol=1e-14)
    # one state and a batch of one agree; face_fluxes is the first stage's flux
    np.testing.assert_array_equal(face_fluxes(state[0], problem), face_fluxes(state, problem)[0])
    np.testing.assert_allclose(
        tendency(state, problem),
        -np.diff(face_fluxes(state, problem), axis=-1) / problem.dx,
        atol=1e-13,
    )


@pytest.mark.parametrize("level", [0.5, 0.15])  # submerged bump; emerged (dry cells)
@pytest.mark.parametrize("boundary", ["reflective", "periodic"])
def test_lake_at_rest_is_preserved(level, boundary):
    problem = ShallowWaterProblem(resolution=100, boundary=boundary, limiter="mc")
    b = 0.25 * np.exp(-((problem.grid - 0.5) ** 2) / 0.01) + 0.05 * np.sin(2 * np.pi * problem.grid)
    h0 = np.maximum(level - b, 0.0)
    state0 = np.stack([h0, np.zeros_like(h0)])
    state = solve_shallow_water(state0, problem, [1.0], b)[0]
    np.testing.assert_allclose(state, state0, rtol=0, atol=1e-12)
    # without the hydrostatic reconstruction's source the bump would drive a flow
    assert np.abs(tendency(state0, problem)[1]).max() > 1e-2


def test_dry_dam_break_keeps_depths_non_negative_and_the_front_bounded():
    problem = ShallowWaterProblem(resolution=200, boundary="transmissive")
    h0 = np.where(problem.grid < 0.5, 1.0, 0.0)
    frames = solve_shallow_water(np.stack([h0, np.zeros(200)]), problem, np.linspace(0, 0.2, 11))
    assert frames[:, 0].min() >= 0.0
    wet = problem.grid[frames[-1, 0] > 1e-6]
    assert wet.max() < 0.5 + 2 * 0.2 + 3 * problem.dx  # the exact front at x0 + 2 c_l t


def test_stoker_middle_state_satisfies_the_jump_and_invariant_relations():
    g, h_l, h_r = 9.81, 0.005, 0.001  # SWASHES' Stoker case, dimensional g
    h_m, u_m, s = stoker_middle_state(h_l, h_r, g)
    assert h_r < h_m < h_l and u_m > 0 and s > u_m
    # Riemann invariant of the left rarefaction, u + 2 c, from still water
    assert math.isclose(u_m + 2 * math.sqrt(g * h_m), 2 * math.sqrt(g * h_l), rel_tol=1e-13)
    # Rankine-Hugoniot for mass and momentum across the shock into still water
    assert math.isclose(s * (h_m - h_r), h_m * u_m, rel_tol=1e-13)
    jump = h_m * u_m**2 + 0.5 * g * (h_m**2 - h_r**2)
    assert math.isclose(s * h_m * u_m, jump, rel_tol=1e-12)
    # SWASHES' polynomial in c_m and its shock position
    c_m, c_l, gh = math.sqrt(g * h_m), math.sqrt(g * h_l), g * h_r
    poly = -8 * gh * c_m**2 * (c_l - c_m) ** 2 + (c_m**2 - gh) ** 2 * (c_m**2 + gh)
    assert abs(poly) < 1e-12 * (c_l**6)
    assert math.isclose(s, 2 * c_m**2 * (c_l - c_m) / (c_m**2 - gh), rel_tol=1e-12)


def test_exact_dam_break_is_continuous_through_the_rarefaction():
    x = np.linspace(0, 1, 4001)
    for h_r in (0.2, 0.0):
        h, u = dam_break_exact(x, 0.2, 1.0, h_r)
        assert h[0] == 1.0 and h[-1] == h_r and u[0] == 0.0
        jumps = np.abs(np.diff(h))
        assert (jumps > 1e-2).sum() == (1 if h_r > 0 else 0)  # the shock only


@pytest.mark.parametrize("scheme", SCHEMES)
def test_error_against_stoker_falls_with_resolution(scheme):
    errors = []
    for n in (50, 100, 200):
        problem = ShallowWaterProblem(resolution=n, boundary="transmissive", **scheme)
        h0 = np.where(problem.grid < 0.5, 1.0, 0.2)
        h = solve_shallow_water(np.stack([h0, np.zeros(n)]), problem, [0.2])[0, 0]
        exact, _ = dam_break_exact(problem.grid, 0.2, 1.0, 0.2)
        errors.append(np.abs(h - exact).sum() * problem.dx)
    assert errors[0] > errors[1] > errors[2]
    assert errors[0] / errors[2] > 3.0, errors  # about first order


def test_energy_is_dissipated_not_created_by_the_shock():
    problem = ShallowWaterProblem(resolution=128)
    state0 = random_states(problem, samples=4, seed=5)
    state = solve_shallow_water(state0, problem, [1.0])[:, 0]
    assert np.all(total_energy(state, problem) < total_energy(state0, problem))


def test_bad_inputs_fail_with_their_names():
    with pytest.raises(ValueError, match="boundary"):
        ShallowWaterProblem(resolution=16, boundary="open")
    with pytest.raises(ValueError, match="cfl"):
        ShallowWaterProblem(resolution=16, cfl=1.5)
    problem = ShallowWaterProblem(resolution=16)
    with pytest.raises(ValueError, match="shape"):
        face_fluxes(np.ones((3, 16)), problem)
    with pytest.raises(ValueError, match="non-negative"):
        solve_shallow_water(np.stack([-np.ones(16), np.zeros(16)]), problem, [0.1])
    with pytest.raises(SolverDivergedError, match="steps"):
        solve_shallow_water(np.stack([np.ones(16), np.zeros(16)]), problem, [1.0], max_steps=2)


def test_verification_rows_pass_their_own_thresholds():
    table = verification.shallow_water_verification()
    tol = verification.TOLERANCES
    for name, limit in (("Stoker", tol["stoker_l1"]), ("Ritter", tol["ritter_l1"])):
        rows = table[table["case"].str.startswith(name)]
        assert len(rows) == len(verification.RESOLUTIONS)
        assert np.all(np.diff(rows["max_abs_error"]) < 0)
        low, high = tol["order"]
        assert low < rows["observed_order"].iloc[-1] < high
        assert rows["max_abs_error"].iloc[-1] < limit
    for prefix in ("lake at rest", "mass"):
        rows = table[table["case"].str.startswith(prefix)]
        assert len(rows) >= 1 and (rows["max_abs_error"] < tol["round_off"]).all()
    positivity = table[table["case"].str.startswith("positivity")]
    assert (positivity["max_abs_error"] <= tol["negative_depth"]).all()
