"""Physics-informed problems: residuals against hand-derived ones on polynomials, the
registries the DAG reads from source against the imported ones, the coordinate network."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from pderepro.models.pinn_mlp import CoordinateMLP
from pderepro.studies.physics_informed import registered
from pderepro.training.pinn.problems import PROBLEMS, build_problem
from pderepro.training.pinn.samplers import SAMPLERS, WEIGHTINGS


class Polynomial(nn.Module):
    """u(x, t) = x^3 t + 2 x t^2 + x^2: derivatives by hand."""

    def forward(self, points):
        x, t = points[:, 0], points[:, 1]
        return x**3 * t + 2 * x * t**2 + x**2


def _hand_derivatives(x, t):
    u = x**3 * t + 2 * x * t**2 + x**2
    u_x = 3 * x**2 * t + 2 * t**2 + 2 * x
    u_t = x**3 + 4 * x * t
    u_xx = 6 * x * t + 2
    return u, u_x, u_t, u_xx


def _points(n=17, seed=0):
    return torch.rand(n, 2, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_convection_residual_on_a_polynomial():
    problem = build_problem("convection", {"beta": 50.0})
    points = _points().requires_grad_(True)
    residual = problem.residual(Polynomial()(points), points)
    x, t = points[:, 0].detach(), points[:, 1].detach()
    _, u_x, u_t, _ = _hand_derivatives(x, t)
    torch.testing.assert_close(residual, u_t + 50.0 * u_x, rtol=1e-12, atol=1e-12)


def test_allen_cahn_residual_on_a_polynomial():
    problem = build_problem("allen_cahn", {"diffusion": 1e-4, "reaction": 5.0})
    points = _points().requires_grad_(True)
    residual = problem.residual(Polynomial()(points), points)
    x, t = points[:, 0].detach(), points[:, 1].detach()
    u, _, u_t, u_xx = _hand_derivatives(x, t)
    torch.testing.assert_close(residual, u_t - 1e-4 * u_xx + 5.0 * (u**3 - u),
                               rtol=1e-12, atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("name", ["allen_cahn", "convection"])
def test_reference_solves_the_problem_and_starts_at_its_initial_condition(name):
    """The reference's first frame is the initial condition, and its finite-difference
    residual is small where it is smooth (the reference and the residual agree on the PDE)."""
    params = {"convection": {"beta": 5.0}, "allen_cahn": {"diffusion": 1e-2, "reaction": 5.0}}
    problem = build_problem(name, params[name])
    lo, hi = problem.domain.x
    nx, nt = 256, 2001
    x = lo + (hi - lo) * np.arange(nx) / nx
    t = np.linspace(*problem.domain.t, nt)
    u = problem.reference(x, t)
    at_t0 = torch.as_tensor(np.stack([x, np.zeros_like(x)], 1))
    u0 = problem.initial_condition(at_t0).numpy()
    np.testing.assert_allclose(u[0], u0, atol=1e-12)
    # centred differences in the interior of time, periodic in x
    dx, dt = (hi - lo) / nx, t[1] - t[0]
    u_t = (u[2:] - u[:-2]) / (2 * dt)
    mid = u[1:-1]
    u_x = (np.roll(mid, -1, 1) - np.roll(mid, 1, 1)) / (2 * dx)
    u_xx = (np.roll(mid, -1, 1) - 2 * mid + np.roll(mid, 1, 1)) / dx**2
    if name == "convection":
        residual = u_t + 5.0 * u_x
    else:
        residual = u_t - 1e-2 * u_xx + 5.0 * (mid**3 - mid)
    assert np.abs(residual[nt // 4 :]).max() < 1e-2 * np.abs(u_t).max()


def test_the_dag_reads_the_registries_the_jobs_import():
    assert registered("problems", "register_problem") == set(PROBLEMS)
    assert registered("samplers", "register_sampler") == set(SAMPLERS)
    assert registered("samplers", "register_weighting") == set(WEIGHTINGS)


def test_unknown_problem_names_the_registered_ones():
    with pytest.raises(ValueError, match="convection"):
        build_problem("burger", {})


@pytest.mark.parametrize("embedding", ["none", "fourier", "periodic"])
def test_coordinate_mlp_shapes_and_rebuild(embedding):
    bounds = [(-1.0, 1.0), (0.0, 1.0)]
    model = CoordinateMLP(bounds, width=8, depth=2, embedding=embedding,
                          features=0 if embedding == "none" else 3, seed=1)  # fmt: skip
    points = _points(5).float()
    out = model(points)
    assert out.shape == (5,)
    again = CoordinateMLP(**model.hparams())
    again.load_state_dict(model.state_dict())
    torch.testing.assert_close(again(points), out)


def test_periodic_embedding_is_exactly_periodic():
    model = CoordinateMLP([(0.0, 2 * math.pi), (0.0, 1.0)], width=8, depth=2,
                          embedding="periodic", features=4)  # fmt: skip
    t = torch.linspace(0, 1, 7, dtype=torch.float32)
    left = model(torch.stack([torch.zeros_like(t), t], 1))
    right = model(torch.stack([torch.full_like(t, 2 * math.pi), t], 1))
    torch.testing.assert_close(left, right, atol=1e-5, rtol=0)
