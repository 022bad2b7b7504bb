"""Time one AB2/CN step of the Navier-Stokes solver against the bare FFTs it needs.

A step evaluates the advection term once per batch chunk: a pruned inverse transform of the
stacked ``(u_hat, v_hat)`` pair (``ifft`` along x of the ``kc = (n - 1) // 3 + 1`` retained
columns, then ``irfft`` along y) and one ``rfft2`` of the stacked ``(u v, v^2 - u^2)`` pair, i.e.
4 real 2-D transforms per sample. The baseline makes exactly these calls on the same shapes
and chunks, so ``step_time / fft_time`` measures the overhead of everything else (spectral
products, the CN update, the forcing, Python). For reference the table also shows a plain
unpruned ``irfft2`` + ``rfft2`` of the stacked pair over the whole batch. Measurements are
interleaved in rounds (A, B, C, A, B, C, ...) and summarised by medians because the machine's
speed drifts.

Run by hand, e.g. ``python benchmarks/navier_stokes_vs_fft.py --threads 1``; each ``--case`` is
``RESOLUTIONxBATCH``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, NavierStokesStepper
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _time_steps(stepper: NavierStokesStepper, w_hat: torch.Tensor, steps: int) -> float:
    w = w_hat.clone()
    _sync(stepper.device)
    start = time.perf_counter()
    for _ in range(steps):
        stepper.step_(w)
    _sync(stepper.device)
    return (time.perf_counter() - start) / steps


def _time_ffts(w_hat: torch.Tensor, kc: int, chunk: int | None, steps: int) -> float:
    """The step's transforms (``chunk`` given) or a plain whole-batch pair (``chunk=None``)."""
    n = w_hat.shape[-2]
    size = chunk or w_hat.shape[0]
    spec = torch.stack([w_hat[:size], w_hat[:size]])  # (2, chunk, n, n // 2 + 1)
    low = spec[..., :kc].contiguous()  # (2, chunk, n, kc)
    mixed = torch.empty_like(low)
    phys = torch.empty((*spec.shape[:-1], n), dtype=w_hat.real.dtype, device=w_hat.device)
    spec_out = torch.empty_like(spec)
    n_chunks = -(-w_hat.shape[0] // size)
    _sync(w_hat.device)
    start = time.perf_counter()
    for _ in range(steps):
        for _ in range(n_chunks):  # equal chunks; the step's may differ by one sample
            if chunk:
                torch.fft.ifft(low, dim=-2, out=mixed)
                torch.fft.irfft(mixed, n=n, dim=-1, out=phys)
            else:
                torch.fft.irfft2(spec, s=(n, n), out=phys)
            torch.fft.rfft2(phys, out=spec_out)
    _sync(w_hat.device)
    return (time.perf_counter() - start) / steps


def _measure(n: int, batch: int, args: argparse.Namespace) -> tuple[list[float], ...]:
    dtype = torch.float32 if args.float32 else torch.float64
    problem = NavierStokesProblem(viscosity=1e-3, time_step=1e-4, resolution=n, t_final=1.0)
    stepper = NavierStokesStepper(problem, device=args.device, dtype=dtype)
    if args.chunk is not None:
        stepper.chunk_size = args.chunk or None  # 0: the whole batch at once
    chunk = -(-batch // -(-batch // (stepper.chunk_size or batch)))  # largest near-equal chunk
    w_hat = torch.fft.rfft2(
        sample_vorticity_grf(batch, n, seed=0, device=stepper.device, dtype=dtype)
    )
    steps = max(5, round(args.work / (batch * n * n)))
    times: tuple[list[float], ...] = ([], [], [])
    with torch.no_grad():
        for i in range(args.rounds + 1):  # round 0 is a warm-up: allocator, FFT plans
            results = (
                _time_steps(stepper, w_hat, steps if i else 3),
                _time_ffts(w_hat, stepper.kc, chunk, steps if i else 3),
                _time_ffts(w_hat, stepper.kc, None, steps if i else 3),
            )
            for store, value in zip(times, results, strict=True):
                if i:
                    store.append(value)
    return (*times, [chunk])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs="+", default=["64x20", "256x1", "256x4"])
    parser.add_argument("--work", type=float, default=2e7, help="grid points x steps per round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--chunk", type=int, default=None, help="samples per chunk, 0: batch")
    parser.add_argument("--float32", action="store_true", help="single precision")
    parser.add_argument("--device", default=None, help="default: cuda if available else cpu")
    args = parser.parse_args()

    print(f"device={args.device or 'auto'} float32={args.float32} rounds={args.rounds} (medians)")
    print(
        f"{'n':>5}{'batch':>6}{'chunk':>6}{'thr':>4}{'step [ms]':>11}{'its FFTs [ms]':>15}"
        f"{'ratio':>7}{'plain pair [ms]':>17}{'s/time unit @1e-4':>19}"
    )
    for threads in args.threads:
        torch.set_num_threads(threads)
        for case in args.case:
            n, batch = (int(v) for v in case.lower().split("x"))
            step_t, fft_t, plain_t, (chunk,) = _measure(n, batch, args)
            step, fft, plain = (statistics.median(t) for t in (step_t, fft_t, plain_t))
            print(
                f"{n:>5}{batch:>6}{chunk:>6}{threads:>4}{1e3 * step:>11.3f}{1e3 * fft:>15.3f}"
                f"{step / fft:>7.2f}{1e3 * plain:>17.3f}{step * 1e4:>19.1f}"
            )


if __name__ == "__main__":
    main()
