"""A tiny physics-informed run shared by the loop and segment tests: convection at beta = 1
scored on a 32 x 9 grid, an MLP of width 8 and depth 2, 64 collocation points, 32 initial
points (weight 10) and 16 boundary times."""

import numpy as np
import torch

from pderepro.models.pinn_mlp import CoordinateMLP
from pderepro.training.pinn.loop import Budget, LossSetup, Reference, train_pinn
from pderepro.training.pinn.problems import build_problem
from pderepro.training.pinn.samplers import build_sampler, build_weighting


def train_tiny(sampler, weighting, budget: Budget, *, seed=0, generator_seed=None, **kwargs):
    """``train_pinn`` on the tiny problem with every object built from ``seed`` as the stage
    builds them (the sampler's generator from ``generator_seed``, by default ``seed``);
    ``kwargs`` go to ``train_pinn``. Returns the run and the trained model."""
    torch.manual_seed(seed)
    problem = build_problem("convection", {"beta": 1.0})
    x = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    t = np.linspace(0, 1, 9)
    reference = Reference(axes=(x, t), u=problem.reference(x, t))
    model = CoordinateMLP([problem.domain.x, problem.domain.t], width=8, depth=2)
    generator = torch.Generator().manual_seed(seed if generator_seed is None else generator_seed)
    points = build_sampler(sampler, problem.domain, 64, generator, seed=seed)
    run = train_pinn(
        problem, model, points, build_weighting(weighting, problem.domain), budget=budget,
        setup=LossSetup(n_initial=32, n_boundary=16, initial_weight=10.0),
        seed=seed, reference=reference, **kwargs,
    )  # fmt: skip
    return run, model
