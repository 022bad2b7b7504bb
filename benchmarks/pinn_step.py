"""Time per Adam iteration of ``train_pinn`` against a plain torch loop, and R3's against PINN's.

The problem is the R3 study's convection (``config/studies/r3_sampling.yaml``): beta = 50,
a 2-50x4-1 tanh MLP on raw ``(x, t)``, 1000 collocation points, the initial condition at
512 points (weight 100), the periodic condition at 251 times (weight 100), Adam 1e-3 with
x0.9 every 5000 iterations; float32, one thread.

Four measurements, interleaved (each repeat runs all four, in an order rotated from repeat
to repeat, since the machine's speed drifts) and summarised by medians:

- ``plain``: the ~40-line loop below, the same maths written out (the same network, a copy
  of ours with the same initial weights; the same collocation, initial and boundary points;
  the same loss terms and weights; Adam + StepLR); checked against ``train_pinn`` before
  timing (the parameters agree after a few iterations);
- ``fixed``, ``r3``, ``causal_r3``: :func:`~pderepro.training.pinn.loop.train_pinn` with the
  study's methods ``pinn_fixed``, ``r3`` and ``causal_r3``.

Time per iteration is the wall time of the whole call (the loop, or ``train_pinn`` with its
setup) over the iterations, with ``log_every = iterations`` so that ``train_pinn`` logs once,
at the end (the validation residual at 4096 points; no reference is passed, so no error on
the grid). ``train_pinn``'s own ``adam_s_per_iteration`` (logging excluded) is printed
beside it. Targets (issue 31): ``train_pinn`` at most 1.1x the plain loop; R3 at most 1.2x
the fixed-point PINN (causal R3 is printed against the same 1.2x).

Run by hand, e.g. ``python benchmarks/pinn_step.py --iterations 2000 --repeats 3``.
"""

from __future__ import annotations

import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from pderepro.config import load_yaml
from pderepro.runtime import set_threads
from pderepro.training.pinn.samplers import build_weighting

sys.path.insert(0, str(Path(__file__).parent))
from _convection import STUDY, Convection, arguments  # noqa: E402  (beside this script)

METHODS = {"fixed": "pinn_fixed", "r3": "r3", "causal_r3": "causal_r3"}


def plain_loop(net: nn.Module, points: Tensor, ic_points: Tensor, u0: Tensor, lower: Tensor,
               upper: Tensor, beta: float, weights: tuple[float, float, float],
               iterations: int, lr: float, every: int, factor: float) -> None:  # fmt: skip
    """Adam + StepLR on ``w_r mean(r^2) + w_i mean((u - u0)^2) + w_b mean((u_lo - u_hi)^2)``,
    ``r = u_t + beta u_x`` at ``points (n, 2)``; the IC at ``ic_points (m, 2)``; the periodic
    condition between ``lower`` and ``upper`` ``(k, 2)``."""
    w_r, w_i, w_b = weights
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, every, factor)
    points = points.detach().requires_grad_(True)
    for _ in range(iterations):
        optimizer.zero_grad(set_to_none=True)
        u = net(points).squeeze(-1)  # (n,)
        (du,) = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)  # (n, 2)
        residual = du[:, 1] + beta * du[:, 0]  # (n,)
        ic = torch.mean((net(ic_points).squeeze(-1) - u0) ** 2)
        bc = torch.mean((net(lower).squeeze(-1) - net(upper).squeeze(-1)) ** 2)
        loss = w_r * torch.mean(residual**2) + w_i * ic + w_b * bc
        loss.backward()
        optimizer.step()
        schedule.step()


class ConvectionBench(Convection):
    """The study's convection problem and its methods, built afresh for each timed run."""

    def __init__(self, study: dict[str, Any], iterations: int, seed: int) -> None:
        super().__init__(study, iterations)
        self.seed = seed

    def build(self, method: str):
        """Model (seeded as the stage seeds it), sampler and weighting of a study method."""
        settings = self.method(method)
        model = self.seeded_model(self.seed)
        sampler = self.seeded_sampler(settings, self.seed)
        weighting = build_weighting(settings.get("weighting", "none"), self.problem.domain,
                                    settings["weighting_options"])  # fmt: skip
        return model, sampler, weighting

    def ours(self, name: str, iterations: int | None = None) -> tuple[float, float, nn.Module]:
        """``train_pinn`` with method ``name``: (wall s/it, adam_s_per_iteration, model)."""
        model, sampler, weighting = self.build(METHODS[name])
        seconds, run = self.train(model, sampler, weighting, self.seed, iterations)
        return seconds, run.adam_s_per_iteration, model

    def plain(self, iterations: int | None = None) -> tuple[float, nn.Module]:
        """The plain loop on the fixed method's network and points: (wall s/it, network)."""
        model, sampler, _ = self.build(METHODS["fixed"])
        net = copy.deepcopy(model.net)  # nn.Sequential(Linear, Tanh, ..., Linear)
        conditions = self.objective(self.seed, sampler.dtype)
        s, b = self.setup, self.budget
        iterations = b.iterations if iterations is None else iterations
        start = time.perf_counter()
        plain_loop(net, sampler.points, conditions.initial, conditions.u0, conditions.lower_edge,
                   conditions.upper_edge, self.problem.beta,
                   (s.residual_weight, s.initial_weight, s.boundary_weight), iterations,
                   b.learning_rate, b.decay_every, b.decay_factor)  # fmt: skip
        return (time.perf_counter() - start) / iterations, net


def check_same_maths(bench: ConvectionBench, iterations: int = 20) -> float:
    """Largest parameter difference between ``train_pinn`` (fixed) and the plain loop after
    ``iterations`` steps from the same weights; raises if they disagree."""
    _, _, model = bench.ours("fixed", iterations)
    _, net = bench.plain(iterations)
    with torch.no_grad():
        pairs = zip(model.net.parameters(), net.parameters(), strict=True)
        diff = max(float((a - b).abs().max()) for a, b in pairs)
    if diff > 1e-4:
        raise AssertionError(f"train_pinn and the plain loop disagree: max |dp| = {diff:.2e}")
    return diff


def summary(values: list[float]) -> str:
    return (f"{1e3 * statistics.median(values):>10.3f}{1e3 * min(values):>10.3f}"
            f"{1e3 * max(values):>10.3f}")  # fmt: skip


def main() -> None:
    parser = arguments(
        __doc__, iterations=2000, warmup=20, warmup_help="untimed iterations per variant"
    )
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    set_threads(1)
    study = load_yaml(STUDY)
    bench = ConvectionBench(study, args.iterations, args.seed)
    diff = check_same_maths(bench)
    for name in METHODS:  # untimed warm-up (allocator, first-call overheads)
        bench.ours(name, args.warmup)
    bench.plain(args.warmup)

    names = ["plain", *METHODS]
    wall: dict[str, list[float]] = {name: [] for name in names}
    adam: dict[str, list[float]] = {name: [] for name in METHODS}
    for repeat in range(args.repeats):
        k = repeat % len(names)
        for name in names[k:] + names[:k]:
            if name == "plain":
                wall[name].append(bench.plain()[0])
            else:
                seconds, adam_s, _ = bench.ours(name)
                wall[name].append(seconds)
                adam[name].append(adam_s)
        print(f"repeat {repeat}: " + ", ".join(f"{n} {1e3 * wall[n][-1]:.3f}" for n in names)
              + " ms/it", flush=True)  # fmt: skip

    spec = bench.spec
    print(
        f"\nconvection beta={spec['parameters']['beta']:g}, MLP 2-{spec['network']['width']}"
        f"x{spec['network']['depth']}-1 tanh, {bench.n_points} collocation points, IC "
        f"{bench.setup.n_initial} (x{bench.setup.initial_weight:g}), periodic BC "
        f"{bench.setup.n_boundary} (x{bench.setup.boundary_weight:g}); float32, 1 thread; "
        f"{args.iterations} iterations x {args.repeats} repeats, interleaved"
    )
    print(f"train_pinn vs plain loop after 20 iterations from the same weights: "
          f"max |parameter difference| = {diff:.1e}")  # fmt: skip
    print("time per iteration = wall time of the whole call / iterations, log_every = "
          "iterations (one log, at the end); 'adam' = train_pinn's adam_s_per_iteration "
          "(logging excluded)")  # fmt: skip
    print(f"{'measurement':<24}{'median':>10}{'min':>10}{'max':>10}{'adam med':>10}  [ms/it]")
    labels = {"plain": "plain torch loop", "fixed": "train_pinn, fixed (PINN)",
              "r3": "train_pinn, R3", "causal_r3": "train_pinn, causal R3"}  # fmt: skip
    for name in names:
        extra = f"{1e3 * statistics.median(adam[name]):>10.3f}" if name in adam else f"{'':>10}"
        print(f"{labels[name]:<24}{summary(wall[name])}{extra}")
    med = {name: statistics.median(v) for name, v in wall.items()}
    print(f"\n{'ratio (of medians)':<28}{'value':>8}{'per-repeat min..max':>22}{'target':>9}")
    for num, den, target in (("fixed", "plain", 1.1), ("r3", "fixed", 1.2),
                             ("causal_r3", "fixed", 1.2)):  # fmt: skip
        ratio = med[num] / med[den]
        per = [a / b for a, b in zip(wall[num], wall[den], strict=True)]
        verdict = "met" if ratio <= target else "MISSED"
        print(f"{labels[num].removeprefix('train_pinn, ') + ' / ' + den:<28}{ratio:>7.3f}x"
              f"{min(per):>11.3f}x..{max(per):.3f}x   <= {target}x {verdict}")  # fmt: skip


if __name__ == "__main__":
    main()
