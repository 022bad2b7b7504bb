"""Time one FNO-1D training epoch and Navier-Stokes solver steps at the FNO paper's sizes,
on each available device, with and without bf16 autocast; print and write JSON.

Cases (median of ``--repeats`` after a warm-up):

- ``fno_epoch``: one epoch of the paper's FNO-1D (modes 16, width 64, 4 layers) on 1000
  random samples at ``s = 8192`` in batches of 20, Adam, relative L2 loss.
- ``ns_step``: AB2/CN steps of the Navier-Stokes solver at 256^2 with dt = 1e-4 on a
  batch of 20 (one generation shard); ``ns_solve_s`` extrapolates to one regime's
  solve (T = 50: 500,000 steps). bf16 autocast leaves FFTs in float32 (torch does not
  autocast them), so it is expected to change little here.

Devices: ``cpu`` always (fewer samples and steps, scaled up: said in the JSON), ``cuda``
when available. ``--dry-run`` shrinks everything to run in seconds on a CPU (CI).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from pathlib import Path

import torch

from pderepro.models.fno import FNO1d
from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, NavierStokesStepper
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf
from pderepro.training.losses import relative_l2

PAPER = {"n": 8192, "samples": 1000, "batch": 20, "ns_n": 256, "ns_batch": 20, "ns_T": 50.0}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _autocast(device: torch.device, bf16: bool):
    if not bf16:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def fno_epoch_seconds(
    device: torch.device, *, n: int, samples: int, batch: int, bf16: bool, repeats: int
) -> float:
    """Median wall time (s) of one training epoch over ``samples`` samples."""
    torch.manual_seed(0)
    model = FNO1d(modes=16, width=64, layers=4, projection=128).to(device)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    inputs = torch.randn(samples, n, device=device)  # (samples, n)
    targets = torch.randn(samples, n, device=device)

    def epoch() -> float:
        _sync(device)
        start = time.perf_counter()
        for first in range(0, samples, batch):
            x, y = inputs[first : first + batch], targets[first : first + batch]
            with _autocast(device, bf16):
                loss = relative_l2(model(x).float(), y).mean()
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
        _sync(device)
        return time.perf_counter() - start

    epoch()  # warm-up: allocator, cuFFT plans
    return statistics.median(epoch() for _ in range(repeats))


def ns_step_seconds(
    device: torch.device, *, n: int, batch: int, steps: int, bf16: bool, repeats: int
) -> float:
    """Median wall time (s) of one solver step of a batch."""
    problem = NavierStokesProblem(viscosity=1e-3, time_step=1e-4, resolution=n, t_final=1.0)
    stepper = NavierStokesStepper(problem, device=device, dtype=torch.float32)
    w = torch.fft.rfft2(sample_vorticity_grf(batch, n, seed=0, device=device, dtype=torch.float32))

    def run() -> float:
        state = w.clone()
        _sync(device)
        start = time.perf_counter()
        with torch.no_grad(), _autocast(device, bf16):
            for _ in range(steps):
                stepper.step_(state)
        _sync(device)
        return (time.perf_counter() - start) / steps

    run()
    return statistics.median(run() for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--cpu-fraction",
        type=float,
        default=0.05,
        help="share of the epoch's samples timed on the CPU (then scaled up)",
    )
    parser.add_argument("--dry-run", action="store_true", help="tiny sizes, seconds on a CPU")
    args = parser.parse_args()
    sizes = dict(PAPER)
    if args.dry_run:
        sizes.update(n=256, samples=40, ns_n=32, ns_batch=2)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    ns_steps_solve = round(sizes["ns_T"] / 1e-4)
    results = {"sizes": sizes, "dry_run": args.dry_run, "cases": []}
    for device in devices:
        share = 1.0 if device.type == "cuda" or args.dry_run else args.cpu_fraction
        samples = max(sizes["batch"], round(sizes["samples"] * share))
        for bf16 in (False, True):
            epoch = fno_epoch_seconds(
                device, n=sizes["n"], samples=samples, batch=sizes["batch"], bf16=bf16,
                repeats=args.repeats,
            )  # fmt: skip
            epoch *= sizes["samples"] / samples  # the whole epoch, scaled from the share
            step = ns_step_seconds(
                device, n=sizes["ns_n"], batch=sizes["ns_batch"],
                steps=5 if args.dry_run else 20, bf16=bf16, repeats=args.repeats,
            )  # fmt: skip
            case = {
                "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
                "bf16_autocast": bf16,
                "fno_epoch_s": epoch,
                "fno_epoch_samples_timed": samples,
                "ns_step_s": step,
                "ns_solve_s": step * ns_steps_solve,
                "threads": torch.get_num_threads(),
            }
            results["cases"].append(case)
            print(json.dumps(case))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
