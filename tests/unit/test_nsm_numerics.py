"""Numerics of the Neural Spectral Methods study: the GRF law, the bases, the spectral
and grid residuals, the output transforms and the reference solvers' verification."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pderepro.solvers.common.random_fields import (
    fourier_upsample,
    periodic_kernel_eigenvalues,
    sample_periodic_kernel_grf,
)
from pderepro.solvers.elliptic.nsm_reference import poisson_solution, reaction_diffusion_reference
from pderepro.training.spectral import build_operator_network, build_operator_problem
from pderepro.training.spectral.basis import (
    chebyshev_matrix,
    chebyshev_operators,
    fourier_resample,
    lobatto_nodes,
)
from pderepro.training.spectral.poisson import (
    poisson_grid_residual,
    poisson_spectral_loss,
    poisson_spectral_residual,
)
from pderepro.training.spectral.reaction_diffusion import (
    rd_grid_residual,
    rd_spectral_loss,
    rd_spectral_residual,
)
from pderepro.verification.nsm import nsm_verification

TWO_PI = 2.0 * np.pi


def _kernel_matrix(n: int, length: float, ndim: int) -> np.ndarray:
    axes = np.meshgrid(*[np.arange(n) / n] * ndim, indexing="ij")
    x = np.stack(axes, -1).reshape(-1, ndim)  # (n^ndim, ndim)
    d = x[:, None] - x[None]
    return np.exp(-np.sum(np.sin(np.pi * d) ** 2, -1) / (2.0 * length**2))


@pytest.mark.parametrize(("n", "ndim"), [(64, 1), (16, 2)])
def test_grf_eigenvalues_are_the_dense_kernel_matrix_s(n, ndim):
    lam = periodic_kernel_eigenvalues(n, 0.2, ndim)
    dense = np.linalg.eigvalsh(_kernel_matrix(n, 0.2, ndim))
    assert np.allclose(np.sort(lam.ravel()), np.clip(dense, 0, None), atol=1e-12)


@pytest.mark.parametrize(("n", "ndim"), [(64, 1), (16, 2)])
def test_grf_empirical_spectrum_matches_eigenvalues(n, ndim):
    samples = 4000
    fields = sample_periodic_kernel_grf(
        samples, n, length=0.2, ndim=ndim, rng=np.random.default_rng(0)
    )
    axes = tuple(range(1, ndim + 1))
    power = (np.abs(np.fft.fftn(fields, axes=axes)) ** 2).mean(0) / n**ndim
    lam = periodic_kernel_eigenvalues(n, 0.2, ndim)
    big = lam > 1e-3 * lam.max()
    # |x_hat_k|^2 / N is lambda_k times a chi-square of 1 or 2 degrees over 2: relative
    # standard error at most sqrt(2 / samples) ~ 0.022; 5 sigma
    assert np.all(np.abs(power[big] / lam[big] - 1) < 5 * np.sqrt(2.0 / samples))
    # the pointwise variance is the kernel's, 1
    assert abs(fields.var(0).mean() - 1.0) < 0.03


def test_fourier_upsample_is_the_band_limited_interpolant():
    def f(x):
        return (
            0.3
            + np.sin(TWO_PI * x)
            + 0.5 * np.cos(TWO_PI * 3 * x + 0.4)
            + 0.2 * np.cos(TWO_PI * 4 * x)
        )  # Nyquist mode of 8 nodes as a cosine

    v = f(np.arange(8) / 8)[None]
    for n in (8, 16, 12, 6, 5, 4):
        assert np.allclose(fourier_upsample(v, n)[0], f(np.arange(n) / n), atol=1e-13)
        if n >= 8 or 8 % n == 0:
            out = fourier_resample(torch.as_tensor(v), n).numpy()[0]
            assert np.allclose(out, f(np.arange(n) / n), atol=1e-13)
    grid = np.multiply.outer(v[0], v[0])[None]
    x = np.arange(32) / 32
    assert np.allclose(fourier_upsample(grid, 32)[0], np.multiply.outer(f(x), f(x)), atol=1e-13)


def test_chebyshev_derivative_is_exact_on_polynomials():
    n = 12
    ops = chebyshev_operators(n, torch.float64, "cpu")
    t = lobatto_nodes(n)
    values = torch.as_tensor(1 - 3 * t + 2 * t**5 - t**11)
    derivative = ops["derivative"] @ (ops["to_coefficients"] @ values)
    t_test = np.linspace(0, 1, 17)
    at = torch.as_tensor(chebyshev_matrix(t_test, n)) @ derivative
    assert np.allclose(at.numpy(), -3 + 10 * t_test**4 - 11 * t_test**10, atol=1e-11)


def _band_limited_rd(nt: int, nx: int, t: np.ndarray):
    tt = torch.as_tensor(t)[:, None].expand(nt, nx).clone().requires_grad_(True)
    xx = (torch.arange(nx, dtype=torch.float64) / nx)[None, :].expand(nt, nx)
    xx = xx.clone().requires_grad_(True)
    # degree < nt / 2 in t, modes < nx / 4 in x: u^2 fits the basis, no aliasing
    u = (
        0.5
        + 0.2 * torch.sin(TWO_PI * xx) * (1 + tt**3 - tt**5)
        + 0.1 * torch.cos(TWO_PI * 5 * xx + 0.3) * tt**7
        + 0.05 * tt**2
    )
    u_t = torch.autograd.grad(u.sum(), tt, create_graph=True)[0]
    u_x = torch.autograd.grad(u.sum(), xx, create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x.sum(), xx)[0]
    return u.detach(), u_t.detach(), u_xx.detach()


def test_rd_spectral_residual_equals_pointwise_residual():
    nt, nx, nu, rho = 16, 32, 0.01, 5.0
    u, u_t, u_xx = _band_limited_rd(nt, nx, lobatto_nodes(nt))
    residual = u_t - nu * u_xx - rho * u * (1 - u)  # (nt, nx), autograd
    ops = chebyshev_operators(nt, torch.float64, "cpu")
    expected = torch.fft.rfft(ops["to_coefficients"] @ residual, dim=-1) / nx
    spectral = rd_spectral_residual(u[None], nu, rho)[0]
    assert (spectral - expected).abs().max() < 1e-12 * expected.abs().max()
    # Parseval in x (Chebyshev coefficients unweighted): the loss is the sum of squares
    per_node_t = (ops["to_coefficients"] @ residual).square().mean(-1).sum()
    assert torch.isclose(rd_spectral_loss(u[None], nu, rho), per_node_t, rtol=1e-12)


def test_rd_grid_residual_is_the_pointwise_residual_to_second_order():
    errors = []
    for n in (64, 128, 256):
        t = np.linspace(0, 1, n)
        u, u_t, u_xx = _band_limited_rd(n, n, t)
        exact = u_t - 0.01 * u_xx - 5.0 * u * (1 - u)
        errors.append(float((rd_grid_residual(u[None], 0.01, 5.0)[0] - exact)[1:-1].abs().max()))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2) < 0.1)


def _band_limited_poisson(n: int):
    x = torch.arange(n, dtype=torch.float64) / n
    yy, xx = torch.meshgrid(x, x, indexing="ij")
    u = torch.sin(TWO_PI * xx) * torch.cos(TWO_PI * 3 * yy) + 0.3 * torch.cos(
        TWO_PI * (7 * xx + 2 * yy)
    )
    minus_lap = TWO_PI**2 * (
        10 * torch.sin(TWO_PI * xx) * torch.cos(TWO_PI * 3 * yy)
        + 0.3 * 53 * torch.cos(TWO_PI * (7 * xx + 2 * yy))
    )
    return u, minus_lap


def test_poisson_spectral_residual_equals_pointwise_residual_and_parseval():
    n = 16
    u, minus_lap = _band_limited_poisson(n)
    s = torch.as_tensor(fourier_upsample(sample_periodic_kernel_grf(
        1, 8, length=0.2, ndim=2, rng=np.random.default_rng(1)), n))[0]  # fmt: skip
    residual = minus_lap - s
    spectral = poisson_spectral_residual(u[None], s[None])[0]
    expected = torch.fft.rfft2(residual) / n**2
    assert (spectral - expected).abs().max() < 1e-12 * expected.abs().max()
    loss = poisson_spectral_loss(u[None], s[None])
    assert torch.isclose(loss, residual.square().mean(), rtol=1e-12)  # discrete Parseval
    fine = fourier_upsample(residual.numpy(), 64)  # int r^2 (no Nyquist content)
    assert np.isclose(float(loss), np.mean(fine**2), rtol=1e-12)


def test_poisson_five_point_residual_converges_at_second_order():
    errors = []
    for n in (32, 64, 128):
        u, minus_lap = _band_limited_poisson(n)
        errors.append(float(poisson_grid_residual(u[None], minus_lap[None]).abs().max()))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2) < 0.1)


def test_poisson_solution_solves_and_fixes_the_gauge():
    s = sample_periodic_kernel_grf(2, 16, length=0.2, ndim=2, rng=np.random.default_rng(2))
    s -= s.mean(axis=(1, 2), keepdims=True)
    u = poisson_solution(s)
    assert np.allclose(u[:, 0, 0], 0)
    r = poisson_spectral_residual(torch.as_tensor(u), torch.as_tensor(s))
    assert r.abs().max() < 1e-12


def test_output_transforms_hold_gauge_and_initial_condition():
    rng = np.random.default_rng(3)
    poisson = build_operator_problem("poisson_periodic", {})
    net = build_operator_network({"width": 4, "modes": 4, "layers": 1, "projection": 8},
                                 poisson, seed=0)  # fmt: skip
    x = torch.as_tensor(poisson.sample_inputs(2, rng), dtype=torch.float32)
    for method in ({"kind": "spectral"}, {"kind": "grid", "n": 32}):
        u = poisson.predict(net, x, method, {"n": 64})
        assert u.shape == (2, 64, 64)
        assert u[:, 0, 0].abs().max() < 1e-6 * u.abs().max()  # round-off of the interpolation
    rd = build_operator_problem("reaction_diffusion", {"nu": 0.01})
    net = build_operator_network({"width": 4, "modes": 4, "layers": 1, "projection": 8},
                                 rd, seed=0)  # fmt: skip
    h = rd.sample_inputs(2, rng)
    assert np.allclose(h.min(1), 0) and np.allclose(h.max(1), 1)
    x = torch.as_tensor(h, dtype=torch.float32)
    h_test = torch.as_tensor(fourier_upsample(h, 128), dtype=torch.float32)
    for method in ({"kind": "spectral"}, {"kind": "grid", "n": 32}):
        u = rd.predict(net, x, method, {"nt": 33, "nx": 128})
        assert u.shape == (2, 33, 128)
        assert torch.allclose(u[:, 0], h_test, atol=1e-5)


def test_rd_reference_at_arbitrary_times_matches_uniform_frames():
    h = build_operator_problem("reaction_diffusion", {"nu": 0.01}).sample_inputs(
        2, np.random.default_rng(4)
    )
    t = np.array([0.0, 0.1, 0.35, 1.0])
    u = reaction_diffusion_reference(h, 0.01, 5.0, nx=128, steps=200, t=t, x_points=64)
    assert u.shape == (2, 4, 64)
    assert np.allclose(u[:, 0], fourier_upsample(h, 64))
    finer = reaction_diffusion_reference(h, 0.01, 5.0, nx=128, steps=800, t=t, x_points=64)
    assert np.abs(u - finer).max() < 1e-4


def test_nsm_verification_rows_pass():
    table = nsm_verification()
    poisson = table[table["case"].str.startswith("Poisson")]
    assert poisson["max_abs_error"].iloc[-1] < 1e-13
    strang = table[table["case"].str.contains("in dt")]  # RD's Strang and NS's AB2/CN
    assert np.all(np.abs(strang["observed_order"].dropna() - 2) < 0.1)
    rd = table["case"].str.startswith("RD")
    grid = table[rd & table["case"].str.contains("grid self-convergence")]
    assert grid["max_abs_error"].max() < 1e-9
    ns = table[table["case"].str.startswith("NS") & table["case"].str.contains("grid")]
    assert list(ns["resolution"]) == [16, 32] and ns["max_abs_error"].iloc[-1] < 1e-6
