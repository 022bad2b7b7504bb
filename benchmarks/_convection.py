"""The R3 study's convection problem as the PINN benchmarks set it up (``pinn_step.py``,
``pinn_vs_deepxde.py``): the study's problem, loss setup and Adam budget, a method's
seeded network and points as the stage builds them, and ``train_pinn`` timed."""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Any

import torch

from pderepro.models.pinn_mlp import CoordinateMLP
from pderepro.studies.physics_informed import mlp_hparams, run_settings
from pderepro.training.pinn.loop import Budget, train_pinn
from pderepro.training.pinn.objective import LossSetup, PinnObjective
from pderepro.training.pinn.problems import build_problem
from pderepro.training.pinn.run_state import PinnRun
from pderepro.training.pinn.samplers import build_sampler

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "config/studies/r3_sampling.yaml"


def arguments(doc: str, iterations: int, warmup: int, warmup_help: str) -> argparse.ArgumentParser:
    """A parser with the options both benchmarks take: Adam iterations and warm-up."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--iterations", type=int, default=iterations, help="Adam iterations per run"
    )
    parser.add_argument("--warmup", type=int, default=warmup, help=warmup_help)
    return parser


class Convection:
    """The study's convection problem (``beta`` replacing the study's if given), its loss
    setup and its Adam budget of ``iterations``, logging once, at the end."""

    def __init__(self, study: dict[str, Any], iterations: int, beta: float | None = None) -> None:
        self.study, self.iterations = study, iterations
        self.spec = spec = study["problems"]["convection"]
        parameters = spec["parameters"] if beta is None else {**spec["parameters"], "beta": beta}
        self.problem = build_problem("convection", parameters)
        losses = dict(spec["losses"])
        self.n_points = losses.pop("n_collocation")
        self.setup = LossSetup(**losses)
        training = spec["training"]
        self.budget = Budget(
            iterations=iterations, learning_rate=training["learning_rate"],
            decay_every=training["decay_every"], decay_factor=training["decay_factor"],
            log_every=iterations,
        )  # fmt: skip

    def method(self, name: str) -> dict[str, Any]:
        """The settings of study method ``name`` on convection (on the CPU, as the
        benchmarks time it; the study file leaves these keys to the schema's defaults)."""
        study = {**self.study, "snapshots": [], "log_every": self.iterations, "gpu": False}
        return run_settings(study, "convection", name)["method"]

    def seeded_model(self, seed: int) -> CoordinateMLP:
        """The study's network, seeded as the stage seeds it."""
        torch.manual_seed(seed)
        network = mlp_hparams(self.spec["network"])
        return CoordinateMLP(self.problem.domain.bounds, seed=seed, **network)

    def seeded_sampler(self, method: dict[str, Any], seed: int):
        """The collocation points of ``method`` (its settings), seeded as the stage seeds them."""
        generator = torch.Generator().manual_seed(seed)
        return build_sampler(method["sampler"], self.problem.domain, self.n_points, generator,
                             seed=seed, options=method["sampler_options"])  # fmt: skip

    def objective(self, seed: int, dtype: torch.dtype) -> PinnObjective:
        """The objective whose initial and boundary points ``train_pinn`` draws (a scrambled
        Sobol set)."""
        return PinnObjective(self.problem, self.setup, seed, dtype)

    def train(self, model, sampler, weighting, seed: int,
              iterations: int | None = None) -> tuple[float, PinnRun]:  # fmt: skip
        """``train_pinn`` for the budget's iterations (or ``iterations``, logging once at
        the end): (wall seconds of the whole call per iteration, the run)."""
        budget = self.budget
        if iterations is not None:
            budget = dataclasses.replace(budget, iterations=iterations, log_every=iterations)
        start = time.perf_counter()
        run = train_pinn(self.problem, model, sampler, weighting, budget=budget,
                         setup=self.setup, seed=seed)  # fmt: skip
        return (time.perf_counter() - start) / budget.iterations, run
