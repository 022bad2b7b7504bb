"""Flow matching and PBFM numerics: the OT path, final estimates, samplers, the time U-Net,
the Darcy residual against the solver, ConFIG, and the training loop (issue 49)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pderepro.models.unet_time import TimeUNet
from pderepro.solvers.elliptic.darcy import DarcyProblem, darcy_operator, generate_darcy_samples
from pderepro.training.flow_matching import (
    ChannelNormaliser,
    clean_estimate,
    conditional_path,
    conflict_free_gradient,
    darcy_boundary,
    darcy_residual,
    darcy_residual_loss,
    final_estimate,
    sample,
    train_flow_matching,
)

SIGMA = 0.05


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    """One torch thread: small tensors gain nothing from two, and on a shared machine an
    oversubscribed thread pool can make these tests a hundred times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _pair(shape=(3, 2, 5, 4), seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) for _ in range(2))


def test_path_endpoints_and_target():
    x0, x1 = _pair()
    ones = torch.ones(3, dtype=torch.float64)
    x_start, u = conditional_path(x0, x1, 0 * ones, SIGMA)
    x_end, _ = conditional_path(x0, x1, ones, SIGMA)
    torch.testing.assert_close(x_start, x0, rtol=0, atol=0)
    torch.testing.assert_close(x_end, x1 + SIGMA * x0, rtol=0, atol=1e-15)
    torch.testing.assert_close(u, x1 - (1 - SIGMA) * x0, rtol=0, atol=0)
    # u is d x_t / dt, per sample at different times (the path is linear in t)
    t = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    x_a, _ = conditional_path(x0, x1, t, SIGMA)
    x_b, _ = conditional_path(x0, x1, t + 1e-3, SIGMA)
    torch.testing.assert_close((x_b - x_a) / 1e-3, u, rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="sigma_min"):
        conditional_path(x0, x1, t, 1.0)


def test_final_estimate_of_exact_velocity_is_the_noisy_endpoint():
    x0, x1 = _pair()
    t = torch.tensor([0.0, 0.3, 0.8], dtype=torch.float64)
    x_t, u = conditional_path(x0, x1, t, SIGMA)

    def exact(x, tt):  # the conditional velocity is constant along the path
        return u

    torch.testing.assert_close(final_estimate(exact, x_t, t, SIGMA), x1 + SIGMA * x0)
    torch.testing.assert_close(final_estimate(exact, x_t, t, SIGMA, unroll=4), x1 + SIGMA * x0)
    # the clean estimate removes the sigma_min noise
    torch.testing.assert_close(clean_estimate(x_t, u, t, SIGMA), x1)


def test_unroll_takes_equal_euler_steps_and_keeps_the_graph():
    x, _ = _pair()
    t = torch.tensor([0.0, 0.5, 0.75], dtype=torch.float64)
    rate = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)

    def decay(y, tt):  # v = -rate * y, so k Euler steps multiply by (1 - rate dt)^k
        assert tt.shape == (3,)
        return -rate * y

    for k in (1, 3):
        got = final_estimate(decay, x, t, SIGMA, unroll=k)
        factor = (1 - rate * (1 - t) / k) ** k  # (3,)
        torch.testing.assert_close(got, factor[:, None, None, None] * x)
    (grad,) = torch.autograd.grad(got.sum(), rate)
    assert grad.abs() > 0
    with pytest.raises(ValueError, match="unroll"):
        final_estimate(decay, x, t, SIGMA, unroll=0)


def test_point_mass_samplers_land_on_the_data():
    c = 1.5  # data: a point mass at c, whose marginal velocity is known in closed form

    def velocity(sigma):
        a = 1 - sigma
        return lambda x, t: (
            c - a * (x - t[:, None, None, None] * c) / (1 - a * t[:, None, None, None])
        )

    for eta in (0.0, 0.5, 1.0):
        g = torch.Generator().manual_seed(3)
        out = sample(velocity(0.0), 4, (1, 3, 3), 5, 0.0, g, stochastic=eta)
        torch.testing.assert_close(out, torch.full_like(out, c), rtol=0, atol=1e-5)
        # with sigma_min the end of the path is c + sigma_min * noise
        g = torch.Generator().manual_seed(3)
        out = sample(velocity(0.1), 2000, (1, 2, 2), 8, 0.1, g, stochastic=eta)
        assert abs(out.mean().item() - c) < 0.01
        assert abs(out.std().item() / 0.1 - 1) < 0.05


def test_stochastic_sampler_tends_to_euler_and_is_seeded():
    model = TimeUNet(channels=2, width=4, levels=1, time_features=8, seed=0)
    draw = lambda eta, s: sample(model, 3, (2, 5, 5), 4, 0.2, torch.Generator().manual_seed(s), eta)  # noqa: E731
    euler = draw(0.0, 1)
    torch.testing.assert_close(draw(1e-12, 1), euler, rtol=0, atol=1e-4)
    torch.testing.assert_close(draw(0.5, 1), draw(0.5, 1), rtol=0, atol=0)
    assert (draw(0.5, 1) - euler).abs().max() > 1e-2
    assert (draw(0.0, 2) - euler).abs().max() > 1e-2


def test_time_unet_shapes_seeding_and_hparams():
    model = TimeUNet(channels=2, width=8, levels=2, time_features=16, seed=7)
    x = torch.randn(3, 2, 33, 33, generator=torch.Generator().manual_seed(0))
    t = torch.tensor([0.0, 0.5, 1.0])
    out = model(x, t)
    assert out.shape == (3, 2, 33, 33)
    assert model(x[:, :, :9, :13], t).shape == (3, 2, 9, 13)
    twin = type(model)(**model.hparams())
    assert model.hparams() == {
        "channels": 2, "width": 8, "levels": 2, "time_features": 16, "seed": 7,
    }  # fmt: skip
    torch.testing.assert_close(twin(x, t), out, rtol=0, atol=0)
    other = TimeUNet(channels=2, width=8, levels=2, time_features=16, seed=8)
    assert (other(x, t) - out).abs().max() > 1e-3
    # the time embedding reaches the output
    assert (model(x, torch.full((3,), 0.25)) - model(x, torch.full((3,), 0.75))).abs().max() > 1e-4
    # samples do not interact (GroupNorm normalises each sample on its own)
    torch.testing.assert_close(model(x[:1], t[:1]), out[:1], rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def darcy_samples():
    problem = DarcyProblem(resolution=17)
    a, u = generate_darcy_samples(2, problem, seed=0)
    return problem, torch.from_numpy(a), torch.from_numpy(u)


def test_darcy_residual_vanishes_on_solver_samples(darcy_samples):
    problem, k, p = darcy_samples
    r = darcy_residual(k, p, problem.h, problem.forcing)
    assert r.shape == (2, 15, 15)
    assert r.abs().max() < 1e-8 * abs(problem.forcing)
    assert darcy_residual_loss(k, p, problem.h, problem.forcing).max() < 1e-16
    # a small bump in the pressure of sample 1 is detected at and around its vertex only
    bumped = p.clone()
    bumped[1, 8, 8] += 1e-3 * p.abs().max()
    r = darcy_residual(k, bumped, problem.h, problem.forcing)
    assert r[0].abs().max() < 1e-8 and r[1, 7, 7].abs() > 1e-2
    loss = darcy_residual_loss(k, bumped, problem.h, problem.forcing)
    assert loss[1] > 1e6 * loss[0]
    # a wrong forcing is not a solution either
    assert darcy_residual(k, p, problem.h, 2 * problem.forcing).abs().min() > 0.99


@pytest.mark.parametrize("face_mean", ["harmonic", "arithmetic"])
def test_darcy_residual_is_the_solver_matrix(face_mean):
    rng = np.random.default_rng(1)
    s, h = 8, 1 / 7
    k = rng.uniform(1.0, 5.0, (s, s))
    p = np.zeros((s, s))
    p[1:-1, 1:-1] = rng.standard_normal((s - 2, s - 2))
    expected = darcy_operator(k, h, face_mean) @ p[1:-1, 1:-1].ravel() - 0.5
    got = darcy_residual(torch.from_numpy(k), torch.from_numpy(p), h, 0.5, face_mean)
    np.testing.assert_allclose(got.numpy().ravel(), expected, rtol=1e-12, atol=1e-12)


def test_darcy_boundary_term(darcy_samples):
    problem, k, p = darcy_samples
    assert darcy_boundary(p).shape == (2, 64) and darcy_boundary(p).abs().max() == 0
    shifted = p + 0.1
    # a constant shift leaves the interior residual unchanged; only the boundary term sees it
    torch.testing.assert_close(
        darcy_residual(k, shifted, problem.h), darcy_residual(k, p, problem.h), atol=1e-9, rtol=0
    )
    loss = darcy_residual_loss(k, shifted, problem.h, boundary_weight=2.0)
    torch.testing.assert_close(loss, torch.full((2,), 2 * 0.01, dtype=torch.float64))
    assert darcy_residual_loss(k, shifted, problem.h, boundary_weight=0.0).max() < 1e-16


def test_config_update_conflicts_with_neither_gradient():
    model = torch.nn.Linear(3, 1, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.2, -0.1, 0.4]]))
    a = torch.tensor([[1.0, 0.0, 0.5]], dtype=torch.float64)
    b = torch.tensor([[-1.0, 0.3, 0.0]], dtype=torch.float64)
    y = model(torch.cat([a, b]))  # (2, 1), one forward shared by both losses
    losses = [(y[0, 0] - 1.0).square(), 10 * (y[1, 0] - 1.0).square()]
    grads = conflict_free_gradient(model, losses)  # (2, 3)
    combined = model.weight.grad.reshape(-1)
    assert grads[0] @ grads[1] < 0  # they conflict, and the plain sum ignores the small one
    assert (grads[0] + grads[1]) @ grads[0] < 0
    assert combined @ grads[0] > 0 and combined @ grads[1] > 0
    cos = [combined @ g / combined.norm() / g.norm() for g in grads]
    torch.testing.assert_close(cos[0], cos[1])  # ConFIG's equal angles
    # a loss with zero gradient leaves the other's gradient as it is
    y = model(a)
    grads = conflict_free_gradient(model, [(y[0, 0] - 1.0).square(), 0 * y.sum()])
    assert grads[1].abs().max() == 0
    torch.testing.assert_close(model.weight.grad.reshape(-1), grads[0])


def _toy():
    """16 samples of 2 x 9 x 9 with the exact constraint ch1 = 2 ch0 + 1 (physical)."""
    g = torch.Generator().manual_seed(0)
    xs = torch.linspace(0, 1, 9)
    base = torch.sin(torch.pi * xs)[:, None] * torch.sin(torch.pi * xs)[None, :]  # (9, 9)
    ch0 = (torch.rand(16, 1, 1, 1, generator=g) + 0.5) * base
    ch0 = ch0 + 0.1 * torch.randn(16, 1, 9, 9, generator=g)
    phys = torch.cat([ch0, 2 * ch0 + 1], dim=1)  # (16, 2, 9, 9)
    norm = ChannelNormaliser.fit(phys)
    return norm.normalise(phys).float(), norm


def _toy_residual(x):
    return (x[:, 1] - 2 * x[:, 0] - 1).square().mean(dim=(-2, -1))  # (B,)


METHODS = {
    "fm": {"kind": "fm"},
    "weighted": {"kind": "weighted", "weight": 1.0},
    "pbfm": {"kind": "pbfm"},
    "pbfm2": {"kind": "pbfm", "unroll": 2},
}


def _train(name):
    data, norm = _toy()
    model = TimeUNet(channels=2, width=8, levels=1, time_features=16, seed=0)
    run = train_flow_matching(
        model, data, method=METHODS[name], sigma_min=1e-3, iterations=30, batch_size=8,
        learning_rate=1e-2, seed=1, residual=_toy_residual, normaliser=norm, log_every=10,
    )  # fmt: skip
    return run, model


@pytest.fixture(scope="module")
def runs():
    return {name: _train(name) for name in METHODS}


@pytest.mark.parametrize("name", list(METHODS))
def test_training_lowers_fm_loss_and_is_reproducible(runs, name):
    run, model = runs[name]
    assert [row["iteration"] for row in run.history] == [10, 20, 30]
    assert run.history[-1]["fm_loss"] < 0.8 * run.history[0]["fm_loss"]
    assert run.seconds_per_iteration > 0 and run.method["kind"] == METHODS[name]["kind"]
    again, twin = _train(name)
    strip = lambda h: [{k: v for k, v in row.items() if k != "wall_s"} for row in h]  # noqa: E731
    assert strip(again.history) == strip(run.history)
    for p, q in zip(model.parameters(), twin.parameters(), strict=True):
        assert torch.equal(p, q)


def test_physics_losses_lower_the_residual(runs):
    final = {name: run.history[-1]["residual_loss"] for name, (run, _) in runs.items()}
    assert final["pbfm"] < 0.5 * final["fm"]
    assert final["pbfm2"] < 0.5 * final["fm"]
    assert final["weighted"] < final["fm"]
    # the training seed changes the draws
    data, norm = _toy()
    other = train_flow_matching(
        TimeUNet(channels=2, width=8, levels=1, time_features=16, seed=0), data,
        method={"kind": "fm"}, sigma_min=1e-3, iterations=10, batch_size=8, learning_rate=1e-2,
        seed=2, residual=None, normaliser=norm, log_every=10,
    )  # fmt: skip
    assert other.history[0]["fm_loss"] != runs["fm"][0].history[0]["fm_loss"]
    assert np.isnan(other.history[0]["residual_loss"])


def test_normaliser_and_method_checks():
    data, norm = _toy()
    back = ChannelNormaliser.from_dict(norm.to_dict())
    assert back == norm
    torch.testing.assert_close(norm.normalise(norm.denormalise(data)), data)
    assert data.mean(dim=(0, 2, 3)).abs().max() < 1e-5
    torch.testing.assert_close(data.std(dim=(0, 2, 3), correction=0), torch.ones(2))
    kwargs = dict(
        sigma_min=1e-3, iterations=1, batch_size=4, learning_rate=1e-3, seed=0,
        normaliser=norm, log_every=1,
    )  # fmt: skip
    model = TimeUNet(channels=2, width=4, levels=1, time_features=8, seed=0)
    with pytest.raises(ValueError, match="needs a residual"):
        train_flow_matching(model, data, method={"kind": "pbfm"}, **kwargs)
    with pytest.raises(ValueError, match="kind"):
        train_flow_matching(model, data, method={"kind": "sgd"}, **kwargs)
    with pytest.raises(ValueError, match="weight"):
        train_flow_matching(
            model, data, method={"kind": "weighted"}, residual=_toy_residual, **kwargs
        )
