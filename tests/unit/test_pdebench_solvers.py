"""Tests for the PDEBench 1-D initial conditions, exact advection and viscous Burgers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from pderepro.solvers.burgers.burgers import cole_hopf_sine
from pderepro.solvers.burgers.viscous_burgers import (
    RELEASED_NUS,
    PDEBenchBurgersProblem,
    burgers_frames,
    solve_viscous_burgers,
)
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.common.pdebench_ic import (
    SPEED_BOUND,
    SinesIC,
    cell_centres,
    draw_initial_condition,
    evaluate_initial_conditions,
    frame_times,
    sample_initial_conditions,
    window,
)
from pderepro.solvers.transport.advection import advect, advected_points, advection_frames
from pderepro.verification.pdebench import (
    STEEP_IC,
    advection_verification,
    cole_hopf_moderate,
    cole_hopf_sines,
    steep_front_convergence,
)
from pderepro.verification.pdebench_ic import initial_law_verification, law_statistics
from pderepro.verification.table import COLUMNS

X = cell_centres()


def _draw(n: int, seed: int = 0) -> list[SinesIC]:
    return [draw_initial_condition(np.random.default_rng((seed, i))) for i in range(n)]


def _kinds(n: int = 8) -> list[SinesIC]:
    """Drawn ICs with |.| forced on some and the window on others."""
    return [
        replace(ic, absolute=i % 4 == 1, windowed=i % 4 == 3) for i, ic in enumerate(_draw(n, 5))
    ]


# --- initial conditions --------------------------------------------------------------


def test_grid_and_times_match_references():
    assert X.shape == (1024,) and X[0] == 0.5 / 1024 and X[-1] == 1 - 0.5 / 1024
    t = frame_times()
    assert t.shape == (201,) and t[-1] == 2.0 and t[25] == 0.25
    np.testing.assert_allclose(np.diff(t), 0.01, rtol=1e-12)


def test_draws_follow_the_released_law():
    ics = _draw(4000)
    modes = np.array([ic.modes for ic in ics])  # k c_k per candidate k
    amp = np.array([ic.amplitudes for ic in ics])
    phase = np.array([ic.phases for ic in ics])
    assert modes.shape == amp.shape == phase.shape == (4000, 4)
    assert all(ic.wavelength == 1 - 1 / 1024 for ic in ics)
    counts = modes // np.arange(1, 5)
    np.testing.assert_array_equal(modes, counts * np.arange(1, 5))  # k c_k, nothing else
    assert set(counts.sum(axis=1)) == {2}  # two draws per sample
    # each candidate drawn with probability 1 - (3/4)^2 = 7/16 (sd 0.008 at 4000)
    np.testing.assert_allclose((counts > 0).mean(axis=0), 7 / 16, atol=0.035)
    assert amp.min() >= 0 and amp.max() < 1 and abs(amp.mean() - 0.5) < 0.02
    assert phase.min() >= 0 and phase.max() < 2 * np.pi
    left = np.array([ic.x_left for ic in ics])
    right = np.array([ic.x_right for ic in ics])
    assert left.min() >= 0.1 and left.max() <= 0.45 and right.min() >= 0.55 and right.max() <= 0.9
    # independent edges, not the released code's shared draw (x_R - x_L = 0.45 always)
    assert np.std(right - left) > 0.1


def test_law_statistics_pass_their_verification_rows():
    for stat in law_statistics(n_draws=2000, seed=1):
        assert abs(stat["observed"] - stat["expected"]) <= stat["tolerance"], stat
    rows = initial_law_verification(n_draws=500, seed=2)
    assert len(rows) == 9 and (rows["resolution"] == 500).all()


def test_law_fields_carry_offsets_and_the_stretched_wavelength():
    u0, ics = sample_initial_conditions([np.random.default_rng((4, i)) for i in range(400)], X)
    assert np.mean(np.abs(u0.mean(axis=1)) > 0.1) > 0.8  # a zero-mean law gives about 0.11
    assert 2.0 < np.abs(u0).max() <= SPEED_BOUND
    # one wave of mode 1 over the cell-centre span 1 - 1/N, not over the period
    one = SinesIC(modes=(1,), amplitudes=(1.0,), phases=(0.0,), wavelength=1 - 1 / 1024)
    u = evaluate_initial_conditions([one], X)[0]
    np.testing.assert_allclose(u, np.sin(2 * np.pi * X * 1024 / 1023), atol=1e-14)
    # a constant offset from an unselected candidate
    flat = SinesIC(modes=(0, 2), amplitudes=(0.5, 0.0), phases=(0.3, 0.0))
    np.testing.assert_allclose(evaluate_initial_conditions([flat], X)[0], 0.5 * np.sin(0.3))


def test_formula_abs_sign_and_window():
    base = SinesIC(modes=(1, 3), amplitudes=(0.7, 0.4), phases=(0.3, 2.0))
    sines = 0.7 * np.sin(2 * np.pi * X + 0.3) + 0.4 * np.sin(6 * np.pi * X + 2.0)
    np.testing.assert_allclose(evaluate_initial_conditions([base], X)[0], sines, atol=1e-15)
    flipped = replace(base, absolute=True, sign=-1.0)
    np.testing.assert_allclose(evaluate_initial_conditions([flipped], X)[0], -np.abs(sines))
    boxed = replace(base, windowed=True, x_left=0.2, x_right=0.7)
    u = evaluate_initial_conditions([boxed], X)[0]
    np.testing.assert_allclose(u, sines * window(X, 0.2, 0.7), atol=1e-15)
    outside = (X < 0.1) | (X > 0.8)
    assert np.abs(u[outside]).max() < 1e-4  # tanh edges of width 0.01, 0.1 away
    inside = (X > 0.3) & (X < 0.6)
    np.testing.assert_allclose(u[inside], sines[inside], atol=1e-8)


def test_fields_bounded_and_samples_are_independent_of_batching():
    u0, ics = sample_initial_conditions([np.random.default_rng((3, i)) for i in range(300)], X)
    assert u0.shape == (300, 1024) and np.abs(u0).max() <= SPEED_BOUND
    assert all((u0[i] >= 0).all() or (u0[i] <= 0).all() for i, ic in enumerate(ics) if ic.absolute)
    alone, (ic7,) = sample_initial_conditions([np.random.default_rng((3, 7))], X)
    assert ic7 == ics[7]
    np.testing.assert_array_equal(alone[0], u0[7])
    assert ics[7] != ics[8]
    record = ics[7].record()
    sines = {f"{name}{i}" for name in ("n", "a", "phi") for i in range(1, 5)}
    flags = {"absolute", "sign", "windowed", "x_left", "x_right", "wavelength"}
    assert set(record) == sines | flags


@pytest.mark.parametrize(
    "kwargs",
    [
        {"modes": (-1, 1)},
        {"wavelength": 0.0},
        {"modes": (1.5, 1)},
        {"amplitudes": (math.nan, 0.1)},
        {"phases": (0.0,)},
        {"sign": 0.5},
        {"windowed": True, "x_left": 0.6, "x_right": 0.4},
    ],
)
def test_bad_initial_condition_parameters_rejected(kwargs):
    base = {"modes": (1, 2), "amplitudes": (0.5, 0.5), "phases": (0.0, 1.0)}
    with pytest.raises(ValueError):
        SinesIC(**(base | kwargs))


def test_bad_evaluation_inputs_rejected():
    ics = _draw(2)
    with pytest.raises(ValueError, match="shape"):
        evaluate_initial_conditions(ics, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="finite"):
        evaluate_initial_conditions(ics, np.array([0.1, np.inf]))
    with pytest.raises(ValueError, match="at least one"):
        evaluate_initial_conditions([], X)
    with pytest.raises(ValueError, match="Generator"):
        draw_initial_condition(np.random.RandomState(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        cell_centres(0)


# --- advection -------------------------------------------------------------------------


@pytest.mark.parametrize("cells,beta", [(1, 0.5), (37, -2.0), (1000, 4.0), (2048 + 5, 7.0)])
def test_grid_aligned_shift_equals_roll(cells, beta):
    ics = _kinds()
    t = abs(cells / 1024 / beta)  # beta t = cells / 1024 exactly
    expected = np.roll(evaluate_initial_conditions(ics, X), int(np.sign(beta)) * cells, axis=-1)
    np.testing.assert_allclose(advect(ics, beta, X, t), expected, rtol=0, atol=1e-15)


def test_off_grid_shift_matches_fourier_shift():
    # exact for 1-periodic sums only: the law's wavelength 1 - 1/N leaves a wrap-around jump
    smooth = [replace(ic, absolute=False, windowed=False, wavelength=1.0) for ic in _draw(6)]
    u0 = evaluate_initial_conditions(smooth, X)
    k = 2 * np.pi * np.arange(513)
    for beta, t in [(0.4, 0.37), (7.0, 1.99), (-1.3, 0.123)]:
        shifted = np.fft.irfft(np.fft.rfft(u0) * np.exp(-1j * k * beta * t), n=1024)
        np.testing.assert_allclose(advect(smooth, beta, X, t), shifted, atol=1e-13)


def test_off_grid_shift_of_kinked_fields_is_a_roll_on_a_three_times_finer_grid():
    # Cell centres of the 1024 grid are every third centre (offset 1) of the 3072 grid, so
    # a shift by 1/3072 (off the coarse grid) is a one-cell roll there.
    ics = _kinds()
    fine = evaluate_initial_conditions(ics, cell_centres(3072))
    expected = np.roll(fine, 1, axis=-1)[:, 1::3]
    np.testing.assert_allclose(advect(ics, 1.0, X, 1 / 3072), expected, atol=1e-12)


def test_advection_frames_layout_and_period():
    ics = _kinds(4)
    frames = advection_frames(ics, 0.5)
    assert frames.shape == (4, 201, 1024)
    np.testing.assert_array_equal(frames[:, 0], evaluate_initial_conditions(ics, X))
    np.testing.assert_allclose(frames[:, -1], frames[:, 0], atol=1e-14)  # beta T = 1
    assert advected_points(np.array([0.0]), 7.0, 2.0)[0] == 0.0


@pytest.mark.parametrize("beta,t", [(math.nan, 0.1), (math.inf, 0.1), (1.0, -0.1), ("1", 0.1)])
def test_bad_advection_inputs_rejected(beta, t):
    with pytest.raises(ValueError):
        advect(_draw(1), beta, X, t)


# --- viscous Burgers -------------------------------------------------------------------


def test_internal_grid_rule_and_cell_centres():
    sizes = {nu: PDEBenchBurgersProblem(nu).resolution for nu in RELEASED_NUS}
    # 5 points per front 2 nu / (pi U) at the law's speed bound U = 4
    assert sizes[0.001] == 32768 and sizes[0.002] == 16384 and sizes[0.01] == 4096
    assert sizes[0.02] == 2048 and all(n == 1024 for nu, n in sizes.items() if nu >= 0.04)
    for nu in (0.001, 0.1):
        p = PDEBenchBurgersProblem(nu)
        np.testing.assert_array_equal(p.internal_grid[:: p.stride], X)
        assert p.steps_per_frame * p.time_step == pytest.approx(0.01, rel=1e-12)
        assert p.time_step * p.speed_bound * 2 * np.pi * p.resolution / 3 <= p.courant


def test_cole_hopf_integral_matches_series_at_moderate_nu():
    ic = SinesIC(modes=(1,), amplitudes=(0.9,), phases=(0.0,))
    for t in (0.01, 0.3, 2.0):
        series = cole_hopf_sine(X, t, amplitude=0.9, viscosity=0.1 / np.pi)
        np.testing.assert_allclose(cole_hopf_sines(ic, X, t, 0.1 / np.pi), series, atol=1e-13)
    with pytest.raises(ValueError, match="primitive"):
        cole_hopf_sines(replace(ic, absolute=True), X, 0.1, 0.01)


def test_burgers_matches_cole_hopf_at_moderate_nu():
    table = cole_hopf_moderate()
    assert list(table.columns) == COLUMNS and len(table) == 2
    assert (table["max_abs_error"] < 1e-6).all(), table


def test_burgers_two_sines_small_nu_default_grid_against_cole_hopf():
    # nu = 0.004: default grid 4096 points; fronts of width ~4e-3 form by t = 0.04
    p = PDEBenchBurgersProblem(0.004, t_final=0.08, n_frames=9)
    ics = [STEEP_IC, replace(STEEP_IC, sign=-1.0)]
    out = burgers_frames(ics, p, device="cpu")
    for ic, u in zip(ics, out.frames, strict=True):
        times = frame_times(0.08, 9)[1:]
        exact = np.stack([cole_hopf_sines(ic, X, t, p.diffusivity) for t in times])
        assert np.abs(u[1:] - exact).max() < 1e-6 * np.abs(exact).max()
    assert (out.spectral_tail < 1e-7).all()
    # a sample's result does not depend on its batch
    alone = burgers_frames([STEEP_IC], p, device="cpu").frames[0]
    np.testing.assert_allclose(alone, out.frames[0], rtol=0, atol=1e-14)


def test_oversampled_initial_data_remove_kink_aliasing():
    kinked = [SinesIC(modes=(1, 3), amplitudes=(0.6, 0.5), phases=(0.3, 2.0), absolute=True)]
    p = PDEBenchBurgersProblem(0.1, t_final=0.03, n_frames=4)
    fine = replace(p, internal_resolution=2048)
    reference = burgers_frames(kinked, fine, oversample=16, device="cpu").frames
    scale = np.abs(reference).max()
    plain = burgers_frames(kinked, p, oversample=1, device="cpu").frames
    dense = burgers_frames(kinked, p, device="cpu").frames
    np.testing.assert_array_equal(dense[:, 0], evaluate_initial_conditions(kinked, X))
    assert np.abs(plain - reference).max() > 1e-5 * scale  # aliasing of the kink
    assert np.abs(dense - reference).max() < 1e-6 * scale
    smooth = [replace(kinked[0], absolute=False)]
    np.testing.assert_allclose(
        burgers_frames(smooth, p, oversample=1, device="cpu").frames,
        burgers_frames(smooth, p, device="cpu").frames,
        atol=1e-13,
    )


def test_small_nu_convergence_rows():
    table = steep_front_convergence()
    assert list(table.columns) == COLUMNS
    exact = table[table["case"].str.contains("Cole-Hopf")]
    errors = exact["max_abs_error"].to_numpy()
    assert (np.diff(errors) < 0).all() and errors[-1] < 1e-4
    assert (exact["observed_order"].dropna() > 3.5).all()
    own = table[table["case"].str.contains("self-convergence")]
    assert len(own) == 2 and own["observed_order"].dropna().iloc[0] > 3.5


def test_advection_verification_rows():
    table = advection_verification(n_samples=6)
    assert list(table.columns) == COLUMNS
    assert table["max_abs_error"].max() < 1e-12


@pytest.mark.parametrize(
    "kwargs",
    [
        {"nu": -0.1},
        {"nu": 0.0},
        {"nu": math.nan},
        {"nu": math.inf},
        {"nu": True},
        {"nu": 0.1, "n_cells": 1023},
        {"nu": 0.1, "internal_resolution": 1536},
        {"nu": 0.1, "n_frames": 1},
        {"nu": 0.1, "courant": -1.0},
    ],
)
def test_bad_burgers_problems_rejected(kwargs):
    with pytest.raises(ValueError):
        PDEBenchBurgersProblem(**kwargs)


def test_bad_burgers_initial_values_rejected():
    p = PDEBenchBurgersProblem(0.1, t_final=0.02, n_frames=3)
    with pytest.raises(ValueError, match="shape"):
        solve_viscous_burgers(np.zeros((2, 512)), p, device="cpu")
    bad = np.zeros((2, 1024))
    bad[1, 3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        solve_viscous_burgers(bad, p, device="cpu")
    with pytest.raises(ValueError, match="speed_bound"):
        solve_viscous_burgers(np.full(1024, 4.5), p, device="cpu")


def test_unstable_step_reports_divergence():
    p = PDEBenchBurgersProblem(0.001, t_final=0.5, n_frames=6, internal_resolution=1024)
    p = replace(p, courant=1000.0)
    u0 = 2.0 * np.sin(8 * np.pi * p.internal_grid)
    with pytest.raises(SolverDivergedError, match="sample 0"):
        solve_viscous_burgers(u0, p, device="cpu")
