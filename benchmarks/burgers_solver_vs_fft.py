"""Time one ETDRK4 step of the Burgers solver against the bare FFTs it needs.

An ETDRK4 step evaluates the nonlinearity four times, each one irfft and one rfft of the
(batch, n) field, so ``step_time / fft_time`` measures the overhead of everything else
(products with the coefficients, dealiasing, temporaries). The two measurements are
interleaved in rounds (A, B, A, B, ...) and summarised by medians because the machine's speed
drifts between runs.

Run by hand, e.g. ``python benchmarks/burgers_solver_vs_fft.py --resolution 1024 --batch 100``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from pderepro.solvers.burgers.burgers import BurgersETDRK4
from pderepro.solvers.common.random_fields import grf_periodic_1d


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _time_steps(stepper: BurgersETDRK4, v_hat: torch.Tensor, steps: int) -> float:
    _sync(stepper.device)
    start = time.perf_counter()
    v = v_hat.clone()
    for _ in range(steps):
        stepper.step_(v)
    _sync(stepper.device)
    return (time.perf_counter() - start) / steps


def _time_ffts(v_hat: torch.Tensor, n: int, steps: int) -> float:
    # Preallocated outputs, as in the stepper, so this is the bare transform cost.
    u = torch.empty((*v_hat.shape[:-1], n), dtype=torch.float64, device=v_hat.device)
    w = torch.empty_like(v_hat)
    _sync(v_hat.device)
    start = time.perf_counter()
    for _ in range(steps):
        for _ in range(4):  # four nonlinear evaluations per ETDRK4 step
            torch.fft.irfft(v_hat, n=n, dim=-1, out=u)
            torch.fft.rfft(u, dim=-1, out=w)
    _sync(v_hat.device)
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--steps", type=int, default=200, help="steps timed per round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved A/B rounds")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--device", default=None, help="default: cuda if available else cpu")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)

    stepper = BurgersETDRK4(args.resolution, 0.1, 1e-3, device=args.device)
    u0 = grf_periodic_1d(args.batch, args.resolution, rng=np.random.default_rng(0))
    v_hat = torch.fft.rfft(torch.as_tensor(u0, device=stepper.device), dim=-1)

    with torch.no_grad():
        _time_steps(stepper, v_hat, 5)  # warm-up: allocator, FFT plans
        _time_ffts(v_hat, args.resolution, 5)
        step_times, fft_times = [], []
        for _ in range(args.rounds):
            step_times.append(_time_steps(stepper, v_hat, args.steps))
            fft_times.append(_time_ffts(v_hat, args.resolution, args.steps))

    step_med = statistics.median(step_times)
    fft_med = statistics.median(fft_times)
    print(
        f"device={stepper.device} threads={args.threads} resolution={args.resolution} "
        f"batch={args.batch} steps/round={args.steps} rounds={args.rounds}"
    )
    print(f"{'measurement':<28}{'median [ms]':>12}{'min [ms]':>10}{'max [ms]':>10}")
    for name, values in (("ETDRK4 step", step_times), ("4 x (irfft + rfft)", fft_times)):
        print(
            f"{name:<28}{1e3 * statistics.median(values):>12.3f}"
            f"{1e3 * min(values):>10.3f}{1e3 * max(values):>10.3f}"
        )
    print(f"ratio step_time / fft_time = {step_med / fft_med:.2f}")


if __name__ == "__main__":
    main()
