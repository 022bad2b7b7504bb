"""Relative L2 error and time per iteration of our PINN against DeepXDE's on convection.

Both train the R3 study's convection problem (``config/studies/r3_sampling.yaml``;
``u_t + beta u_x = 0`` on ``[0, 2 pi)`` periodic, ``t in [0, 1]``, ``u0 = sin x``) with the
study's fixed-point PINN settings, on the CPU in float32 with one thread:

- network: 2-50x4-1 tanh on raw ``(x, t)``. Ours is :class:`CoordinateMLP`, re-initialised
  here with Glorot (Xavier) normal weights and zero biases, as DeepXDE's
  ``FNN(..., "tanh", "Glorot normal")`` does; DeepXDE's network then gets a copy of ours,
  so both start from the same weights. (``--init torch`` keeps torch's default ``Linear``
  init, Kaiming uniform with ``a = sqrt(5)``, which is what the study's runs use, and copies
  that instead.)
- points: our fixed sampler's 1000 collocation points (the study's ``pinn_fixed`` point set)
  are DeepXDE's ``anchors`` with ``num_domain = num_boundary = num_initial = 0``; DeepXDE's
  ``IC`` and ``PeriodicBC`` are used unchanged except that their points are ours (DeepXDE
  otherwise filters them out of the training set, which would also put them in the
  residual's mean): 512 points at ``t = 0`` and 251 times at ``x = 0`` paired by DeepXDE's
  ``periodic_point`` with ``x = 2 pi``; the script checks that DeepXDE's own filters and
  partner map return exactly our points.
- losses: DeepXDE's "MSE" of each term (mean over points of the squared residual, of
  ``u(x, 0) - sin x``, of ``u(0, t) - u(2 pi, t)``), weights ``[1, 100, 100]``; ours are
  the same means with the same weights. The initial weighted terms are printed side by side.
- optimiser: Adam, learning rate 1e-3, ``decay=("step", 5000, 0.9)`` (DeepXDE's torch
  backend maps it to ``StepLR(step_size=5000, gamma=0.9)``, stepped every iteration, as ours).

Per seed the two are trained one after the other (the order alternates between seeds);
time per iteration is the wall time of the training call over the iterations, logging
rarely in both (ours ``log_every = iterations``, DeepXDE ``display_every = iterations``;
each evaluates its losses at the start and/or end only). The error is the relative L2 over
the study's 512 x 251 reference grid against the exact ``sin(x - beta t)``, computed by the
same function for both. Target (issue 31): ours at least as accurate within the seed spread,
and no slower.

DeepXDE is an optional benchmark dependency (``pip install -e '.[bench]'``).
Run by hand, e.g. ``python benchmarks/pinn_vs_deepxde.py --iterations 10000 --seeds 3``.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from pderepro.config import load_yaml
from pderepro.models.pinn_mlp import CoordinateMLP
from pderepro.runtime import set_threads
from pderepro.training.pinn.samplers import build_weighting

sys.path.insert(0, str(Path(__file__).parent))
from _convection import STUDY, Convection, arguments  # noqa: E402  (beside this script)


def import_deepxde():
    """DeepXDE on its PyTorch backend, on the CPU (as ours), or None if not installed."""
    os.environ["DDE_BACKEND"] = "pytorch"
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # DeepXDE moves everything to a GPU if it sees one
    try:
        banner = io.StringIO()  # "Using backend: pytorch ..."
        with contextlib.redirect_stdout(banner), contextlib.redirect_stderr(banner):
            import deepxde
    except ImportError:
        return None
    return deepxde


class Case(Convection):
    """One seed's network, points and budget, shared by both codes."""

    def __init__(self, study: dict[str, Any], beta: float, iterations: int, seed: int,
                 init: str) -> None:  # fmt: skip
        super().__init__(study, iterations, beta)
        self.seed, domain = seed, self.problem.domain
        self.model = self.seeded_model(seed)
        if init == "glorot":
            for layer in self.linears(self.model):
                nn.init.xavier_normal_(layer.weight)
                nn.init.zeros_(layer.bias)
        self.initial_state = {k: v.clone() for k, v in self.model.state_dict().items()}
        self.sampler = self.seeded_sampler(self.method("pinn_fixed"), seed)
        self.weighting = build_weighting("none", domain)
        self.conditions = self.objective(seed, self.sampler.dtype)
        x, t = domain.grid(self.spec["reference_grid"])
        self.u_ref = self.problem.reference(x, t)  # (nt, nx)
        xx, tt = np.meshgrid(x, t)  # (nt, nx)
        self.grid = torch.as_tensor(np.stack([xx.ravel(), tt.ravel()], 1), dtype=torch.float32)

    @staticmethod
    def linears(model: CoordinateMLP) -> list[nn.Linear]:
        return [m for m in model.net if isinstance(m, nn.Linear)]

    def relative_l2(self, forward) -> float:
        """``||u - u_ref|| / ||u_ref||`` on the reference grid; ``forward: (n, 2) -> (n,)``."""
        with torch.no_grad():
            pred = forward(self.grid).double().numpy().reshape(self.u_ref.shape)
        return float(np.linalg.norm(pred - self.u_ref) / np.linalg.norm(self.u_ref))

    def ours(self, iterations: int | None = None) -> tuple[float, CoordinateMLP]:
        """``train_pinn`` from the initial weights: (wall s/it, trained model)."""
        self.model.load_state_dict(self.initial_state)
        seconds, _ = self.train(self.model, self.sampler, self.weighting, self.seed, iterations)
        return seconds, self.model

    def initial_terms(self) -> list[float]:
        """Our weighted loss terms (residual, initial, boundary) at the initial weights."""
        self.model.load_state_dict(self.initial_state)
        _, _, terms = self.conditions.terms(self.model, self.sampler, self.weighting)
        s = self.setup
        weights = (s.residual_weight, s.initial_weight, s.boundary_weight)
        names = ("residual_loss", "initial_loss", "boundary_loss")
        return [w * float(terms[k].detach()) for w, k in zip(weights, names, strict=True)]

    def deepxde_model(self, dde):
        """DeepXDE's PINN of the same problem, points, network (a copy of ours) and loss."""
        beta = self.problem.beta
        c = self.conditions
        domain = self.problem.domain
        geom = dde.geometry.GeometryXTime(
            dde.geometry.Interval(*domain.x), dde.geometry.TimeDomain(*domain.t)
        )
        ic_points, lower = c.initial.numpy(), c.lower_edge.numpy()

        class OurPointsIC(dde.icbc.IC):
            def collocation_points(self, X):
                return super().collocation_points(ic_points)  # DeepXDE's filter, our points

        class OurPointsPeriodicBC(dde.icbc.PeriodicBC):
            def collocation_points(self, X):
                return super().collocation_points(lower)  # (lower; DeepXDE's partners)

        ic = OurPointsIC(geom, lambda X: np.sin(X[:, 0:1]), lambda _, on_initial: on_initial)
        bc = OurPointsPeriodicBC(geom, 0, lambda x, on: on and np.isclose(x[0], geom.geometry.l))
        # DeepXDE's own definitions pick exactly our points
        assert np.array_equal(ic.collocation_points(None), ic_points)
        pairs = bc.collocation_points(None)
        assert np.array_equal(pairs, np.vstack([lower, c.upper_edge.numpy()])), "BC points"

        def pde(x, u):
            u_x = dde.grad.jacobian(u, x, i=0, j=0)
            u_t = dde.grad.jacobian(u, x, i=0, j=1)
            return u_t + beta * u_x

        data = dde.data.TimePDE(geom, pde, [ic, bc], num_domain=0, num_boundary=0,
                                num_initial=0, anchors=self.sampler.points.numpy())  # fmt: skip
        assert np.array_equal(data.train_x_all, self.sampler.points.numpy())
        width, depth = self.spec["network"]["width"], self.spec["network"]["depth"]
        net = dde.nn.FNN([2] + [width] * depth + [1], "tanh", "Glorot normal")
        linear = [i for i, m in enumerate(self.model.net) if isinstance(m, nn.Linear)]
        with torch.no_grad():  # our initial weights (net.<i> of our nn.Sequential)
            for theirs, i in zip(net.linears, linear, strict=True):
                theirs.weight.copy_(self.initial_state[f"net.{i}.weight"])
                theirs.bias.copy_(self.initial_state[f"net.{i}.bias"])
        model = dde.Model(data, net)
        s, b = self.setup, self.budget
        model.compile("adam", lr=b.learning_rate, decay=("step", b.decay_every, b.decay_factor),
                      loss_weights=[s.residual_weight, s.initial_weight, s.boundary_weight],
                      verbose=0)  # fmt: skip
        return model

    def deepxde(self, dde, iterations: int | None = None):
        """DeepXDE's training from the same weights: (wall s/it, trained model)."""
        model = self.deepxde_model(dde)
        iterations = self.budget.iterations if iterations is None else iterations
        start = time.perf_counter()
        model.train(iterations=iterations, display_every=iterations, verbose=0)
        return (time.perf_counter() - start) / iterations, model


def mean_std(values: list[float]) -> tuple[float, float]:
    return statistics.mean(values), statistics.stdev(values) if len(values) > 1 else math.nan


def main() -> int:
    warmup_help = "untimed iterations of each code first (also the agreement check)"
    parser = arguments(__doc__, iterations=10000, warmup=50, warmup_help=warmup_help)
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..n-1")
    parser.add_argument("--beta", type=float, default=50.0)
    parser.add_argument(
        "--init",
        choices=("glorot", "torch"),
        default="glorot",
        help="initial weights of both (a copy of ours in DeepXDE's network)",
    )
    args = parser.parse_args()

    dde = import_deepxde()
    if dde is None:
        print("DeepXDE is not installed: pip install -e '.[bench]' (or 'deepxde>=1.10').")
        return 1
    set_threads(1)
    study = load_yaml(STUDY)

    # the same maths: equal initial terms, and close parameters after a few steps (untimed;
    # also the warm-up: the first steps of a process are slower than steady state)
    case = Case(study, args.beta, args.iterations, 0, args.init)
    ours_terms = case.initial_terms()
    dde_model = case.deepxde_model(dde)
    dde_model.train(iterations=0, display_every=1, verbose=0)
    dde_terms = [float(v) for v in dde_model.train_state.loss_train]
    _, ours_model = case.ours(args.warmup)
    _, dde_model = case.deepxde(dde, args.warmup)
    with torch.no_grad():
        pairs = zip(case.linears(ours_model), dde_model.net.linears, strict=True)
        step_diff = max(max(float((a.weight - b.weight).abs().max()),
                            float((a.bias - b.bias).abs().max())) for a, b in pairs)  # fmt: skip

    rows = []
    for seed in range(args.seeds):
        case = Case(study, args.beta, args.iterations, seed, args.init)
        runs = {}
        for name in ("ours", "deepxde") if seed % 2 == 0 else ("deepxde", "ours"):
            if name == "ours":
                seconds, model = case.ours()
                error = case.relative_l2(model)
            else:
                seconds, model = case.deepxde(dde)
                error = case.relative_l2(lambda p, net=model.net: net(p).squeeze(-1))
            runs[name] = (error, seconds)
        rows.append((seed, *runs["ours"], *runs["deepxde"]))
        print(f"seed {seed}: rel L2 ours {runs['ours'][0]:.4g}, DeepXDE {runs['deepxde'][0]:.4g}; "
              f"ms/it ours {1e3 * runs['ours'][1]:.3f}, DeepXDE {1e3 * runs['deepxde'][1]:.3f}",
              flush=True)  # fmt: skip

    print(f"\nconvection beta={args.beta:g}, MLP 2-50x4-1 tanh ({args.init} init, the same weights "
          f"in both), 1000 collocation points, IC 512 (x100), periodic BC 251 (x100), Adam 1e-3 "
          f"x0.9/5000; {args.iterations} iterations; float32, 1 thread, CPU")  # fmt: skip
    print(f"DeepXDE {dde.__version__}, torch {torch.__version__}")
    print("initial weighted loss terms (residual, IC, BC): ours "
          + ", ".join(f"{v:.6g}" for v in ours_terms) + "; DeepXDE "
          + ", ".join(f"{v:.6g}" for v in dde_terms))  # fmt: skip
    print(
        f"max |parameter difference| after {args.warmup} iterations from the same weights: "
        f"{step_diff:.1e}"
    )
    print("time per iteration = wall time of the training call / iterations (logging at the "
          "start and/or end only)")  # fmt: skip
    print(f"\n{'seed':>4}{'rel L2 ours':>14}{'rel L2 DeepXDE':>16}{'ms/it ours':>12}"
          f"{'ms/it DeepXDE':>15}")  # fmt: skip
    for seed, e_ours, t_ours, e_dde, t_dde in rows:
        print(f"{seed:>4}{e_ours:>14.4g}{e_dde:>16.4g}{1e3 * t_ours:>12.3f}{1e3 * t_dde:>15.3f}")
    e_ours, s_ours = mean_std([r[1] for r in rows])
    e_dde, s_dde = mean_std([r[3] for r in rows])
    t_ours, ts_ours = mean_std([1e3 * r[2] for r in rows])
    t_dde, ts_dde = mean_std([1e3 * r[4] for r in rows])
    print(f"{'mean':>4}{e_ours:>14.4g}{e_dde:>16.4g}{t_ours:>12.3f}{t_dde:>15.3f}")
    print(f"{'std':>4}{s_ours:>14.2g}{s_dde:>16.2g}{ts_ours:>12.3f}{ts_dde:>15.3f}")
    spread = max(s_ours, s_dde)
    if math.isnan(spread):
        verdict = "no seed spread with one seed (use --seeds >= 2)"
    elif e_ours <= e_dde + spread:
        verdict = "at least as accurate within the seed spread"
    else:
        verdict = "LESS ACCURATE beyond the seed spread"
    print(
        f"\nerror ratio ours / DeepXDE (means): {e_ours / e_dde:.3f}; ours - DeepXDE = "
        f"{e_ours - e_dde:+.3g}, larger seed std {spread:.2g}: {verdict}"
    )
    ratio = t_ours / t_dde
    print(
        f"time ratio ours / DeepXDE (mean ms/it): {ratio:.3f}x, target <= 1.0x: "
        f"{'met' if ratio <= 1.0 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
