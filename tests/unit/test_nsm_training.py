"""Training of Neural Spectral Methods operators: each method's loss falls over a few steps,
every parameter gets a gradient, and the run reports its history, errors and costs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from pderepro.training.pinn.loop import Budget
from pderepro.training.spectral import (
    build_operator_network,
    build_operator_problem,
    train_operator,
)

TINY = {"width": 8, "modes": 4, "layers": 2, "projection": 16}
PROBLEMS = {
    "poisson_periodic": ({}, {"n": 32}),
    "reaction_diffusion": ({"nu": 0.01}, {"nt": 17, "nx": 32}),
}
METHODS = {
    "spectral": {"kind": "spectral", "n": 16, "nt": 8, "nx": 64},
    "grid": {"kind": "grid", "n": 16},
    "supervised": {"kind": "supervised", "n": 16},
}


def _setup(name: str, method: dict):
    parameters, grid = PROBLEMS[name]
    problem = build_operator_problem(name, parameters)
    rng = np.random.default_rng(0)
    test_inputs = problem.sample_inputs(4, rng)
    reference = {"nx": 64, "steps": 64}
    test_reference = problem.reference(test_inputs, grid, reference)
    train_data = None
    if method["kind"] == "supervised":
        inputs = problem.sample_inputs(8, rng)
        train_data = (inputs, problem.reference(inputs, problem.method_grid(method), reference))
    return problem, grid, test_inputs, test_reference, train_data


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.parametrize("kind", sorted(METHODS))
def test_a_few_steps_lower_the_loss_and_reach_every_parameter(name, kind):
    method = METHODS[kind]
    problem, _, _, _, train_data = _setup(name, method)
    net = build_operator_network(TINY, problem, seed=0)
    x = torch.as_tensor(problem.sample_inputs(4, np.random.default_rng(1)), dtype=torch.float32)
    targets = None
    if train_data is not None:
        x = torch.as_tensor(train_data[0][:4], dtype=torch.float32)
        targets = torch.as_tensor(train_data[1][:4], dtype=torch.float32)
    loss = problem.loss(net, x, method, targets)
    loss.backward()
    for pname, p in net.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), pname
        assert p.grad.abs().sum() > 0, pname
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    first = float(loss.detach())
    for _ in range(15):
        optimizer.zero_grad()
        loss = problem.loss(net, x, method, targets)
        loss.backward()
        optimizer.step()
    assert float(problem.loss(net, x, method, targets).detach()) < first


@pytest.mark.parametrize("kind", ["spectral", "supervised"])
def test_train_operator_reports_history_errors_and_costs(kind):
    name = "reaction_diffusion"
    method = METHODS[kind]
    problem, grid, test_inputs, test_reference, train_data = _setup(name, method)
    net = build_operator_network(TINY, problem, seed=0)
    budget = Budget(iterations=6, learning_rate=1e-3, decay_every=1, decay_factor=0.999,
                    log_every=3)  # fmt: skip
    run = train_operator(problem, net, method=method, budget=budget, batch_size=2, seed=0,
                         test_inputs=test_inputs, test_reference=test_reference,
                         grid_sizes=grid, train_data=train_data)  # fmt: skip
    assert [row["iteration"] for row in run.history] == [3, 6]
    assert all(0 < row["rel_l2"] < 10 and row["wall_s"] > 0 for row in run.history)
    assert run.rel_l2 == pytest.approx(run.history[-1]["rel_l2"])
    assert run.rel_l2_per_instance.shape == (4,)
    assert run.prediction.shape == test_reference.shape
    assert run.s_per_iteration > 0 and run.inference_s_per_instance > 0
    assert math.isnan(run.projected_s) and run.peak_memory_mb >= 0


def test_train_operator_stops_over_its_time_limit():
    problem, grid, test_inputs, test_reference, _ = _setup("poisson_periodic", METHODS["grid"])
    net = build_operator_network(TINY, problem, seed=0)
    budget = Budget(iterations=10**6, learning_rate=1e-3, decay_every=1, decay_factor=1.0)
    run = train_operator(problem, net, method=METHODS["grid"], budget=budget, batch_size=2,
                         seed=0, test_inputs=test_inputs, test_reference=test_reference,
                         grid_sizes=grid, time_limit_s=1.0)  # fmt: skip
    assert run.projected_s > 1.0 and math.isnan(run.rel_l2)
    assert run.s_per_iteration == pytest.approx(run.projected_s / 10**6)


def test_solve_timed_and_no_learning():
    problem, grid, test_inputs, test_reference, _ = _setup("reaction_diffusion", METHODS["grid"])
    u, seconds = problem.solve_timed(test_inputs, {"nx": 64, "steps": 64}, grid)
    assert u.shape == test_reference.shape and seconds > 0
    assert np.abs(u - test_reference).max() < 1e-10  # the same solver and resolution
    label, field = problem.no_learning(test_inputs, test_reference)
    assert label and field.shape == test_reference.shape
    poisson = build_operator_problem("poisson_periodic", {})
    s = poisson.sample_inputs(2, np.random.default_rng(0))
    u, _ = poisson.solve_timed(s, {"n": 16}, {"n": 32})
    assert np.allclose(u, poisson.reference(s, {"n": 32}))  # exact at the source's nodes


def test_unknown_problem_and_method_fail_with_their_names():
    with pytest.raises(ValueError, match="heat"):
        build_operator_problem("heat", {})
    problem = build_operator_problem("poisson_periodic", {})
    with pytest.raises(ValueError, match="fourier"):
        problem.method_grid({"kind": "fourier"})
