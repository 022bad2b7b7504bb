"""SDGD on the physics-informed kind: the sampled Laplacian is unbiased, the closed-form
source matches the Laplacian of the exact solution, the ball's point law, the scattered
reference's round trip, the time limit, the linear schedule and the scaling table."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from pderepro.evaluation.pinn_tables import scaling_table
from pderepro.models.pinn_gaussian import build_coordinate_network
from pderepro.stages.physics_informed import read_reference, run_pinn_reference
from pderepro.training.pinn.domain import Ball
from pderepro.training.pinn.laplacian import laplacian, second_derivatives
from pderepro.training.pinn.loop import Budget, LossSetup, PinnField, train_pinn
from pderepro.training.pinn.problems import build_problem
from pderepro.training.pinn.samplers import build_sampler, build_weighting


def _quadratic(a: torch.Tensor):
    return lambda x: ((x @ a) * x).sum(dim=1)  # u = x^T A x, Δu = 2 tr A


def test_whole_laplacian_of_a_quadratic_is_twice_the_trace():
    a = torch.diag(torch.arange(1.0, 7.0, dtype=torch.float64)) + 0.1
    x = torch.randn(5, 6, dtype=torch.float64)
    assert torch.allclose(
        laplacian(_quadratic(a), x), torch.full((5,), 2 * float(a.trace()), dtype=torch.float64)
    )
    dims = torch.tensor([4, 0])
    expected = 2 * a.diagonal()[dims].expand(5, 2)
    assert torch.allclose(second_derivatives(_quadratic(a), x, dims), expected)


def test_sampled_laplacian_is_unbiased_over_many_draws():
    """(d / k) times the sum over k coordinates drawn without replacement: its mean over
    draws is the whole Laplacian, within four standard errors (each draw's spread is
    known from the diagonal)."""
    d, k, draws = 6, 2, 500
    a = torch.diag(torch.tensor([1.0, -2.0, 3.0, 5.0, -4.0, 8.0], dtype=torch.float64))
    x = torch.randn(1, d, dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    estimates = torch.stack(
        [laplacian(_quadratic(a), x, k, generator)[0] for _ in range(draws)]
    )  # (draws,)
    whole = 2 * float(a.trace())
    assert not torch.allclose(estimates, estimates[0])  # it does vary from draw to draw
    assert abs(float(estimates.mean()) - whole) < 4 * float(estimates.std()) / math.sqrt(draws)


@pytest.mark.parametrize("name", ["ball_poisson", "ball_allen_cahn"])
def test_closed_form_source_makes_the_exact_solution_a_solution(name):
    problem = build_problem(name, {"dimension": 7, "coefficient_seed": 3})
    x = torch.as_tensor(problem.domain.test_points(16, seed=1))
    assert torch.allclose(problem.exact_laplacian(x), laplacian(problem.exact, x), atol=1e-10)
    residual = problem.residual_of(problem.exact, x, exact=True)
    assert float(residual.abs().max()) < 1e-10
    # and on the sphere both the solution and any trial function vanish
    sphere = problem.domain.boundary_points(8, seed=2, dtype=torch.float64)
    assert float(problem.exact(sphere).abs().max()) < 1e-12
    assert float(problem.trial(torch.ones(8, dtype=torch.float64), sphere).abs().max()) < 1e-12


def test_ball_points_follow_the_authors_law():
    """Radii uniform in [0, R] (mean R / 2, not the uniform ball's d R / (d + 1)),
    reproducible test points, sphere points on the sphere."""
    ball = Ball.of(50, radius=2.0)
    points = ball.test_points(4000, seed=0)
    radii = np.linalg.norm(points, axis=1)
    assert radii.max() <= 2.0 and abs(radii.mean() - 1.0) < 0.05
    assert np.array_equal(points, ball.test_points(4000, seed=0))
    assert not np.array_equal(points, ball.test_points(4000, seed=1))
    drawn = ball.uniform(4000, torch.Generator().manual_seed(0), torch.float64)
    assert abs(float(torch.linalg.vector_norm(drawn, dim=1).mean()) - 1.0) < 0.05
    sphere = ball.boundary_points(10, seed=0, dtype=torch.float64)
    assert torch.allclose(
        torch.linalg.vector_norm(sphere, dim=1), torch.full((10,), 2.0, dtype=torch.float64)
    )
    with pytest.raises(ValueError, match="test points"):
        ball.grid({"nx1": 2})


def test_scattered_reference_round_trips_through_its_seed_and_checksum(tmp_path):
    path = str(tmp_path / "ref.nc")
    parameters = {"dimension": 20}
    run_pinn_reference(output=path, problem="ball_poisson", parameters=parameters,
                       grid={"points": 300, "seed": 5})  # fmt: skip
    problem = build_problem("ball_poisson", parameters)
    reference = read_reference(path, problem)
    assert reference.coordinates.shape == (300, 20) and reference.u.shape == (300,)
    assert np.allclose(problem.reference_at(reference.coordinates), reference.u)
    other = build_problem("ball_poisson", {"dimension": 20, "radius": 0.5})
    with pytest.raises(ValueError, match="checksum"):
        read_reference(path, other)


def _run(dimension: int, sampled: int, iterations: int, time_limit_s=None, schedule="step"):
    torch.manual_seed(0)
    problem = build_problem("ball_poisson", {"dimension": dimension, "sampled_dims": sampled})
    network = build_coordinate_network("mlp", problem.domain.bounds, seed=0, width=16, depth=2,
                                       scale_inputs=False)  # fmt: skip
    model = PinnField(problem, network)
    sampler = build_sampler("uniform", problem.domain, 32, torch.Generator().manual_seed(1))
    budget = Budget(iterations, 1e-3, 1000, 0.9, log_every=iterations, schedule=schedule)
    return train_pinn(problem, model, sampler, build_weighting("none", problem.domain),
                      budget=budget, setup=LossSetup(1, 1), seed=0,
                      time_limit_s=time_limit_s)  # fmt: skip


def test_a_run_over_its_time_limit_stops_with_its_cost_measured():
    run = _run(dimension=30, sampled=0, iterations=100_000, time_limit_s=1.0)
    assert math.isfinite(run.projected_s) and run.projected_s > 1.0
    assert run.adam_s_per_iteration > 0 and math.isnan(run.rel_l2)
    assert len(run.history) == 1 and run.history[0]["iteration"] == 4
    finished = _run(dimension=30, sampled=4, iterations=8, time_limit_s=600.0)
    assert math.isnan(finished.projected_s) and finished.history[-1]["iteration"] == 8


def test_linear_schedule_falls_to_zero_at_the_last_iteration():
    budget = Budget(10, 1e-2, 1, 0.5, schedule="linear")
    optimizer = torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))], lr=budget.learning_rate)
    schedule = budget.scheduler(optimizer)
    rates = []
    for _ in range(10):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        schedule.step()
    assert rates[0] == pytest.approx(1e-2) and rates[-1] == pytest.approx(1e-3)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="schedule"):
        Budget(10, 1e-2, 1, 0.5, schedule="cosine").scheduler(optimizer)


def test_scaling_table_fits_log_log_slopes_and_marks_runs_over_the_limit():
    """A run out of GPU memory (projected_s infinite) is stopped, like one over its limit."""
    rows = []
    for d in (10, 100, 1000):
        rows.append({"problem": f"p{d}", "method": "full", "s_per_iteration": 1e-4 * d**2,
                     "peak_memory_mb": 0.1 * d, "rel_l2": 0.1,
                     "projected_s": math.inf if d == 1000 else math.nan})  # fmt: skip
        rows.append({"problem": f"p{d}", "method": "sampled", "s_per_iteration": 0.01,
                     "peak_memory_mb": 50.0, "rel_l2": 0.2, "projected_s": math.nan})  # fmt: skip
    problems = {f"p{d}": {"family": "poisson", "value": d} for d in (10, 100, 1000)}
    table, caption = scaling_table(pd.DataFrame(rows), problems=problems,
                                   methods={"full": "Full", "sampled": "SDGD"},
                                   parameter="dimension")  # fmt: skip
    full, sampled = table.set_index("method").loc["full"], table.set_index("method").loc["sampled"]
    assert full["time_slope"] == pytest.approx(2.0) and full["memory_slope"] == pytest.approx(1.0)
    assert full["time_slope_largest"] == pytest.approx(2.0)  # out of memory counts as stopped
    assert sampled["time_slope"] == pytest.approx(0.0, abs=1e-9)
    assert (full["largest_trained"], full["first_over_limit"]) == (100, 1000)
    assert math.isnan(sampled["first_over_limit"]) and "dimension" in caption
