"""The Schrodinger reference solver: the wells' matching conditions, the finite-difference
eigenstates (order 2, normalisation, walls, signs) and the verification rows' tolerances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import trapezoid

from pderepro.solvers.elliptic import schrodinger as sch
from pderepro.verification import schrodinger as verification
from pderepro.verification.table import COLUMNS, observed_orders

DEPTH, HALF_WIDTH, WALL = sch.FINITE_WELL_DEPTH, sch.FINITE_WELL_HALF_WIDTH, sch.FINITE_WELL_WALL


@pytest.mark.parametrize("wall", [math.inf, WALL])
def test_finite_well_energies_solve_their_matching_conditions(wall):
    energies = sch.finite_well_energies(DEPTH, HALF_WIDTH, 2, wall=wall)
    assert np.all(np.diff(energies) > 0) and 0 < energies[0] and energies[-1] < DEPTH
    for j, e in enumerate(energies):
        k, kappa = math.sqrt(e), math.sqrt(DEPTH - e)
        outside = kappa / math.tanh(kappa * (wall - HALF_WIDTH))  # kappa on the real line
        inside = k * math.tan(k * HALF_WIDTH) if j % 2 == 0 else -k / math.tan(k * HALF_WIDTH)
        assert inside == pytest.approx(outside, rel=1e-12)


def test_finite_well_walls_lift_the_energies_and_the_study_well_has_two_states():
    line = sch.finite_well_energies(DEPTH, HALF_WIDTH, 2)
    walls = sch.finite_well_energies(DEPTH, HALF_WIDTH, 2, wall=WALL)
    shift = walls - line
    assert 0 < shift[0] < 2e-8 and 3.9e-4 < shift[1] < 4.1e-4, shift
    with pytest.raises(ValueError, match="not bound"):
        sch.finite_well_energies(DEPTH, HALF_WIDTH, 3)


@pytest.mark.parametrize("depth, rel", [(1e4, 1e-4), (1e6, 1e-7)])
def test_deep_finite_well_approaches_the_infinite_well_from_below(depth, rel):
    n = np.arange(1, 4)
    energies = sch.finite_well_energies(depth, HALF_WIDTH, 3)
    infinite = n**2 * math.pi**2 / (2 * HALF_WIDTH) ** 2
    assert np.all(energies < infinite)
    np.testing.assert_allclose(energies, infinite, rtol=5 / math.sqrt(depth))
    # the wave leaks about 1 / sqrt(V0) into each wall: a well that much wider
    widened = n**2 * math.pi**2 / (2 * HALF_WIDTH + 2 / math.sqrt(depth)) ** 2
    np.testing.assert_allclose(energies, widened, rtol=rel)


def test_barrier_ground_energy_matches_its_limits_and_its_condition():
    b = sch.BARRIER_HALF_WIDTH
    assert sch.barrier_ground_energy(0.0, b) == pytest.approx(math.pi**2 / 4, rel=1e-13)
    split = (math.pi / (1 - b)) ** 2  # two wells of width 1 - b
    tall = sch.barrier_ground_energy(1e8, b)
    assert tall < split and tall == pytest.approx(split, rel=1e-3)
    e = sch.barrier_ground_energy(sch.BARRIER_HEIGHT, b)
    k, kappa = math.sqrt(e), math.sqrt(sch.BARRIER_HEIGHT - e)
    assert kappa * math.tanh(kappa * b) == pytest.approx(-k / math.tan(k * (1 - b)), rel=1e-12)
    # below the barrier (the -q tan(q b) branch) it still lies above the bare well
    low = sch.barrier_ground_energy(1.0, b)
    assert math.pi**2 / 4 < low < math.pi**2 / 4 + 1.0


def test_potential_takes_the_mean_on_its_jumps():
    v = sch.potential(sch.FINITE_WELL, np.array([-3.0, -0.5, 0.0, 0.5 + 1e-12, 0.7]))
    np.testing.assert_array_equal(v, [DEPTH, DEPTH / 2, 0.0, DEPTH / 2, DEPTH])
    v = sch.potential(sch.BARRIER, np.array([-1.0, -0.1, 0.0, -1.0 + 0.9, 0.5]))
    h = sch.BARRIER_HEIGHT
    np.testing.assert_array_equal(v, [0.0, h / 2, h, h / 2, 0.0])
    assert not sch.potential(sch.INFINITE_WELL, np.linspace(0, 1, 5)).any()
    with pytest.raises(ValueError, match="unknown problem"):
        sch.potential("harmonic", np.zeros(3))


def test_grids_must_put_the_jumps_on_nodes():
    with pytest.raises(ValueError, match="multiple of 12"):
        sch.eigenstates(sch.FINITE_WELL, 100)
    with pytest.raises(ValueError, match="multiple of 20"):
        sch.eigenstates(sch.BARRIER, 130)
    assert sch.REFERENCE_CELLS % math.lcm(*sch.CELL_MULTIPLES.values()) == 0


def test_infinite_well_energies_converge_at_order_two():
    levels = (40, 80, 160)
    n = np.arange(1, 4)
    errors = np.array([sch.eigenstates(sch.INFINITE_WELL, c, 3)[0] for c in levels])
    errors = np.abs(errors - n**2 * math.pi**2)  # (level, state)
    for state in range(3):
        orders = observed_orders(list(errors[:, state]), [float(c) for c in levels])[1:]
        assert all(1.98 < order < 2.02 for order in orders), (state, orders)


def test_finite_well_reference_ground_energy_matches_the_root():
    walls = sch.finite_well_energies(DEPTH, HALF_WIDTH, 2, wall=WALL)
    energies, x, _ = sch.eigenstates(sch.FINITE_WELL, sch.REFERENCE_CELLS, 2)
    assert x.shape == (sch.REFERENCE_CELLS + 1,)
    assert abs(energies[0] - walls[0]) < 1.5e-6 and abs(energies[1] - walls[1]) < 1e-6


@pytest.mark.parametrize("name", sch.PROBLEMS)
def test_states_are_normalised_zero_at_the_walls_with_fixed_signs(name):
    energies, x, psi = sch.eigenstates(name, 120, 2)
    lo, hi = sch.DOMAINS[name]
    assert energies.shape == (2,) and psi.shape == (2, 121) and (x[0], x[-1]) == (lo, hi)
    np.testing.assert_allclose(trapezoid(psi**2, x, axis=1), 1.0, rtol=1e-12)
    assert not psi[:, [0, -1]].any()
    assert np.all(psi[0, 1:-1] > 0)
    # the ground state is even and the first excited odd about the centre, left lobe up
    np.testing.assert_allclose(psi[0], psi[0, ::-1], atol=1e-12)
    np.testing.assert_allclose(psi[1], -psi[1, ::-1], atol=1e-12)
    assert psi[1, 30] > 0


def test_richardson_energies_are_fourth_order():
    exact = sch.barrier_ground_energy(sch.BARRIER_HEIGHT, sch.BARRIER_HALF_WIDTH)
    errors = [abs(sch.richardson_energies(sch.BARRIER, c)[0] - exact) for c in (120, 240, 480)]
    orders = observed_orders(errors, [120.0, 240.0, 480.0])[1:]
    assert all(3.8 < order < 4.2 for order in orders), orders


@pytest.fixture(scope="module")
def table():
    return verification.schrodinger_verification()


def _case(table, text):
    rows = table[table["case"].str.contains(text, regex=False)]
    assert len(rows) > 0, text
    return rows


def test_verification_rows_have_the_shared_columns(table):
    assert list(table.columns) == COLUMNS
    assert (table["solver"] == verification.SOLVER).all() and table["dt"].isna().all()


@pytest.mark.parametrize(
    "text, reference_tolerance",
    [
        ("infinite well [0, 1], E0 vs pi^2", 1e-7),
        ("E0 vs root, walls", 1.5e-6),
        ("E1 vs root, walls", 1e-6),
        ("barrier V0=20, b=0.1 in [-1, 1], E0 vs root", 1e-7),
    ],
)
def test_verification_energies_converge_at_order_two(table, text, reference_tolerance):
    rows = _case(table, text)
    assert list(rows["resolution"]) == list(verification.LEVELS)
    orders = rows["observed_order"].iloc[1:-1]  # the reference grid's order meets round-off
    assert all(1.98 < order < 2.02 for order in orders), list(orders)
    assert rows["max_abs_error"].iloc[-1] < reference_tolerance


def test_verification_richardson_psi_and_real_line_rows(table):
    orders = _case(table, "Richardson E0")["observed_order"].iloc[1:]
    assert all(3.9 < order < 4.1 for order in orders), list(orders)
    assert _case(table, "psi0 vs sqrt(2) sin(pi x)")["max_abs_error"].iloc[0] < 1e-9
    assert (
        _case(table, "E0 on the reference grid vs the real line")["max_abs_error"].iloc[0] < 1.5e-6
    )
    assert (
        _case(table, "E1 on the reference grid vs the real line")["max_abs_error"].iloc[0] < 4.1e-4
    )
