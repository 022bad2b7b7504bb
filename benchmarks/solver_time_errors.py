"""Time and resolution errors of the PDEBench Burgers and diffusion-reaction solvers under
the released initial-condition law (:mod:`pderepro.solvers.common.pdebench_ic`).

The figures in the docstrings of :mod:`pderepro.solvers.burgers.viscous_burgers` and
:mod:`pderepro.solvers.reaction_diffusion.diffusion_reaction` come from this script. Samples are
drawn with :func:`~pderepro.solvers.common.pdebench_ic.draw_initial_condition` (seeds ``0, 1, ...``)
in three kinds: ``law`` (as drawn), ``abs`` (drawn, then ``absolute=True``: kinks) and ``window``
(drawn, then ``windowed=True``: tanh edges of width 0.01), plus for Burgers two ``stress`` fields
with ``max |u0| = 3.996``, near the bound 4 that sets grid and step (offsets 3 plus mode 8; offsets
2 plus modes 3 and 4). All on the saved 1024 cells, every frame to the last; errors are
``max |u - u_ref|`` over frames and cells divided by the reference trajectory's ``max |u|`` (which
is ``max |u0|`` for Burgers); column ``t>=0.01`` divides by the max over the frames after the first
instead (a field that decays in the first frame shows a larger figure there).

* ``burgers-time``: Burgers at the default ``courant = 4`` against ``courant = 1`` on the
  same internal grid, at nu in {0.01, 0.1, 1, 4} (``--nus``); also the largest spectral tail
  of the default solves. Errors and tails stay finite and small: courant 4 is stable for
  ``|u0|`` up to the bound.
* ``burgers-space``: the internal grid against twice as fine, at the same time step (the
  coarse grid at ``courant = 2``, the fine one at 4), so the difference is spatial, at
  nu = 0.01 (4096 points) and 0.1 (1024).
* ``burgers-jump``: at nu = 0.1, the default grid against 4 times finer for 12 law draws and
  for the same draws with wavelength 1 (no jump at ``x = 0``): the wrap-around jump, not the
  kinks or the window, sets the spatial error, ``O(jump / N)``.
* ``dr-time``: diffusion-reaction at the default ``STEPS_PER_FRAME`` against 4 times more
  steps, at (nu, rho) = (0.5, 10) and (5, 10), 8 law draws, 4 forced ``|.|``, 4 forced
  windows (``--law``, ``--forced``); values are in [0, 1], so absolute = relative.
* ``burgers-cost``: seconds per sample of the default Burgers solve, batch of 8, one thread.

Run by hand, e.g. ``python benchmarks/solver_time_errors.py --part burgers-time``. Minutes
of one loaded core: burgers-time 4, burgers-space 4, burgers-jump 1.5, dr-time 0.5,
burgers-cost 0.5; ``--part all`` runs them in turn.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

import numpy as np
import torch

from pderepro.solvers.burgers.viscous_burgers import PDEBenchBurgersProblem, burgers_frames
from pderepro.solvers.common.pdebench_ic import (
    LAW_WAVELENGTH,
    SinesIC,
    draw_initial_condition,
    evaluate_initial_conditions,
)
from pderepro.solvers.reaction_diffusion.diffusion_reaction import (
    STEPS_PER_FRAME,
    pdebench_diffusion_reaction_frames,
)

#: ``max |u0| = 3 * 0.999 + 0.999``: three offsets and mode 8, sign -1.
STRESS_OFFSET_MODE8 = SinesIC(
    modes=(0, 0, 0, 8),
    amplitudes=(0.999,) * 4,
    phases=(math.pi / 2,) * 4,
    sign=-1.0,
    wavelength=LAW_WAVELENGTH,
)
#: ``max |u0| = 4 * 0.999``: two offsets and modes 3 and 4 peaking together at ``x = 0``.
STRESS_MODES34 = SinesIC(
    modes=(0, 0, 3, 4),
    amplitudes=(0.999,) * 4,
    phases=(math.pi / 2,) * 4,
    wavelength=LAW_WAVELENGTH,
)


def samples(n_law: int, n_forced: int, *, stress: bool) -> tuple[list[str], list[SinesIC]]:
    """Kinds and initial conditions: law draws (seeds ``0..``), forced ``|.|``, forced
    window, and the two stress fields if ``stress``."""
    out = [("law", draw_initial_condition(np.random.default_rng(s))) for s in range(n_law)]
    for kind, flag in (("abs", "absolute"), ("window", "windowed")):
        for s in range(n_forced):
            ic = draw_initial_condition(np.random.default_rng(1000 + s))
            out.append((kind, dataclasses.replace(ic, **{flag: True})))
    if stress:
        out += [("stress", STRESS_OFFSET_MODE8), ("stress", STRESS_MODES34)]
    return [k for k, _ in out], [ic for _, ic in out]


def relative_errors(u: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample ``max |u - ref|`` over frames and cells, shape ``(S,)``, divided by
    ``max |ref|`` over the whole trajectory (``max |u0|``) and over frames ``k >= 1``."""
    err = np.abs(u - ref).max(axis=(1, 2))  # (S,)
    return err / np.abs(ref).max(axis=(1, 2)), err / np.abs(ref[:, 1:]).max(axis=(1, 2))


def burgers_errors(
    ics: list[SinesIC], problem: PDEBenchBurgersProblem, reference: PDEBenchBurgersProblem
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`relative_errors` of the solves of ``ics`` under ``problem`` against those
    under ``reference``, and the spectral tails of the former, all ``(S,)``."""
    run = burgers_frames(ics, problem, device="cpu")
    ref = burgers_frames(ics, reference, device="cpu").frames
    return *relative_errors(run.frames, ref), run.spectral_tail


def _worst_by_kind(kinds: list[str], values: np.ndarray) -> str:
    parts = []
    for kind in dict.fromkeys(kinds):
        mask = np.array([k == kind for k in kinds])
        idx = int(np.flatnonzero(mask)[np.argmax(values[mask])])
        parts.append(f"{kind} {values[idx]:.1e} (#{idx})")
    return ", ".join(parts)


def burgers_time(nus: tuple[float, ...], n_law: int, n_forced: int) -> None:
    """Courant 4 against courant 1, same internal grid, per nu."""
    kinds, ics = samples(n_law, n_forced, stress=True)
    peak = np.abs(evaluate_initial_conditions(ics, np.linspace(0, 1, 8192, endpoint=False)))
    print(f"Burgers, courant 4 vs 1: {len(ics)} samples, max |u0| = {peak.max():.3f}")
    print(
        f"{'nu':>6}{'N':>7}{'steps/frame':>13}{'worst':>10}{'t>=0.01':>10}{'tail(c4)':>10}"
        "  worst per kind"
    )
    for nu in nus:
        default = PDEBenchBurgersProblem(nu=nu)
        fine = dataclasses.replace(default, courant=1.0)
        err, err_late, tail = burgers_errors(ics, default, fine)
        print(
            f"{nu:>6g}{default.resolution:>7}{default.steps_per_frame:>13}{err.max():>10.1e}"
            f"{err_late.max():>10.1e}{tail.max():>10.1e}  {_worst_by_kind(kinds, err)}"
        )


def burgers_space(nus: tuple[float, ...], n_law: int, n_forced: int) -> None:
    """Internal grid against twice as fine, same step; the stress fields included."""
    kinds, ics = samples(n_law, n_forced, stress=True)
    print(f"Burgers, internal grid N vs 2N at one time step: {len(ics)} samples")
    print(f"{'nu':>6}{'N':>7}{'worst':>10}{'t>=0.01':>10}{'tail(N)':>10}  worst per kind")
    for nu in nus:
        default = PDEBenchBurgersProblem(nu=nu)
        n = default.resolution
        coarse = dataclasses.replace(default, courant=2.0)
        fine = dataclasses.replace(default, internal_resolution=2 * n)
        assert coarse.steps_per_frame == fine.steps_per_frame
        err, err_late, tail = burgers_errors(ics, coarse, fine)
        print(
            f"{nu:>6g}{n:>7}{err.max():>10.1e}{err_late.max():>10.1e}{tail.max():>10.1e}  "
            f"{_worst_by_kind(kinds, err)}"
        )


def burgers_jump(nu: float, n_law: int) -> None:
    """Default grid against 4 times finer for law draws, and for the same draws with
    wavelength 1 (no wrap-around jump), to attribute the spatial error to the jump; the
    last column is the worst law draw's jump."""
    law = [draw_initial_condition(np.random.default_rng(s)) for s in range(n_law)]
    twins = [dataclasses.replace(ic, wavelength=1.0) for ic in law]
    ends = np.array([1e-12, 1.0 - 1e-12])
    jump = np.abs(np.diff(evaluate_initial_conditions(law, ends), axis=1))[:, 0]  # (S,)
    default = PDEBenchBurgersProblem(nu=nu)
    fine = dataclasses.replace(default, internal_resolution=4 * default.resolution)
    errors = [burgers_errors(ics, default, fine)[0] for ics in (law, twins)]
    print(
        f"Burgers nu = {nu:g}, internal grid {default.resolution} vs {fine.resolution}, "
        f"{n_law} law draws (largest jump at x = 0: {jump.max():.3f})"
    )
    worst = int(np.argmax(errors[0]))
    print(f"{'law':>10}{'wavelength 1':>14}{'its jump':>10}")
    print(f"{errors[0].max():>10.1e}{errors[1].max():>14.1e}{jump[worst]:>10.3f}")


def dr_time(params: tuple[tuple[float, float], ...], n_law: int, n_forced: int) -> None:
    """Default Strang steps against 4 times more."""
    kinds, ics = samples(n_law, n_forced, stress=False)
    print(f"Diffusion-reaction, {STEPS_PER_FRAME} vs {4 * STEPS_PER_FRAME} steps per frame")
    print(f"{'nu':>6}{'rho':>6}{'worst':>10}  worst per kind")
    for nu, rho in params:
        u = pdebench_diffusion_reaction_frames(ics, nu, rho)
        ref = pdebench_diffusion_reaction_frames(ics, nu, rho, steps_per_frame=4 * STEPS_PER_FRAME)
        err = np.abs(u - ref).max(axis=(1, 2))  # values in [0, 1]
        print(f"{nu:>6g}{rho:>6g}{err.max():>10.1e}  {_worst_by_kind(kinds, err)}")


def burgers_cost(nus: tuple[float, ...], batch: int) -> None:
    """Seconds per sample of the default solve (the law's first ``batch`` draws)."""
    ics = [draw_initial_condition(np.random.default_rng(s)) for s in range(batch)]
    print(f"Burgers cost, batch {batch}, {torch.get_num_threads()} thread(s), float64 CPU")
    print(f"{'nu':>6}{'N':>7}{'steps':>8}{'s/sample':>10}")
    for nu in nus:
        problem = PDEBenchBurgersProblem(nu=nu)
        start = time.perf_counter()
        burgers_frames(ics, problem, device="cpu")
        per_sample = (time.perf_counter() - start) / batch
        steps = problem.steps_per_frame * (problem.n_frames - 1)
        print(f"{nu:>6g}{problem.resolution:>7}{steps:>8}{per_sample:>10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--part",
        choices=("burgers-time", "burgers-space", "burgers-jump", "dr-time", "burgers-cost", "all"),
        default="all",
    )
    parser.add_argument("--law", type=int, default=6, help="law samples (dr-time: 8)")
    parser.add_argument("--forced", type=int, default=3, help="forced |.| and window each")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument(
        "--nus", type=float, nargs="+", default=[0.01, 0.1, 1.0, 4.0], help="burgers-time"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.part in ("burgers-time", "all"):
        burgers_time(tuple(args.nus), args.law, args.forced)
    if args.part in ("burgers-space", "all"):
        burgers_space((0.01, 0.1), max(2, args.law // 2), max(1, args.forced // 2))
    if args.part in ("burgers-jump", "all"):
        burgers_jump(0.1, 2 * args.law)
    if args.part in ("dr-time", "all"):
        dr_time(((0.5, 10.0), (5.0, 10.0)), max(8, args.law), max(4, args.forced))
    if args.part in ("burgers-cost", "all"):
        burgers_cost((0.01, 0.1), 8)


if __name__ == "__main__":
    main()
