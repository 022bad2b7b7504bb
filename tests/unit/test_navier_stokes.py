"""Tests for the 2-D Navier-Stokes vorticity solver, its random initial fields and verification."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.navier_stokes.navier_stokes import (
    NavierStokesProblem,
    NavierStokesStepper,
    solve_navier_stokes,
)
from pderepro.solvers.navier_stokes.torus import (
    dealias_mask,
    grf_eigenvalues_2d,
    sample_vorticity_grf,
)
from pderepro.verification.navier_stokes import (
    AB2CN_ORDER,
    forced_shell_error,
    navier_stokes_verification,
    spectral_diagnostics,
    taylor_green_error,
)
from pderepro.verification.table import COLUMNS

CPU = "cpu"


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problem(**kwargs) -> NavierStokesProblem:
    defaults = {"t_final": 1.0, "time_step": 1e-2, "resolution": 32, "record_interval": 0.5}
    return NavierStokesProblem(**{**defaults, **kwargs})


def test_grf_shape_dtype_and_zero_mean():
    w = sample_vorticity_grf(5, 32, seed=0, device=CPU)
    assert w.shape == (5, 32, 32)
    assert w.dtype == torch.float64
    assert w.mean(dim=(1, 2)).abs().max() < 1e-15
    assert sample_vorticity_grf(2, 16, seed=0, device=CPU, dtype=torch.float32).dtype == (
        torch.float32
    )


def test_grf_reproducible_for_same_seed():
    a = sample_vorticity_grf(3, 32, seed=7, device=CPU)
    torch.testing.assert_close(a, sample_vorticity_grf(3, 32, seed=7, device=CPU), rtol=0, atol=0)
    gen = torch.Generator().manual_seed(7)
    torch.testing.assert_close(a, sample_vorticity_grf(3, 32, generator=gen, device=CPU))
    assert not torch.equal(a, sample_vorticity_grf(3, 32, seed=8, device=CPU))
    single = sample_vorticity_grf(3, 32, seed=7, device=CPU, dtype=torch.float32)
    torch.testing.assert_close(single, a.float())
    with pytest.raises(ValueError, match="either generator or seed"):
        sample_vorticity_grf(1, 16, seed=1, generator=gen, device=CPU)


def test_grf_spectrum_matches_covariance_eigenvalues():
    n, samples = 16, 4000
    w = sample_vorticity_grf(samples, n, seed=1, device=CPU)
    power = (torch.fft.rfft2(w).abs() ** 2).mean(0).numpy() / n**4  # E |w_hat_k|^2
    lam = grf_eigenvalues_2d(n)
    sampled = lam > 0
    # Each mode's power estimate has relative spread ~ 1/sqrt(samples) (sqrt 2 on real modes).
    np.testing.assert_allclose(power[sampled], lam[sampled], rtol=0.1)
    assert np.all(power[~sampled] < 1e-25)
    # Slope of log power against log(4 pi^2 |k|^2 + 49) is -exponent = -2.5.
    kx = np.fft.fftfreq(n, 1.0 / n)[:, None]
    ky = np.arange(n // 2 + 1)[None, :]
    x = np.log(4.0 * np.pi**2 * (kx**2 + ky**2) + 49.0)[sampled]
    slope = np.polyfit(x, np.log(power[sampled]), 1)[0]
    assert slope == pytest.approx(-2.5, abs=0.05)
    # Pointwise variance is the sum of the eigenvalues over both signs of k.
    total = lam.sum() + lam[:, 1:].sum()  # columns 1.. stand for two modes each
    assert float(w.var(dim=0).mean()) == pytest.approx(total, rel=0.05)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("viscosity", -1e-3),
        ("viscosity", float("nan")),
        ("t_final", 0.0),
        ("time_step", -1.0),
        ("time_step", 0.3),  # does not divide record_interval 0.5
        ("record_interval", 0.3),  # does not divide t_final 1.0
        ("resolution", 33),
        ("resolution", 4),
        ("resolution", 32.0),
        ("forcing_amplitude", float("inf")),
        ("grf_scale", 0.0),
        ("grf_exponent", -2.5),
        ("grf_shift", -100.0),
    ],
)
def test_problem_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        _problem(**{field: value})


def test_problem_derived_quantities_and_forcing():
    p = _problem(t_final=3.0, time_step=1e-3, record_interval=1.0)
    assert (p.steps_per_record, p.n_records, p.n_steps) == (1000, 3, 3000)
    np.testing.assert_allclose(p.record_times, [0.0, 1.0, 2.0, 3.0])
    x = p.grid
    assert p.forcing()[3, 5] == pytest.approx(
        0.1 * (math.sin(2 * math.pi * (x[3] + x[5])) + math.cos(2 * math.pi * (x[3] + x[5])))
    )
    defaults = NavierStokesProblem()
    assert (defaults.time_step, defaults.resolution, defaults.grf_scale) == (1e-4, 256, 343.0)


def test_advection_term_matches_padded_advective_form():
    """Basdevant's form equals the alias-free FFT of ``u w_x + v w_y`` on retained modes."""
    n, big = 24, 48
    stepper = NavierStokesStepper(_problem(resolution=n), device=CPU)
    w_hat = torch.fft.rfft2(sample_vorticity_grf(2, n, seed=3, device=CPU))
    w_hat *= torch.as_tensor(dealias_mask(n))
    got = stepper.nonlinear_hat(w_hat).numpy()

    # Reference: full complex spectrum, derivatives, products on a 2x grid (no aliasing).
    full = np.fft.fft2(torch.fft.irfft2(w_hat, s=(n, n)).numpy()) / n**2
    k = np.fft.fftfreq(n, 1.0 / n)
    kx, ky = k[:, None], k[None, :]
    k2 = np.where(kx**2 + ky**2 > 0, kx**2 + ky**2, np.inf)
    psi = full / (4.0 * np.pi**2 * k2)
    idx = np.r_[0 : n // 2, big - n // 2 : big]

    def on_big_grid(coeffs: np.ndarray) -> np.ndarray:
        padded = np.zeros((coeffs.shape[0], big, big), dtype=complex)
        padded[:, idx[:, None], idx[None, :]] = coeffs
        return np.fft.ifft2(padded).real * big**2

    u = on_big_grid(2j * np.pi * ky * psi)
    v = on_big_grid(-2j * np.pi * kx * psi)
    adv = u * on_big_grid(2j * np.pi * kx * full) + v * on_big_grid(2j * np.pi * ky * full)
    adv_hat = (np.fft.fft2(adv) / big**2)[:, idx[:, None], idx[None, :]] * n**2
    want = adv_hat[:, :, : n // 2 + 1] * dealias_mask(n)
    np.testing.assert_allclose(got, want, atol=1e-11 * np.abs(want).max())


def test_taylor_green_decay_is_exact():
    err = taylor_green_error(32, 1e-3, viscosity=1e-3, t_final=0.5, wavenumber=4)
    assert err < 1e-6


def test_forced_shell_solution_is_second_order_in_time():
    errors = [forced_shell_error(16, dt, viscosity=1e-2, t_final=1.0) for dt in (0.1, 0.05)]
    assert errors[1] < 1e-4
    assert math.log2(errors[0] / errors[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)


def test_inviscid_unforced_run_conserves_energy_and_enstrophy():
    p = _problem(viscosity=0.0, forcing_amplitude=0.0, time_step=2.5e-3, record_interval=1.0)
    w = solve_navier_stokes(sample_vorticity_grf(2, 32, seed=4, device=CPU), p, device=CPU)
    start, end = spectral_diagnostics(w[:, 0]), spectral_diagnostics(w[:, -1])
    for name in ("energy", "enstrophy"):
        torch.testing.assert_close(end[name], start[name], rtol=1e-6, atol=0)
    assert not torch.allclose(w[:, 0], w[:, -1])  # the flow did evolve


def test_spectral_diagnostics_match_grid_averages():
    n = 16
    w = sample_vorticity_grf(2, n, seed=5, device=CPU)
    f = torch.as_tensor(_problem(resolution=n).forcing())
    d = spectral_diagnostics(w, f)
    torch.testing.assert_close(d["enstrophy"], 0.5 * (w**2).mean((1, 2)))
    torch.testing.assert_close(d["forcing_work"], (w * f).mean((1, 2)))
    # Energy from the velocity u = psi_y, v = -psi_x on the grid.
    k = 2.0 * np.pi * np.fft.fftfreq(n, 1.0 / n)
    kx, ky = k[:, None], k[None, :]
    psi_hat = np.fft.fft2(w.numpy()) / np.where(kx**2 + ky**2 > 0, kx**2 + ky**2, np.inf)
    u = np.fft.ifft2(1j * ky * psi_hat).real
    v = np.fft.ifft2(-1j * kx * psi_hat).real
    np.testing.assert_allclose(d["energy"].numpy(), 0.5 * (u**2 + v**2).mean((1, 2)))


def test_forced_run_shapes_records_and_progress():
    p = _problem(viscosity=1e-3, t_final=2.0, time_step=5e-3, record_interval=0.5)
    w0 = sample_vorticity_grf(3, 32, seed=6, device=CPU)
    calls = []
    w = solve_navier_stokes(w0, p, device=CPU, progress=lambda i, t: calls.append((i, t)))
    assert w.shape == (3, p.n_records + 1, 32, 32) == (3, 5, 32, 32)
    assert w.dtype == torch.float64
    assert torch.isfinite(w).all()
    torch.testing.assert_close(w[:, 0], w0, rtol=0, atol=0)
    assert [i for i, _ in calls] == [1, 2, 3, 4]
    np.testing.assert_allclose([t for _, t in calls], p.record_times[1:])
    # A 2-D input gives a (records, n, n) output equal to the batched one.
    single = solve_navier_stokes(w0[1].numpy(), p, device=CPU)
    torch.testing.assert_close(single, w[1], rtol=0, atol=1e-13)


def test_step_history_and_reset():
    stepper = NavierStokesStepper(_problem(), device=CPU)
    w_hat = torch.fft.rfft2(sample_vorticity_grf(2, 32, seed=7, device=CPU))
    first = stepper.step_(w_hat.clone())  # Euler start
    second_ab2 = stepper.step_(first.clone())  # uses the stored advection term of w_hat
    stepper.reset()
    second_euler = stepper.step_(first.clone())
    assert (second_ab2 - second_euler).abs().max() > 1e-6 * second_euler.abs().max()
    stepper.reset()
    torch.testing.assert_close(stepper.step_(w_hat.clone()), first, rtol=0, atol=0)


def test_batch_chunks_give_the_same_result():
    p = _problem(viscosity=1e-3, time_step=5e-3)
    w_hat = torch.fft.rfft2(sample_vorticity_grf(5, 32, seed=11, device=CPU))
    whole = NavierStokesStepper(p, device=CPU, chunk_size=None)
    whole.chunk_size = None  # one pass over the batch
    chunked = NavierStokesStepper(p, device=CPU, chunk_size=2)  # chunks of 1, 2, 2
    a, b = w_hat.clone(), w_hat.clone()
    for _ in range(20):
        whole.step_(a)
        chunked.step_(b)
    torch.testing.assert_close(b, a, rtol=0, atol=1e-12 * float(a.abs().max()))
    with pytest.raises(ValueError, match="fixed within a trajectory"):
        chunked.step_(w_hat[:3].clone())


def test_float32_path_matches_float64():
    p = _problem(viscosity=1e-3, time_step=5e-3)
    w0 = sample_vorticity_grf(2, 32, seed=8, device=CPU)
    w64 = solve_navier_stokes(w0, p, device=CPU)
    w32 = solve_navier_stokes(w0, p, device=CPU, dtype=torch.float32)
    assert w32.dtype == torch.float32
    rel = (w32.double() - w64).norm() / w64.norm()
    assert rel < 1e-5


def test_non_finite_values_are_detected_with_sample_index():
    p = _problem()
    w0 = sample_vorticity_grf(3, 32, seed=9, device=CPU)
    w0[1, 4, 5] = float("nan")
    with pytest.raises(SolverDivergedError, match=r"sample 1 .*t=0"):
        solve_navier_stokes(w0, p, device=CPU)


def test_blow_up_is_detected_during_stepping():
    # Inviscid, huge amplitude and a step far beyond the advective limit: explodes quickly.
    p = _problem(viscosity=0.0, t_final=10.0, time_step=0.05, record_interval=10.0, resolution=16)
    w0 = 1e4 * sample_vorticity_grf(2, 16, seed=10, device=CPU)
    with pytest.raises(SolverDivergedError, match=r"sample 0 detected at t=5 \(step 100 of 200\)"):
        solve_navier_stokes(w0, p, device=CPU)


def test_bad_inputs_raise():
    p = _problem()
    with pytest.raises(ValueError, match="shape"):
        solve_navier_stokes(torch.zeros(2, 16, 16), p, device=CPU)
    with pytest.raises(ValueError, match="dtype"):
        solve_navier_stokes(torch.zeros(2, 32, 32), p, device=CPU, dtype=torch.float16)


def test_verification_table_small():
    table = navier_stokes_verification(
        decay_resolutions=(16,), decay_time_step=1e-3, decay_t_final=0.5,
        forced_resolution=16, forced_time_steps=(0.1, 0.05),
        budget_resolution=32, budget_time_steps=(0.02, 0.01), budget_t_final=0.5,
        budget_samples=2, advective_resolution=16, advective_time_steps=(0.02, 0.01),
        advective_t_final=0.5,
    )  # fmt: skip
    assert list(table.columns) == COLUMNS
    assert set(table["solver"]) == {"navier_stokes_spectral"}
    assert len(table) == 7
    decay = table[table["case"].str.startswith("taylor_green")]
    assert decay["max_abs_error"].max() < 1e-6
    assert decay["observed_order"].isna().all()
    for prefix in ("forced_shell", "enstrophy_budget", "advective_if_rk4"):
        rows = table[table["case"].str.startswith(prefix)]
        assert rows["observed_order"].iloc[-1] == pytest.approx(AB2CN_ORDER, abs=0.1)


def test_solver_matches_the_independent_advective_rk4_and_sees_the_advection_sign():
    """A turbulent run against the advective-form integrating-factor RK4: second order in
    the step, and an O(1e-2) difference from the equation with the advection reversed."""
    import dataclasses

    from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf
    from pderepro.verification.navier_stokes import (
        advective_reference_difference,
        box_if_rk4,
    )

    w0 = sample_vorticity_grf(2, 32, seed=1, device="cpu")
    base = NavierStokesProblem(viscosity=1e-3, t_final=1.0, resolution=32, record_interval=1.0)
    errors = [
        advective_reference_difference(dataclasses.replace(base, time_step=dt), w0, 1e-3)
        for dt in (0.01, 0.005)
    ]
    assert errors[1] < 1e-5
    assert 3.5 < errors[0] / errors[1] < 4.5  # AB2/CN: second order
    reversed_ = box_if_rk4(
        w0.numpy(), base.forcing(), box_size=1.0, viscosity=1e-3, drag=0.0, beta=0.0,
        t_final=1.0, time_step=1e-3, advection_sign=-1.0,
    )  # fmt: skip
    ours = solve_navier_stokes(w0, dataclasses.replace(base, time_step=0.005), device="cpu")
    assert np.abs(ours[:, -1].numpy() - reversed_).max() / np.abs(reversed_).max() > 1e-2


def test_restart_starts_chosen_members_afresh_and_leaves_the_others_alone():
    problem = _problem(viscosity=1e-3, forcing_amplitude=0.1)
    w = torch.fft.rfft2(sample_vorticity_grf(3, 32, seed=3, device=CPU))  # (3, n, n // 2 + 1)
    fresh = torch.fft.rfft2(sample_vorticity_grf(1, 32, seed=4, device=CPU))
    batch, untouched = (
        NavierStokesStepper(problem, device=CPU),
        NavierStokesStepper(problem, device=CPU),
    )
    a, b = w.clone(), w.clone()
    for _ in range(3):
        batch.step_(a)
        untouched.step_(b)
    a[1] = fresh[0]  # member 1 restarts from a new state, the others go on
    batch.restart(np.array([False, True, False]))
    alone = NavierStokesStepper(problem, device=CPU)
    c = fresh.clone()
    for _ in range(4):
        batch.step_(a)
        untouched.step_(b)
        alone.step_(c)
    torch.testing.assert_close(a[[0, 2]], b[[0, 2]], rtol=0, atol=0)  # AB2 history kept
    torch.testing.assert_close(a[1], c[0], rtol=1e-12, atol=1e-12)  # Euler start, as a new run
