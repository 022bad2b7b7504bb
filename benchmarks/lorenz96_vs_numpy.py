"""Throughput of the batched Lorenz-96 integrator against a plain one-trajectory numpy loop.

The reference is the usual teaching implementation: one trajectory, tendencies from
``np.roll``, four RK4 stages with fresh temporaries. Throughput is trajectory-steps per second.
The reference is timed on fewer steps (it is slow) and normalised per step. The two measurements
are interleaved in rounds (ours, reference, ours, ...) and summarised by medians because the
machine's speed drifts between runs.

Run by hand, e.g. ``python benchmarks/lorenz96_vs_numpy.py --trajectories 100 --threads 2``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pderepro.solvers.lorenz96.lorenz96 import Lorenz96Problem, integrate


def _reference_tendencies(X, Y, F, h, b, c):
    """Textbook two-scale Lorenz-96 tendencies for one trajectory; Y is the flat fast ring."""
    K, J = X.size, Y.size // X.size
    dX = -np.roll(X, 1) * (np.roll(X, 2) - np.roll(X, -1)) - X + F
    dX -= h * c / b * Y.reshape(K, J).sum(axis=1)
    dY = -c * b * np.roll(Y, -1) * (np.roll(Y, -2) - np.roll(Y, 1)) - c * Y
    dY += h * c / b * np.repeat(X, J)
    return dX, dY


def _reference_rk4(X, Y, p: Lorenz96Problem, steps: int):
    dt, args = p.time_step, (p.forcing, p.h, p.b, p.c)
    for _ in range(steps):
        k1x, k1y = _reference_tendencies(X, Y, *args)
        k2x, k2y = _reference_tendencies(X + 0.5 * dt * k1x, Y + 0.5 * dt * k1y, *args)
        k3x, k3y = _reference_tendencies(X + 0.5 * dt * k2x, Y + 0.5 * dt * k2y, *args)
        k4x, k4y = _reference_tendencies(X + dt * k3x, Y + dt * k3y, *args)
        X = X + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        Y = Y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    return X, Y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=100)
    parser.add_argument("--steps", type=int, default=2000, help="steps per round, ours")
    parser.add_argument("--reference-steps", type=int, default=200, help="steps per round, ref.")
    parser.add_argument("--save-every", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--threads", type=int, default=2, help="numba threads")
    parser.add_argument("--backend", default="auto", choices=("auto", "numba", "numpy"))
    args = parser.parse_args()

    if args.backend != "numpy":
        import numba

        numba.set_num_threads(args.threads)

    problem = Lorenz96Problem()
    rng = np.random.default_rng(0)
    x0 = problem.forcing * rng.random((args.trajectories, problem.K))
    y0 = 0.1 * rng.standard_normal((args.trajectories, problem.K, problem.J))
    # Spin up onto the attractor so both codes time typical states (and numba compiles here).
    spun = integrate(x0, y0, problem, n_steps=500, save_every=500, backend=args.backend)
    x0, y0 = spun.x_final, spun.y_final

    def ours() -> float:
        start = time.perf_counter()
        integrate(
            x0, y0, problem, n_steps=args.steps, save_every=args.save_every,
            store_fast=False, backend=args.backend,
        )  # fmt: skip
        return args.trajectories * args.steps / (time.perf_counter() - start)

    def reference() -> float:
        start = time.perf_counter()
        _reference_rk4(x0[0], y0[0].ravel(), problem, args.reference_steps)
        return args.reference_steps / (time.perf_counter() - start)

    # The reference agrees with the integrator (same scheme, different summation order).
    ref_x, _ = _reference_rk4(x0[0], y0[0].ravel(), problem, 50)
    ours_x = integrate(x0[:1], y0[:1], problem, n_steps=50, save_every=50, backend=args.backend)
    assert np.allclose(ref_x, ours_x.x_final[0], rtol=0, atol=1e-10)

    ours_rates, ref_rates = [], []
    for _ in range(args.rounds):
        ours_rates.append(ours())
        ref_rates.append(reference())

    print(
        f"trajectories={args.trajectories} steps/round={args.steps} "
        f"reference steps/round={args.reference_steps} save_every={args.save_every} "
        f"rounds={args.rounds} threads={args.threads} backend={args.backend}"
    )
    print(f"{'measurement':<34}{'median':>12}{'min':>12}{'max':>12}  [trajectory-steps/s]")
    for name, values in (
        ("integrate (batched)", ours_rates),
        ("numpy np.roll loop (1 trajectory)", ref_rates),
    ):
        med, lo, hi = statistics.median(values), min(values), max(values)
        print(f"{name:<34}{med:>12.4g}{lo:>12.4g}{hi:>12.4g}")
    ratios = [a / b for a, b in zip(ours_rates, ref_rates, strict=True)]
    overall = statistics.median(ours_rates) / statistics.median(ref_rates)
    print(
        f"throughput ratio: {overall:.1f}x (ratio of medians); per round median "
        f"{statistics.median(ratios):.1f}x, min {min(ratios):.1f}x, max {max(ratios):.1f}x"
    )


if __name__ == "__main__":
    main()
