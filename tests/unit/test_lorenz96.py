"""Tests for the two-scale Lorenz-96 integrator and its verification study."""

from __future__ import annotations

import importlib.util
import logging
import math
import sys

import numpy as np
import pytest

import pderepro.solvers.lorenz96.lorenz96 as l96
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.lorenz96 import kernel as lorenz96_kernel
from pderepro.solvers.lorenz96.lorenz96 import (
    Lorenz96Problem,
    attractor_state,
    integrate,
    quadratic_invariant,
    subgrid_tendency,
    tendencies,
)
from pderepro.verification.lorenz96 import RK4_ORDER, lorenz96_convergence
from pderepro.verification.table import COLUMNS

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
BACKENDS = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba")),
]


def _loop_tendencies(x, y, p: Lorenz96Problem):
    """Direct per-element transcription of the equations for one trajectory."""
    K, J = p.K, p.J
    ring = y.reshape(K * J)
    n = K * J
    dx = np.empty(K)
    dy = np.empty(n)
    damp = 1.0 if p.damping else 0.0
    for k in range(K):
        dx[k] = (
            -x[(k - 1) % K] * (x[(k - 2) % K] - x[(k + 1) % K])
            - damp * x[k]
            + p.forcing
            - p.h * p.c / p.b * sum(y[k, j] for j in range(J))
        )
    for i in range(n):
        dy[i] = (
            -p.c * p.b * ring[(i + 1) % n] * (ring[(i + 2) % n] - ring[(i - 1) % n])
            - damp * p.c * ring[i]
            + p.h * p.c / p.b * x[i // J]
        )
    return dx, dy.reshape(K, J)


@pytest.fixture(scope="module")
def attractor():
    return attractor_state(Lorenz96Problem(), trajectories=3, spin_up_time=0.5, seed=1)


def test_tendencies_hand_computed():
    p = Lorenz96Problem(K=4, J=2, forcing=0.0, h=0.0, b=1.0, c=1.0)
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    y = np.arange(1.0, 9.0).reshape(1, 4, 2)
    dx, dy = tendencies(x, y, p)
    # dX_0 = -X_3 (X_2 - X_1) - X_0 = -4 (3 - 2) - 1, etc.
    np.testing.assert_array_equal(dx[0], [-5.0, -3.0, 3.0, -7.0])
    # dY_0 = -Y_1 (Y_2 - Y_7) - Y_0 = -2 (3 - 8) - 1; dY_7 = -Y_0 (Y_1 - Y_6) - Y_7 (ring).
    assert dy[0, 0, 0] == 9.0
    assert dy[0, 3, 1] == -3.0


@pytest.mark.parametrize("damping", [True, False])
def test_tendencies_match_loop(damping):
    p = Lorenz96Problem(K=4, J=2, forcing=3.0, h=0.7, b=2.0, c=5.0, damping=damping)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4))
    y = rng.normal(size=(3, 4, 2))
    dx, dy = tendencies(x, y, p)
    assert dx.shape == x.shape and dy.shape == y.shape
    for t in range(3):
        ref_dx, ref_dy = _loop_tendencies(x[t], y[t], p)
        np.testing.assert_allclose(dx[t], ref_dx, rtol=1e-14, atol=1e-13)
        np.testing.assert_allclose(dy[t], ref_dy, rtol=1e-14, atol=1e-13)


def test_energy_tendency_vanishes_without_forcing_and_damping(attractor):
    # Advection and coupling exchange energy but conserve it: d/dt E = 2 (x.dx + y.dy) = 0.
    x, y = attractor
    p = Lorenz96Problem(forcing=0.0, h=1.0, damping=False)
    dx, dy = tendencies(x, y, p)
    rate = np.sum(x * dx, axis=1) + np.sum(y * dy, axis=(1, 2))
    scale = np.sum(np.abs(x * dx), axis=1) + np.sum(np.abs(y * dy), axis=(1, 2))
    np.testing.assert_array_less(np.abs(rate), 1e-13 * scale)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batched_equals_single_trajectories(attractor, backend):
    x0, y0 = attractor
    p = Lorenz96Problem()
    batch = integrate(x0, y0, p, n_steps=60, save_every=20, backend=backend)
    for t in range(x0.shape[0]):
        alone = integrate(x0[t : t + 1], y0[t : t + 1], p, n_steps=60, save_every=20,
                          backend=backend)  # fmt: skip
        np.testing.assert_array_equal(batch.x[t], alone.x[0])
        np.testing.assert_array_equal(batch.y[t], alone.y[0])


def test_numba_matches_numpy(attractor):
    pytest.importorskip("numba")
    x0, y0 = attractor
    for p in (Lorenz96Problem(), Lorenz96Problem(forcing=0.0, h=0.0, damping=False)):
        a = integrate(x0, y0, p, n_steps=200, save_every=50, backend="numba")
        b = integrate(x0, y0, p, n_steps=200, save_every=50, backend="numpy")
        np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.subgrid, b.subgrid, rtol=0, atol=1e-12)


def test_solution_layout(attractor):
    x0, y0 = attractor
    p = Lorenz96Problem()
    full = integrate(x0, y0, p, n_steps=25, save_every=10, t0=1.0)
    assert full.x.shape == (3, 2, 8) and full.y.shape == (3, 2, 8, 32)
    np.testing.assert_allclose(full.times, [1.01, 1.02])
    np.testing.assert_array_equal(full.subgrid, subgrid_tendency(full.y, p))
    slow = integrate(x0, y0, p, n_steps=25, save_every=10, store_fast=False)
    assert slow.y is None
    np.testing.assert_array_equal(slow.x, full.x)
    np.testing.assert_array_equal(slow.subgrid, full.subgrid)
    # The leftover 5 steps are taken: x_final continues the saved states.
    rest = integrate(full.x[:, -1], full.y[:, -1], p, n_steps=5, save_every=5)
    np.testing.assert_array_equal(rest.x_final, full.x_final)
    np.testing.assert_array_equal(x0, attractor[0])  # inputs untouched


@pytest.fixture(scope="module")
def study():
    return lorenz96_convergence()


def test_convergence_table_and_time_order(study):
    assert list(study.columns) == COLUMNS
    assert set(study["solver"]) == {"lorenz96_rk4"}
    assert (study["resolution"] == 8 * 32).all()
    time_rows = study[study["case"] == "rk4_time"]
    assert len(time_rows) == 4 and math.isnan(time_rows["observed_order"].iloc[0])
    assert abs(time_rows["observed_order"].iloc[-1] - RK4_ORDER) < 0.3
    assert time_rows["max_abs_error"].is_monotonic_decreasing


def test_invariant_conserved_to_high_order(study):
    rows = study[study["case"] == "invariant_advection"]
    assert rows["max_abs_error"].iloc[-1] < 1e-6
    assert (rows["observed_order"].iloc[1:] > RK4_ORDER - 0.3).all()


def test_quadratic_invariant():
    x = np.array([[1.0, 2.0, 0.0, 0.0]])
    y = np.full((1, 4, 2), 0.5)
    np.testing.assert_allclose(quadratic_invariant(x, y), [5.0 + 8 * 0.25])


@pytest.mark.parametrize("backend", BACKENDS)
def test_divergence_names_trajectory_and_time(attractor, backend):
    x0, y0 = attractor[0].copy(), attractor[1].copy()
    x0[1, 3] = np.nan
    with pytest.raises(SolverDivergedError, match=r"trajectory 1 .*t=0\.005"):
        integrate(x0, y0, Lorenz96Problem(), n_steps=10, save_every=5, backend=backend)


def test_falls_back_to_numpy_without_numba(attractor, monkeypatch, caplog):
    x0, y0 = attractor
    monkeypatch.setitem(sys.modules, "numba", None)  # makes `import numba` fail
    l96._numba_kernel.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger=lorenz96_kernel.__name__):
            run = integrate(x0, y0, Lorenz96Problem(), n_steps=4, save_every=2)
        assert "numba is not installed" in caplog.text
        ref = integrate(x0, y0, Lorenz96Problem(), n_steps=4, save_every=2, backend="numpy")
        np.testing.assert_array_equal(run.x, ref.x)
        with pytest.raises(ImportError):
            integrate(x0, y0, Lorenz96Problem(), n_steps=2, save_every=1, backend="numba")
    finally:
        l96._numba_kernel.cache_clear()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"K": 3}, "K"),
        ({"J": 0}, "J"),
        ({"K": 8.0}, "K"),
        ({"forcing": math.nan}, "forcing"),
        ({"h": math.inf}, "h"),
        ({"b": 0.0}, "b"),
        ({"c": -1.0}, "c"),
        ({"time_step": 0.0}, "time_step"),
        ({"damping": "yes"}, "damping"),
    ],
)
def test_problem_validation(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Lorenz96Problem(**kwargs)


def test_integrate_rejects_bad_arguments(attractor):
    x0, y0 = attractor
    p = Lorenz96Problem()
    with pytest.raises(ValueError, match="shape"):
        integrate(x0, y0[:, :, :5], p, n_steps=1, save_every=1)
    with pytest.raises(ValueError, match="save_every"):
        integrate(x0, y0, p, n_steps=1, save_every=0)
    with pytest.raises(ValueError, match="CPU"):
        integrate(x0, y0, p, n_steps=1, save_every=1, device="cuda")
