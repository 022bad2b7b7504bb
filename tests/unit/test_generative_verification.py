"""Verification of the numerics of issue 49 against exact answers: the Darcy residual's
order on a manufactured solution, flow matching on a Gaussian problem whose velocity is
known in closed form, the samplers on linear flows, and the per-sample field statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from pderepro.evaluation.generative_structure import (
    sample_statistics,
    spectrum_shells,
    statistics_distance,
)
from pderepro.training.flow_matching import (
    ChannelNormaliser,
    darcy_boundary,
    darcy_residual,
    sample,
    train_flow_matching,
)

#: Target of the 1-D Gaussian problem: x0 ~ N(0, 1) is carried to x1 ~ N(M, S^2).
M, S = 2.0, 0.5


#: One torch thread (tests/conftest.py): these tensors are tiny, and the machine may be shared.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# --- the Darcy residual on a manufactured solution ------------------------------------------


def _manufactured(s: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``K = 1 + sin(pi x) sin(pi y) / 2``, ``p = sin(pi x) sin(pi y)`` on the ``s x s`` vertex
    grid and the exact ``f = -div(K grad p) = -grad K . grad p - K lap p``, where
    ``grad K . grad p = pi^2 (cos^2(pi x) sin^2(pi y) + sin^2(pi x) cos^2(pi y)) / 2`` and
    ``lap p = -2 pi^2 p``."""
    grid = torch.linspace(0.0, 1.0, s, dtype=torch.float64)
    x, y = torch.meshgrid(grid, grid, indexing="ij")  # axis -2 is x, as in the solver
    sx, sy = torch.sin(math.pi * x), torch.sin(math.pi * y)
    cx, cy = torch.cos(math.pi * x), torch.cos(math.pi * y)
    k, p = 1.0 + 0.5 * sx * sy, sx * sy
    grad_dot = 0.5 * math.pi**2 * (cx**2 * sy**2 + sx**2 * cy**2)
    return k, p, -grad_dot + 2.0 * math.pi**2 * k * p


@pytest.mark.parametrize("face_mean", ["harmonic", "arithmetic"])
def test_darcy_residual_is_second_order_on_a_manufactured_solution(face_mean):
    errors = []
    for s in (17, 33, 65):
        k, p, f = _manufactured(s)
        # with forcing 0 the residual is the scheme's -div(K grad p) itself
        operator = darcy_residual(k, p, 1.0 / (s - 1), forcing=0.0, face_mean=face_mean)
        errors.append((operator - f[1:-1, 1:-1]).abs().max().item())
        assert darcy_boundary(p).abs().max() < 1e-15  # p honours p = 0 on the boundary
    ratios = [errors[i] / errors[i + 1] for i in range(2)]
    # second order: the error falls 4-fold per halving of h (measured 3.99 and 4.00)
    assert all(3.8 < r < 4.2 for r in ratios), (errors, ratios)
    # and it is small against |f| (max 29.6): 0.19 at s = 17
    assert errors[0] < 0.01 * f.abs().max().item()


# --- flow matching on a Gaussian-to-Gaussian problem ----------------------------------------


def _gaussian_velocity(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """Marginal velocity ``E[x1 - x0 | x_t = x]`` of the OT path with ``sigma_min = 0``.

    ``x_t = (1 - t) x0 + t x1`` is ``N(t M, D)``, ``D = (1 - t)^2 + t^2 S^2``, and
    ``Cov(x1 - x0, x_t) = t S^2 - (1 - t)``, so the Gaussian conditional mean is
    ``M + (x - t M) (t S^2 - (1 - t)) / D``: linear in ``x``.
    """
    d = (1.0 - t) ** 2 + t**2 * S**2
    return M + (x - t * M) * (t * S**2 - (1.0 - t)) / d


def _fm_loss_floor() -> float:
    """Least FM loss, ``E_t Var(x1 - x0 | x_t)`` with ``t ~ U[0, 1]``: ``Var(x1 - x0) =
    1 + S^2`` less ``Cov^2 / D`` (Gaussian conditioning), by the midpoint rule."""
    t = (np.arange(20000) + 0.5) / 20000
    d = (1.0 - t) ** 2 + t**2 * S**2
    return float(np.mean(1.0 + S**2 - (t * S**2 - (1.0 - t)) ** 2 / d))


class _AffineInX(torch.nn.Module):
    """``v(x, t) = a(t) x + b(t)`` with ``(a, b)`` a small MLP of ``t``: a family that holds
    the exact velocity, so what FM learns is limited only by its noise and optimisation."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(1, width), torch.nn.Tanh(),
            torch.nn.Linear(width, width), torch.nn.Tanh(),
            torch.nn.Linear(width, 2),
        )  # fmt: skip

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        ab = self.net(t[:, None])  # (B, 2)
        return ab[:, 0, None, None, None] * x + ab[:, 1, None, None, None]  # (B, 1, 1, 1)


def test_fm_recovers_the_closed_form_velocity_of_a_gaussian_problem():
    torch.manual_seed(0)
    model = _AffineInX()
    data = M + S * torch.randn(20000, 1, 1, 1, generator=torch.Generator().manual_seed(1))
    identity = ChannelNormaliser((0.0,), (1.0,))  # the data are their own normalised units
    common = dict(
        method={"kind": "fm"}, sigma_min=0.0, batch_size=256, normaliser=identity,
        log_every=500,
    )  # fmt: skip
    train_flow_matching(model, data, iterations=1000, learning_rate=1e-2, seed=0, **common)
    run = train_flow_matching(model, data, iterations=1000, learning_rate=1e-3, seed=1, **common)

    # the loss of the last 500 steps sits on the least possible loss (0.7854; measured
    # 0.7855): its noise over 500 x 256 draws is ~0.4%, and a velocity error e adds e^2
    floor = _fm_loss_floor()
    assert abs(run.history[-1]["fm_loss"] - floor) < 0.015 * floor, (run.history, floor)

    t = torch.tensor([0.1, 0.3, 0.5, 0.7, 0.9]).repeat_interleave(3)  # (15,)
    spread = ((1.0 - t) ** 2 + t**2 * S**2).sqrt()  # std of x_t
    x = t * M + torch.tensor([-1.0, 0.0, 1.0]).repeat(5) * spread  # x_t's mean and +-1 std
    with torch.no_grad():
        learned = model(x[:, None, None, None], t).flatten()
    exact = _gaussian_velocity(x, t)  # between 1.03 and 2.97 here, so relative errors are fair
    # 10%: the FM loss is a Monte-Carlo estimate whose conditional target noise (variance
    # ~0.8) leaves the fitted velocity a few % off after 2000 Adam steps (measured 5.0-5.6%
    # over four initialisations, the worst at t = 0.5)
    relative = ((learned - exact) / exact).abs()
    assert relative.max() < 0.10, (learned, exact)
    # and the check discriminates: the constant velocity M (right on average) fails it
    assert ((M - exact) / exact).abs().max() > 0.10


# --- the samplers on linear flows -----------------------------------------------------------

#: ``v(x, t) = (A + B t) x`` per channel, whose flow from t = 0 to 1 is ``exp(A + B / 2)``.
A, B = torch.tensor([-1.0, 0.5]), torch.tensor([0.6, -0.8])


class _Linear(torch.nn.Module):
    """The fixed linear velocity ``(A + B t) x`` on ``(n, 2, H, W)``; no parameters."""

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return (A[None, :] + B[None, :] * t[:, None])[:, :, None, None] * x


class _Gaussian(torch.nn.Module):
    """The exact marginal velocity of the 1-D Gaussian problem, on ``(n, 1, 1, 1)``."""

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return _gaussian_velocity(x, t[:, None, None, None])


def _first_noise(n: int, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """The ``x0`` that :func:`sample` draws first from ``Generator(seed)`` (float32, CPU for
    a model without parameters)."""
    return torch.randn((n, *shape), generator=torch.Generator().manual_seed(seed))


def test_euler_sampler_is_first_order_on_a_linear_flow():
    shape, seed = (2, 3, 3), 4
    x0 = _first_noise(64, shape, seed)
    exact = torch.exp(A + B / 2)[None, :, None, None] * x0  # (64, 2, 3, 3)
    errors = []
    for steps in (8, 16, 32, 64):
        x1 = sample(_Linear(), 64, shape, steps, 0.0, torch.Generator().manual_seed(seed))
        errors.append((x1 - exact).abs().max().item())
    ratios = [errors[i] / errors[i + 1] for i in range(3)]
    # order 1: the error halves when the steps double (float32 round-off is ~1e-6 of it)
    assert all(1.8 < r < 2.2 for r in ratios), (errors, ratios)


def test_stochastic_sampler_reduces_to_euler():
    shape, seed, steps = (2, 3, 3), 5, 10
    x = _first_noise(16, shape, seed)
    times = torch.linspace(0.0, 1.0, steps + 1, dtype=torch.float64).tolist()
    for t, t_next in zip(times[:-1], times[1:], strict=True):
        x = x + (t_next - t) * _Linear()(x, torch.full((16,), t))  # the Euler method, by hand
    euler = sample(_Linear(), 16, shape, steps, 0.1, torch.Generator().manual_seed(seed), 0.0)
    assert torch.equal(euler, x)  # stochastic = 0 is Euler bit for bit
    # the predict-and-re-noise formulas themselves reduce to the Euler step as eta -> 0
    # (fresh noise enters with weight sqrt(eta) = 1e-6; round-off of float32 adds ~1e-6)
    for sigma_min in (0.0, 0.1):
        generator = torch.Generator().manual_seed(seed)
        near = sample(_Linear(), 16, shape, steps, sigma_min, generator, stochastic=1e-12)
        assert (near - x).abs().max() < 1e-4


def _stochastic_moments(steps: int, eta: float) -> tuple[float, float]:
    """Exact mean and variance of the stochastic sampler's output on the 1-D Gaussian problem
    with the exact velocity and ``sigma_min = 0``: every step of the documented scheme is
    affine in ``x`` plus independent noise, ``x' = g x + c + (1 - t') sqrt(eta) z``."""
    mean, var = 0.0, 1.0
    times = np.linspace(0.0, 1.0, steps + 1)
    for t, t_next in zip(times[:-1], times[1:], strict=True):
        gain = t * S**2 / ((1.0 - t) ** 2 + t**2 * S**2)  # x1_hat = M + gain (x - t M)
        shift = M - t * M * gain
        # x0_impl = (x - t x1_hat) / (1 - t); x' = (1 - t') sqrt(1 - eta) x0_impl + t' x1_hat
        g = (1.0 - t_next) * math.sqrt(1.0 - eta) * (1.0 - t * gain) / (1.0 - t) + t_next * gain
        c = -(1.0 - t_next) * math.sqrt(1.0 - eta) * t * shift / (1.0 - t) + t_next * shift
        mean, var = g * mean + c, g**2 * var + (1.0 - t_next) ** 2 * eta
    return mean, var


@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0])
def test_samplers_on_a_gaussian_target_match_their_exact_moments(eta):
    n, steps = 4000, 32
    x = sample(_Gaussian(), n, (1, 1, 1), steps, 0.0, torch.Generator().manual_seed(6), eta)
    mean, var = _stochastic_moments(steps, eta)
    x = x.double().flatten()
    # Monte-Carlo error on 4000 samples: 4 standard errors of the mean and of the variance
    assert abs(x.mean().item() - mean) < 4.0 * math.sqrt(var / n)
    assert abs(x.var().item() - var) < 4.0 * var * math.sqrt(2.0 / (n - 1))
    # the mean is the target's for every eta: the scheme is unbiased in the mean
    assert mean == pytest.approx(M, abs=1e-9)


@pytest.mark.xfail(
    strict=True,
    reason="the stochastic sampler (eta > 0) under-disperses: with the exact velocity of "
    "N(2, 0.25) its output variance tends to about 0.125 (eta = 1) and 0.213 (eta = 0.5) as the "
    "steps grow (0.124 and 0.212 at 1024 steps), not 0.25, while Euler's is 0.249",
)
@pytest.mark.parametrize("eta", [0.5, 1.0])
def test_stochastic_sampler_reaches_the_target_variance_with_many_steps(eta):
    _, euler_var = _stochastic_moments(1024, 0.0)
    assert euler_var == pytest.approx(S**2, rel=0.01)  # the deterministic flow gets there
    assert _stochastic_moments(1024, eta)[1] == pytest.approx(S**2, rel=0.05)


# --- per-sample statistics ------------------------------------------------------------------


def _random_fields(n: int, seed: int, s: int = 17) -> np.ndarray:
    """``(n, 2, s, s)`` smooth random fields: a log-normal ``K`` and a pressure-like ``p``
    (white noise with a power-law spectral filter)."""
    rng = np.random.default_rng(seed)
    k2 = np.fft.fftfreq(s, 1.0 / s)[:, None] ** 2 + np.fft.fftfreq(s, 1.0 / s)[None, :] ** 2
    noise = np.fft.fft2(rng.standard_normal((n, 2, s, s)))
    g = np.fft.ifft2(noise / (1.0 + k2) ** 1.0).real * 4.0  # (n, 2, s, s)
    return np.stack([np.exp(g[:, 0]), g[:, 1] + 0.5], axis=1)


def _shell_counts(h: int, w: int, bins: int) -> np.ndarray:
    radius = np.hypot(np.fft.fftfreq(h, 1.0 / h)[:, None], np.fft.fftfreq(w, 1.0 / w)[None, :])
    return np.array([((radius >= lo) & (radius < hi)).sum() for lo, hi in spectrum_shells(bins)])


def test_sample_statistics_of_constant_and_sinusoidal_fields():
    h = w = 32
    i, j = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    constant = np.full((h, w), 1.5)
    wave = 1.0 + 2.0 * np.cos(2 * np.pi * 3 * i / h)  # |k| = 3: shell [2, 4)
    oblique = -0.5 + 2.0 * np.sin(2 * np.pi * (3 * i + 4 * j) / h)  # |k| = 5: shell [4, 8)
    stats = sample_statistics(np.stack([constant, wave, oblique])[:, None], channels=("u",))
    # discrete orthogonality over whole periods: the means and variances are exact
    np.testing.assert_allclose(stats["mean_u"], [1.5, 1.0, -0.5], rtol=0, atol=1e-14)
    np.testing.assert_allclose(stats["var_u"], [0.0, 2.0, 2.0], rtol=1e-13, atol=0)
    counts = _shell_counts(h, w, 4)
    # all of a wave's variance 2 lies in its shell, whose mean power is 2 / (modes in it)
    assert stats["spectrum1_u"][1] == pytest.approx(np.log10(2.0 / counts[1]), abs=1e-12)
    assert stats["spectrum2_u"][2] == pytest.approx(np.log10(2.0 / counts[2]), abs=1e-12)
    others = [stats[f"spectrum{b}_u"][1] for b in (0, 2, 3)]
    others += [stats[f"spectrum{b}_u"][2] for b in (0, 1, 3)]
    assert max(others) < -20 and stats["spectrum0_u"][0] < -20  # round-off or the floor


def test_spectrum_shells_hold_the_whole_variance():
    x = _random_fields(8, seed=0, s=33)
    stats = sample_statistics(x)
    counts = _shell_counts(33, 33, 4)
    for c in ("K", "p"):
        total = sum(counts[b] * 10 ** stats[f"spectrum{b}_{c}"] for b in range(4))
        np.testing.assert_allclose(total, stats[f"var_{c}"], rtol=1e-12)  # Parseval
    with pytest.raises(ValueError, match="no mode"):
        sample_statistics(x[..., :9, :9])  # a 9 x 9 grid has no |k| >= 8


def test_statistics_distance_is_small_for_one_distribution_and_sees_a_mean_shift():
    a, b = _random_fields(600, seed=1), _random_fields(600, seed=2)
    same = statistics_distance(a, b)
    assert len(same) == 2 * (2 + 4) + 1
    # two draws of 600 from one distribution: each W1 is ~n^(-1/2) of the spread (measured
    # mean 0.071, largest 0.123, over the 12 statistics)
    assert same["statistics_w1"] < 0.1 and max(same.values()) < 0.2, same
    scale = sample_statistics(b)["mean_K"].std(ddof=1)
    previous = same["w1_mean_K"]
    for shift in (0.5, 1.0, 2.0):
        moved = a.copy()
        moved[:, 0] += shift * scale
        out = statistics_distance(moved, b)
        # a shift by d reference stds moves the mean's W1 by about d, and it grows with d
        assert out["w1_mean_K"] == pytest.approx(shift, abs=0.1)
        assert out["w1_mean_K"] > previous
        previous = out["w1_mean_K"]
        # a constant shift leaves the variance and the (mean-removed) spectrum alone
        for name in ("var_K", *(f"spectrum{q}_K" for q in range(4))):
            assert out[f"w1_{name}"] == pytest.approx(same[f"w1_{name}"], abs=1e-9)
        assert out["statistics_w1"] > same["statistics_w1"]
