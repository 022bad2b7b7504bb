"""The physics-informed kind beyond (x, t) with periodic ends: steady boxes, Dirichlet faces,
trial functions, trained eigenvalues (Schrodinger), second order in time (Klein-Gordon),
and the Physics-Informed Gaussians network."""

import math

import numpy as np
import pytest
import torch

from pderepro.models.pinn_gaussian import GaussianFeatureNet, build_coordinate_network
from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.loop import Budget, LossSetup, PinnField, Reference, train_pinn
from pderepro.training.pinn.problems import build_problem
from pderepro.training.pinn.samplers import build_sampler, build_weighting


def _points(n, bounds, seed=0):
    generator = torch.Generator().manual_seed(seed)
    lower = torch.tensor([b[0] for b in bounds], dtype=torch.float64)
    span = torch.tensor([b[1] - b[0] for b in bounds], dtype=torch.float64)
    return (lower + span * torch.rand(n, len(bounds), generator=generator, dtype=torch.float64)
            ).requires_grad_(True)  # fmt: skip


def test_helmholtz_residual_vanishes_on_its_exact_solution():
    problem = build_problem("helmholtz", {"a_x": 1, "a_y": 4, "k": 1})
    points = _points(200, problem.domain.bounds)
    u = torch.sin(math.pi * points[:, 0]) * torch.sin(4 * math.pi * points[:, 1])
    assert problem.residual(u, points).abs().max() < 1e-10
    x, y = problem.domain.grid({"nx": 5, "ny": 3})
    assert problem.reference(x, y).shape == (3, 5)


def test_klein_gordon_residual_conditions_and_faces():
    problem = build_problem("klein_gordon", {"k": 2})
    points = _points(200, problem.domain.bounds)
    x, y, t = points.unbind(1)
    u = (x + y) * torch.cos(2 * t) + x * y * torch.sin(2 * t)
    assert problem.residual(u, points).abs().max() < 1e-9
    faces = problem.domain.boundary_points(64, seed=1, dtype=torch.float64)
    assert faces.shape == (64, 3)
    on_face = (faces[:, :2].abs() == 1).sum(1)
    assert (on_face >= 1).all()  # every point on a side of the square, at any time
    assert torch.allclose(problem.boundary_value(faces),
                          problem.exact(*faces.unbind(1), torch.cos, torch.sin))  # fmt: skip
    initial = problem.domain.initial_points(16, seed=2, dtype=torch.float64)
    assert (initial[:, 2] == 0).all()
    assert torch.equal(problem.initial_condition(initial), initial[:, 0] + initial[:, 1])
    axes = problem.domain.grid({"nx": 4, "ny": 3, "nt": 5})
    assert problem.reference(*axes).shape == (5, 3, 4)


@pytest.mark.parametrize("name", ["infinite_well", "finite_well", "barrier"])
def test_schrodinger_trial_functions_vanish_at_the_walls(name):
    problem = build_problem(name, {} if name == "infinite_well" else {"initial_energy": 5.0})
    lo, hi = problem.domain.x
    walls = torch.tensor([[lo], [hi]], dtype=torch.float64)
    assert torch.equal(problem.trial(torch.tensor([3.0, -7.0], dtype=torch.float64), walls),
                       torch.zeros(2, dtype=torch.float64))  # fmt: skip
    assert bool(problem.trainable()) == (name != "infinite_well")


def test_infinite_well_exact_state_has_no_residual_and_unit_norm():
    problem = build_problem("infinite_well", {})
    points = _points(100, problem.domain.bounds)
    psi = math.sqrt(2) * torch.sin(math.pi * points[:, 0])
    assert problem.residual(psi, points).abs().max() < 1e-5  # E = pi^2 in float32

    def exact(p):
        return math.sqrt(2) * torch.sin(math.pi * p[:, 0])

    assert float(problem.norm(exact, torch.float64)) == pytest.approx(1.0, abs=1e-6)
    x = np.linspace(0, 1, 101)
    ref = problem.reference(x)
    assert np.max(np.abs(ref - math.sqrt(2) * np.sin(math.pi * x))) < 1e-6
    assert problem.error(-ref, ref) == 0.0 and np.array_equal(problem.aligned(-ref, ref), ref)
    assert problem.reference_quantity() == pytest.approx(math.pi**2, rel=1e-8)


def test_gaussian_features_gradients_reach_means_and_covariances():
    net = GaussianFeatureNet([(-1.0, 1.0), (-1.0, 1.0)], gaussians=16, sigma0=0.3, seed=0)
    points = _points(50, net.bounds).float().detach().requires_grad_(True)
    u = net(points)
    assert u.shape == (50,)
    # a second derivative, as a residual needs, then a loss's gradient
    u_x = torch.autograd.grad(u.sum(), points, create_graph=True)[0][:, 0]
    u_xx = torch.autograd.grad(u_x.sum(), points, create_graph=True)[0][:, 0]
    (u_xx**2).mean().backward()
    assert net.means.shape == net.log_sigma.shape == (4, 16, 2)
    for parameter in (net.means, net.log_sigma, net.values):
        assert parameter.grad is not None and parameter.grad.abs().max() > 0
    again = build_coordinate_network("pig", **{k: v for k, v in net.hparams().items()
                                               if k != "seed"}, seed=0)  # fmt: skip
    again.load_state_dict(net.state_dict())
    assert torch.equal(again(points.detach()), net(points.detach()))


def test_finite_well_energy_is_trained_and_logged():
    torch.manual_seed(0)
    problem = build_problem("finite_well", {"initial_energy": 4.0})
    network = build_coordinate_network("mlp", problem.domain.bounds, seed=0, width=16, depth=2)
    field = PinnField(problem, network)
    assert "scalars.energy" in dict(field.named_parameters())
    generator = torch.Generator().manual_seed(1)
    sampler = build_sampler("fixed", problem.domain, 128, generator, seed=0, options={})
    x = np.linspace(*problem.domain.x, 65)
    reference = Reference(axes=(x,), u=problem.reference(x), quantity=problem.reference_quantity())
    run = train_pinn(problem, field, sampler, build_weighting("none", problem.domain),
                     budget=Budget(iterations=30, learning_rate=1e-2, decay_every=100,
                                   decay_factor=1.0, lbfgs_iterations=5, log_every=10),
                     setup=LossSetup(n_initial=1, n_boundary=1), seed=0,
                     reference=reference)  # fmt: skip
    energies = [row["energy"] for row in run.history]
    assert energies[0] != 4.0 and math.isfinite(run.quantity)
    assert "residual_loss" in run.history[-1]
    x_q = problem.quadrature.float()
    assert float(torch.trapezoid(field(x_q).detach() ** 2, x_q[:, 0])) == pytest.approx(1, abs=1e-4)
    assert run.prediction.shape == (65,) and math.isfinite(run.rel_l2)


def test_steady_domain_refuses_periodic_and_odd_time():
    with pytest.raises(ValueError, match="periodic"):
        Domain(bounds=((0.0, 1.0),), names=("x",), periodic=True)
    with pytest.raises(ValueError, match="last coordinate"):
        Domain(bounds=((0.0, 1.0), (0.0, 1.0)), names=("t", "x"))
