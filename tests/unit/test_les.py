"""Tests for LES filters, the exact subgrid term, eddy-viscosity closures, the LES stepper and
the turbulence statistics (2-D vorticity on the 2 pi box)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from pderepro.evaluation.turbulence import (
    energy_spectrum,
    enstrophy_spectrum,
    pdf_hellinger,
    spectrum_log_error,
    tail_mass,
    tail_ratio,
)
from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, NavierStokesStepper
from pderepro.solvers.navier_stokes.torus import dealias_mask, sample_vorticity_grf
from pderepro.solvers.turbulence.les import LesStepper, run_les
from pderepro.solvers.turbulence.les_closures import (
    Closure,
    DynamicSmagorinsky,
    Leith,
    NoClosure,
    Smagorinsky,
    eddy_viscosity_term,
    make_closure,
    resolved_gradients,
)
from pderepro.solvers.turbulence.les_filters import (
    advection,
    apply_filter,
    coarse_grain,
    filter_transfer,
    filtered_pair,
    pad_spectrum,
    subgrid_term,
    truncate_spectrum,
)

L = 2.0 * math.pi


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _grid(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    s = torch.arange(n, dtype=torch.float64) * (L / n)
    return torch.meshgrid(s, s, indexing="ij")  # x along axis 0, y along axis 1


def _modes(n: int, modes: list[tuple[int, int, float, float]]) -> torch.Tensor:
    """sum of a cos(k_x x + k_y y) + b sin(k_x x + k_y y) on the n grid of the 2 pi box."""
    x, y = _grid(n)
    w = torch.zeros(n, n, dtype=torch.float64)
    for kx, ky, a, b in modes:
        phase = kx * x + ky * y
        w = w + a * torch.cos(phase) + b * torch.sin(phase)
    return w


def _random(n: int, samples: int = 2, seed: int = 0) -> torch.Tensor:
    w = sample_vorticity_grf(samples, n, seed=seed, device="cpu", shift=4.0, exponent=1.5)
    return w / w.std()


LOW = [(1, 2, 0.7, -0.3), (3, -1, 0.2, 0.5), (0, 3, -0.4, 0.1), (2, 0, 0.3, 0.0)]  # |k| < 4


# ---- filters ----------------------------------------------------------------------------------


def test_sharp_filter_is_a_projection_and_matches_truncation():
    w = _random(32)
    once = apply_filter(w, "sharp", 8)
    torch.testing.assert_close(apply_filter(once, "sharp", 8), once, rtol=0, atol=1e-13)
    # self-adjoint: <P a, b> = <a, P b>
    a, b = w[0], w[1]
    lhs = (apply_filter(a, "sharp", 8) * b).sum()
    torch.testing.assert_close(lhs, (a * apply_filter(b, "sharp", 8)).sum(), rtol=1e-12, atol=0)
    # pad(truncate(w)) is the sharp filter on the fine grid
    back = pad_spectrum(truncate_spectrum(torch.fft.rfft2(w), 32, 8), 8, 32)
    torch.testing.assert_close(torch.fft.irfft2(back, s=(32, 32)), once, rtol=0, atol=1e-13)


def test_gaussian_transfer_value():
    transfer = filter_transfer("gaussian", 32, 8)
    # k = (3, 2): kappa = k on the 2 pi box, Delta = 2 pi / 8
    expected = math.exp(-13 * (2 * math.pi / 8) ** 2 / 24)
    assert transfer[3, 2] == pytest.approx(expected, rel=1e-14)
    assert transfer[-3, 2] == pytest.approx(expected, rel=1e-14)
    w = _modes(32, [(3, 2, 1.0, 0.5)])
    torch.testing.assert_close(apply_filter(w, "gaussian", 8), expected * w, rtol=0, atol=1e-13)


@pytest.mark.parametrize("kind", ["sharp", "gaussian"])
def test_coarse_graining_of_low_modes_is_exact(kind):
    fine, coarse = _modes(64, LOW), _modes(16, LOW)
    got = coarse_grain(fine[None], 16, kind)[0]
    if kind == "sharp":
        torch.testing.assert_close(got, coarse, rtol=0, atol=1e-13)
    else:  # each mode scaled by its transfer value
        g = lambda kx, ky: math.exp(-(kx**2 + ky**2) * (2 * math.pi / 16) ** 2 / 24)  # noqa: E731
        scaled = [(kx, ky, a * g(kx, ky), b * g(kx, ky)) for kx, ky, a, b in LOW]
        torch.testing.assert_close(got, _modes(16, scaled), rtol=0, atol=1e-13)


def test_unknown_filter_rejected():
    with pytest.raises(ValueError, match="filter kind"):
        filter_transfer("box", 32, 8)


# ---- exact subgrid term -----------------------------------------------------------------------


def test_advection_matches_the_navier_stokes_solver():
    w = _random(32)
    problem = NavierStokesProblem(resolution=32, box_size=L, viscosity=0.01)
    reference = torch.fft.irfft2(NavierStokesStepper(problem, device="cpu").nonlinear_hat(
        torch.fft.rfft2(w)), s=(32, 32))  # fmt: skip
    torch.testing.assert_close(advection(w, L), reference, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["sharp", "gaussian"])
def test_pi_vanishes_on_a_laplacian_eigenfunction(kind):
    # every mode on the shell |k| = 5: psi is proportional to w, so u . grad w = J(psi, w) = 0
    shell = [(5, 0, 1.0, 0.3), (3, 4, -0.6, 0.2), (4, -3, 0.5, 0.9), (0, 5, 0.1, -0.7)]
    w = _modes(64, shell)[None]
    assert advection(w, L).abs().max() < 1e-12
    assert subgrid_term(w, 16, L, kind).abs().max() < 1e-12


def _advected(field: torch.Tensor) -> torch.Tensor:
    """The field's part on the 2/3-rule modes of its own grid (the modes an LES advects)."""
    n = field.shape[-1]
    mask = torch.tensor(dealias_mask(n), dtype=torch.float64)
    return torch.fft.irfft2(torch.fft.rfft2(field) * mask, s=(n, n))


def test_pi_vanishes_on_the_advected_modes_of_a_field_the_les_resolves():
    # modes |k| <= 3 < 12 / 3: the LES advects all of them, so on its advected modes the exact
    # term is 0; N(w) reaches |k| = 6, which the LES grid holds (|k| < 6) but does not advect
    w = _modes(64, LOW)[None]
    pi = subgrid_term(w, 12, L, "sharp")
    assert _advected(pi).abs().max() < 1e-12
    assert pi.abs().max() > 0.1  # the unadvected band 4 <= |k| < 6
    assert _advected(subgrid_term(w, 12, L, "gaussian")).abs().max() > 1e-3  # the Gaussian


def test_pi_closes_the_les_equation_as_the_les_computes_it():
    """The filtered DNS tendency of wbar equals the LES's own advection plus Pi (on the LES
    grid, for both filters): Pi is the exact closure of the discrete LES."""
    w = _random(64, seed=1)
    for kind in ("sharp", "gaussian"):
        w_les, pi = filtered_pair(w, 16, L, kind)
        torch.testing.assert_close(w_les, coarse_grain(w, 16, kind), rtol=0, atol=1e-13)
        assert w_les.shape == pi.shape == (2, 16, 16)
        assert pi.mean(dim=(-2, -1)).abs().max() < 1e-13  # a divergence has zero mean
        filtered_tendency = coarse_grain(advection(w, L), 16, kind)
        torch.testing.assert_close(advection(w_les, L) + pi, filtered_tendency, rtol=0, atol=1e-12)
        # the LES stepper's nonlinear term (no closure) is the same advection
        problem = NavierStokesProblem(resolution=16, box_size=L, viscosity=0.01)
        stepper = NavierStokesStepper(problem, device="cpu")
        les_advection = torch.fft.irfft2(stepper.nonlinear_hat(torch.fft.rfft2(w_les)), s=(16, 16))
        torch.testing.assert_close(les_advection, advection(w_les, L), rtol=0, atol=1e-12)


def test_odd_les_grids_are_refused():
    with pytest.raises(ValueError, match="n_les must be even"):
        filtered_pair(_random(32), 9, L, "sharp")


# ---- closures ---------------------------------------------------------------------------------


def test_smagorinsky_and_leith_on_a_shear_flow():
    n, amplitude, k = 32, 1.5, 3
    _, y = _grid(n)
    w = (amplitude * torch.cos(k * y))[None]  # u = -(A / k) sin(k y), v = 0; |S| = |u_y|
    delta = L / n
    smag = Smagorinsky(0.2).eddy_viscosity(w, L)
    expected = (0.2 * delta) ** 2 * amplitude * torch.cos(k * y).abs()
    torch.testing.assert_close(smag[0], expected, rtol=0, atol=1e-14)
    leith = Leith(0.3).eddy_viscosity(w, L)  # |grad w| = A k |sin(k y)|
    expected = (0.3 * delta) ** 3 * amplitude * k * torch.sin(k * y).abs()
    torch.testing.assert_close(leith[0], expected, rtol=0, atol=1e-14)


def test_eddy_viscosity_term_sign_and_enstrophy_drain():
    w = _modes(16, [(2, 1, 1.0, 0.0)])[None]
    # constant nu_e: Pi = -nu Lap w = nu |kappa|^2 w, positive where w is
    torch.testing.assert_close(eddy_viscosity_term(0.1, w, L), 0.1 * 5 * w, rtol=0, atol=1e-13)
    w = _random(32)
    for closure in (Smagorinsky(), Leith()):
        nu_e = closure.eddy_viscosity(w, L)
        grad_w, _ = resolved_gradients(w, L)
        drain = (w * closure(w, L)).mean(dim=(-2, -1))  # <w Pi> = <nu_e |grad w|^2> > 0
        expected = (nu_e * (grad_w**2).sum(0)).mean(dim=(-2, -1))
        torch.testing.assert_close(drain, expected, rtol=1e-10, atol=0)
        assert (drain > 0).all()


def test_smagorinsky_takes_a_coefficient_field():
    w = _random(32)
    scalar = Smagorinsky(0.17)(w, L)
    field = torch.full((2, 32, 32), 0.17, dtype=torch.float64)
    torch.testing.assert_close(Smagorinsky(field)(w, L), scalar, rtol=1e-14, atol=0)
    field[:, :, 16:] = 0.0  # no eddy viscosity in half the domain
    nu_e = Smagorinsky(field).eddy_viscosity(w, L)
    assert (nu_e[:, :, 16:] == 0).all() and (nu_e[:, :, :16] > 0).any()


def test_dynamic_smagorinsky_properties():
    w = _random(32, samples=3, seed=2)
    closure = DynamicSmagorinsky()
    c = closure.squared_coefficient(w, L)
    assert c.shape == (3, 1, 1) and (c >= 0).all() and (c > 0).any()
    # w -> a w, a > 0: L and M scale like a^2, so c is invariant and nu_e scales like a
    torch.testing.assert_close(closure.squared_coefficient(2.5 * w, L), c, rtol=1e-10, atol=0)
    nu_e = closure.eddy_viscosity(w, L)
    torch.testing.assert_close(closure.eddy_viscosity(2.5 * w, L), 2.5 * nu_e, rtol=1e-10, atol=0)
    # w -> -w: L (like Pi) is even in w but M is odd, so the unclipped ratio changes sign and
    # at most one of c(w), c(-w) is positive
    assert (c * closure.squared_coefficient(-w, L) == 0).all()
    # a single mode below the test cutoff has L = 0 exactly, hence c = 0
    single = _modes(32, [(3, 2, 1.0, 0.4)])[None]
    for test_filter in ("sharp", "gaussian"):
        c = DynamicSmagorinsky(test_filter).squared_coefficient(single, L)
        assert float(c.abs().max()) < 1e-12


def test_make_closure():
    assert isinstance(make_closure("smagorinsky", coefficient=0.1), Smagorinsky)
    assert isinstance(make_closure("none"), Closure)
    with pytest.raises(ValueError, match="closure must be one of"):
        make_closure("magic")


# ---- LES stepper ------------------------------------------------------------------------------


def _les_problem(**kwargs) -> NavierStokesProblem:
    defaults = {
        "viscosity": 1e-3, "drag": 0.1, "box_size": L, "resolution": 32, "time_step": 0.01,
        "t_final": 0.2, "record_interval": 0.1, "forcing_kind": "kolmogorov",
        "forcing_amplitude": 1.0, "forcing_wavenumber": 4,
    }  # fmt: skip
    return NavierStokesProblem(**{**defaults, **kwargs})


def _trajectory(stepper: NavierStokesStepper, w: torch.Tensor, steps: int) -> torch.Tensor:
    w_hat = torch.fft.rfft2(w)
    for _ in range(steps):
        stepper.step_(w_hat)
    return w_hat


@pytest.mark.parametrize("closure", [NoClosure(), lambda w, box_size: torch.zeros_like(w)])
def test_les_without_closure_is_the_plain_solver(closure):
    problem, w = _les_problem(beta=2.0), 3.0 * _random(32)
    plain = _trajectory(NavierStokesStepper(problem, device="cpu"), w, 20)
    les = _trajectory(LesStepper(problem, closure, device="cpu"), w, 20)
    assert torch.equal(les, plain)  # bit for bit (the lambda also runs the hook)


def test_les_constant_eddy_viscosity_acts_as_viscosity():
    # Pi = -nu' Lap w (explicit) against nu + nu' (implicit): the same equation, O(h^2) apart
    # w in the 2/3-rule modes: the closure acts on those only, the viscosity on all
    problem, extra = _les_problem(time_step=0.002), 0.01
    w = apply_filter(3.0 * _random(32), "sharp", 20)  # |k_x|, |k_y| < 10 < 32 / 3
    lap = lambda w, box_size: -eddy_viscosity_term(extra, w, box_size)  # noqa: E731
    les = _trajectory(LesStepper(problem, lambda w, b: -lap(w, b), device="cpu"), w, 50)
    more = dataclasses.replace(problem, viscosity=problem.viscosity + extra)
    target = _trajectory(NavierStokesStepper(more, device="cpu"), w, 50)
    bare = _trajectory(NavierStokesStepper(problem, device="cpu"), w, 50)
    gap = (les - target).abs().max() / (bare - target).abs().max()
    assert gap < 1e-3


def test_les_blowup_is_flagged_not_raised():
    problem = _les_problem(t_final=2.0, record_interval=0.1)
    anti = lambda w, box_size: eddy_viscosity_term(-0.5, w, box_size)  # noqa: E731
    run = run_les(_random(32), problem, anti, device="cpu")
    assert run.blown_up.all() and run.n_blowups == 2
    assert np.isfinite(run.blowup_time).all() and (run.blowup_time < 2.0).all()
    assert torch.isnan(run.vorticity[:, -1]).all()
    stable = run_les(_random(32), _les_problem(), Smagorinsky(), device="cpu")
    assert not stable.blown_up.any() and torch.isfinite(stable.vorticity).all()
    assert stable.vorticity.shape == (2, 3, 32, 32)


# ---- turbulence statistics --------------------------------------------------------------------


def test_spectra_parseval():
    w = _random(32, samples=3) + 0.2  # a mean vorticity counts in the enstrophy only
    z = enstrophy_spectrum(w)
    assert z.shape == (3, 24)  # shells 0 .. round(16 sqrt 2) = 23
    np.testing.assert_allclose(z.sum(-1), 0.5 * (w**2).mean(dim=(-2, -1)).numpy(), rtol=1e-12)
    for box in (L, 1.0):
        n, f64 = 32, torch.float64  # velocity from -Lap psi = w, independently of the module
        kx = torch.fft.fftfreq(n, 1.0 / n, dtype=f64)[:, None] * 2 * math.pi / box
        ky = torch.arange(n // 2 + 1, dtype=f64)[None, :] * 2 * math.pi / box
        k2 = kx**2 + ky**2
        psi_hat = torch.fft.rfft2(w) / torch.where(k2 > 0, k2, 1.0) * (k2 > 0)
        u = torch.fft.irfft2(1j * ky * psi_hat, s=(n, n))
        v = torch.fft.irfft2(-1j * kx * psi_hat, s=(n, n))
        energy = 0.5 * (u**2 + v**2).mean(dim=(-2, -1)).numpy()
        np.testing.assert_allclose(energy_spectrum(w, box).sum(-1), energy, rtol=1e-12)
    single = _modes(32, [(3, 4, 1.0, 0.0)])
    assert np.flatnonzero(enstrophy_spectrum(single) > 1e-20).tolist() == [5]


def test_spectrum_log_error():
    e = np.array([0.0, 1.0, 0.5, 0.25, 0.1])
    assert spectrum_log_error(e, e) == 0.0
    assert spectrum_log_error(2 * e, e) == pytest.approx(math.log(2))
    assert spectrum_log_error(e, 2 * e, k_min=2, k_max=3) == pytest.approx(math.log(2))
    assert math.isnan(spectrum_log_error(np.full(5, np.nan), e))


def test_tails_and_hellinger_of_gaussian_samples():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=400_000), rng.normal(size=400_000)
    assert tail_mass(a) == pytest.approx(0.0027, rel=0.1)
    assert tail_ratio(a, b) == pytest.approx(1.0, abs=0.1)
    assert tail_ratio(2.0 * a, b) > 10  # heavier tails than the reference
    edges = np.linspace(-5, 5, 41)
    assert pdf_hellinger(a, b, edges) < 0.01
    assert pdf_hellinger(2.0 * a, b, edges) > 0.2
