"""The shallow-water closure system: forcing, the exact sub-grid flux, the corrected coarse
step (conservation, limiters), the closures and the online scores."""

import numpy as np
import pytest
import torch

from pderepro.data.shallow_water_truth import coarse_problem, truth_run
from pderepro.evaluation.shallow_water_scores import (
    shock_distances,
    shock_faces,
    trajectory_scores,
)
from pderepro.models.flux_stencil import (
    StencilFluxNet,
    diffusive_flux,
    fit_diffusion,
    stencil_features,
)
from pderepro.solvers.shallow_water.coarse import (
    advance_interval,
    block_average,
    coarse_face_values,
    corrected_step,
    exact_correction,
    fct_limit,
)
from pderepro.solvers.shallow_water.forcing import (
    forcing_cell_averages,
    kick,
    ou_coefficients,
    random_initial_states,
)
from pderepro.solvers.shallow_water.problem import ShallowWaterProblem
from pderepro.solvers.shallow_water.shallow_water import total_mass

FINE, FACTOR = 256, 8
SYSTEM = {
    "resolution": 64, "coarse_resolution": 16, "time_step": 0.004, "length": 1.0,
    "gravity": 1.0, "flux": "hll", "limiter": "minmod", "cfl": 0.4, "drag": 0.2,
    "forcing_modes": 3, "correlation_time": 0.5,
    "initial": {"depth_amplitude": 0.1, "velocity_amplitude": 0.2, "modes": 4},
}  # fmt: skip


def _states(members=4, n=FINE, seed=0, depth=0.1):
    rng = np.random.default_rng(seed)
    return random_initial_states(rng, members, n, depth_amplitude=depth,
                                 velocity_amplitude=0.2, modes=4)  # fmt: skip


def test_forcing_and_kick_commute_with_block_averaging():
    rng = np.random.default_rng(1)
    coefficients = ou_coefficients(rng, 3, 5, 3, dt=0.01, correlation_time=0.5)[:, 2]
    fine = forcing_cell_averages(coefficients, FINE, 1.0, 0.3)
    coarse = forcing_cell_averages(coefficients, FINE // FACTOR, 1.0, 0.3)
    np.testing.assert_allclose(block_average(fine, FACTOR), coarse, atol=1e-14)
    state = _states(3)
    kicked = block_average(kick(state, fine, 0.01, 0.2), FACTOR)
    expected = kick(block_average(state, FACTOR), coarse, 0.01, 0.2)
    np.testing.assert_allclose(kicked, expected, atol=1e-14)


def test_ou_coefficients_have_unit_variance_and_the_correlation_time():
    rng = np.random.default_rng(2)
    series = ou_coefficients(rng, 200, 400, 1, dt=0.05, correlation_time=0.5)[..., 0]
    assert abs(series.var() - 1.0) < 0.05
    lag = round(0.5 / 0.05)  # one correlation time: exp(-1)
    correlation = (series[:, :-lag] * series[:, lag:]).mean()
    assert abs(correlation - np.exp(-1.0)) < 0.05


def test_coarse_step_with_the_exact_correction_is_the_filtered_fine_step():
    fine, coarse = ShallowWaterProblem(FINE), ShallowWaterProblem(FINE // FACTOR)
    state = _states(4)
    dt = 0.004
    for _ in range(50):  # let shocks form first
        state, _, _ = advance_interval(state, dt, fine)
    after, flux, substeps = advance_interval(state, dt, fine)
    assert substeps > 1
    filtered = block_average(state, FACTOR)
    correction = exact_correction(filtered, coarse_face_values(flux, FACTOR), dt, coarse)
    stepped = corrected_step(filtered, dt, coarse, lambda _: correction)
    np.testing.assert_allclose(stepped, block_average(after, FACTOR), atol=1e-13)
    plain = corrected_step(filtered, dt, coarse)
    assert np.abs(plain - block_average(after, FACTOR)).max() > 1e-5  # a correction is needed


@pytest.mark.parametrize("limited", [False, True])
def test_corrected_step_conserves_mass_whatever_the_closure(limited):
    coarse = ShallowWaterProblem(32)
    state = _states(5, 32, seed=3)
    rng = np.random.default_rng(4)
    wild = rng.normal(scale=0.5, size=state.shape)
    after = corrected_step(state, 0.002, coarse, lambda _: wild, limited=limited)
    np.testing.assert_allclose(total_mass(after, coarse), total_mass(state, coarse), rtol=1e-14)


def test_the_limiter_keeps_depths_non_negative():
    coarse = ShallowWaterProblem(32)
    state = _states(6, 32, seed=5, depth=0.3)
    state[:, 0, 10:14] = 1e-3  # nearly dry cells
    state[:, 1, 10:14] = 0.0
    rng = np.random.default_rng(6)
    wild = rng.normal(scale=2.0, size=state.shape)
    unlimited = corrected_step(state, 0.004, coarse, lambda _: wild)
    assert unlimited[:, 0].min() < 0  # the test can fail: without the limiter depths go negative
    limited = corrected_step(state, 0.004, coarse, lambda _: wild, limited=True)
    assert limited[:, 0].min() >= -1e-15


def test_fct_limit_keeps_every_cell_within_its_neighbours_range():
    rng = np.random.default_rng(10)
    start = _states(4, 32, seed=11)
    base = start + 0.01 * rng.normal(size=start.shape)
    wild = rng.normal(scale=1.0, size=start.shape)
    dt, dx = 0.004, 1 / 32
    flux = fct_limit(start, base, wild, dt, dx)
    limited = base - (np.roll(flux, -1, -1) - flux) * dt / dx
    both = np.stack([np.roll(a, k, -1) for a in (start, base) for k in (-1, 0, 1)])
    assert (limited <= both.max(axis=0) + 1e-14).all()
    assert (limited >= both.min(axis=0) - 1e-14).all()
    unlimited = base - (np.roll(wild, -1, -1) - wild) * dt / dx
    assert (unlimited > both.max(axis=0) + 1e-3).any()  # without it there are overshoots
    ramp = np.repeat(np.linspace(1.0, 2.0, 32)[None, None], 2, axis=1)  # (1, 2, 32)
    gentle = 1e-6 * wild[:1]  # a correction that stays inside the bounds passes unchanged
    np.testing.assert_allclose(fct_limit(ramp, ramp, gentle, dt, dx)[..., 2:-2],
                               gentle[..., 2:-2])  # fmt: skip


def test_fit_diffusion_recovers_its_coefficients():
    states = _states(3, 32, seed=7)
    corrections = diffusive_flux(states, [-0.3, 0.2], 1.0)
    assert np.allclose(fit_diffusion(states, corrections, 1.0), [-0.3, 0.2], atol=1e-12)


def test_stencil_features_and_network_are_periodic_and_local():
    state = torch.as_tensor(_states(2, 16, seed=8))
    features = stencil_features(state)  # (B, n, 10)
    j = 5  # face 5: cells 3, 4, 5, 6
    cells = state[0, 0, 3:7]
    assert torch.allclose(features[0, j, 0], cells.mean())
    assert torch.allclose(features[0, j, 2:6], cells - cells.mean())
    net = StencilFluxNet(hidden=[8]).double()
    shifted = net(torch.roll(state, 3, dims=-1))
    assert torch.allclose(shifted, torch.roll(net(state), 3, dims=-1), atol=1e-12)
    changed = state.clone()
    changed[:, :, 10] += 0.1  # cell 10 is in the stencils of faces 9..12 only
    moved = (net(changed) - net(state)).abs().amax(dim=(0, 1)) > 0
    assert moved.nonzero().flatten().tolist() == [9, 10, 11, 12]


def test_truth_run_records_the_coarse_state_and_the_floor_ensemble():
    climate = truth_run(SYSTEM, 0.2, members=2, spinup_time=0.04, run_time=0.08,
                        record_interval=0.04, seed=1, role="climate")  # fmt: skip
    assert climate["state"].shape == (4, 3, 2, 16)
    reference = climate["state"].sel(member=climate["ensemble"] == 0).to_numpy()
    floor = climate["state"].sel(member=climate["ensemble"] == 1).to_numpy()
    np.testing.assert_allclose(reference[:, 0], floor[:, 0], atol=1e-15)  # same coarse start
    assert np.abs(reference[:, -1] - floor[:, -1]).max() > 0  # different sub-grid detail
    assert climate["forcing"].shape == (4, 2 * 10 + 1, 6)  # kicks from the first record on
    pairs = truth_run(SYSTEM, 0.2, members=2, spinup_time=0.04, run_time=0.08,
                      record_interval=0.004, seed=1, role="pairs")  # fmt: skip
    state, flux = pairs["state"].to_numpy(), pairs["flux"].to_numpy()
    # the fluxes move the block averages exactly, then the kick acts: check the mass
    dx = 1.0 / 16
    moved = state[:, 0, 0] - 0.004 * (np.roll(flux[:, 0, 0], -1, -1) - flux[:, 0, 0]) / dx
    np.testing.assert_allclose(moved, state[:, 1, 0], atol=1e-13)
    decaying = truth_run(SYSTEM, 0.0, members=1, spinup_time=0.04, run_time=0.04,
                         record_interval=0.04, seed=1, role="pairs")  # fmt: skip
    assert float(decaying["time"][0]) == 0.0  # no spin-up without forcing
    assert coarse_problem(SYSTEM).resolution == 16


def test_trajectory_scores_vanish_for_the_truth_and_skip_blown_up_runs():
    truth = np.repeat(_states(3, 16, seed=9)[:, None], 4, axis=1)  # (members, records, 2, n)
    truth[:, :, 0] += 0.01 * np.arange(4)[None, :, None]
    scores = trajectory_scores(truth, truth, gravity=1.0, dx=1 / 16, shock_jump=0.0)
    assert scores["h_error"] == 0 and scores["energy_bias"] == 0
    assert scores["shock_position_error"] == 0
    runs = truth.copy()
    runs[0, 2:] = np.nan  # run 0 blew up: scored on the others
    runs[1] += 0.001
    scored = trajectory_scores(runs, truth, gravity=1.0, dx=1 / 16, shock_jump=0.0)
    assert 0 < scored["h_error"] < 1


def test_shock_distances_match_every_shock_of_the_truth():
    truth = np.ones(32)
    truth[5:12] = 1.3  # shocks at faces 5 (up) and 12 (down)
    assert shock_faces(truth, 0.1).tolist() == [5, 12]
    shifted = np.roll(truth, 2)  # both shocks two cells on
    assert shock_distances(shifted, truth, 0.1).tolist() == [2.0, 2.0]
    smeared = truth.copy()
    smeared[4], smeared[12] = 1.15, 1.15  # each jump split over two faces: still found
    assert shock_distances(smeared, truth, 0.1).max() <= 1.0
    flat = np.ones(32)  # no shock in the run: both missed
    assert np.isnan(shock_distances(flat, truth, 0.1)).all()
    wrapped = np.ones(32)
    wrapped[0:7] = 1.3  # shocks at faces 0 (across the periodic wrap) and 7
    moved = np.roll(wrapped, -2)  # at faces 30 and 5: 2 cells each, not 30
    assert shock_distances(moved, wrapped, 0.1).tolist() == [2.0, 2.0]
