"""Truth data of forced 2-D turbulence: spun-up DNS vorticity snapshots and their LES pairs.

Forced 2-D turbulence is the test bed of the subgrid closures of issue 17 (docs/references.md):
``w_t + u . grad w + beta v = nu Lap w - mu w + f`` on the ``2 pi`` box with linear drag ``mu``
and the Kolmogorov forcing in both directions, ``f = A (cos(k_f x) + cos(k_f y))`` (forcing kind
``"kolmogorov_xy"`` of :class:`NavierStokesProblem`), integrated by the pseudo-spectral AB2/CN
solver of :mod:`pderepro.solvers.navier_stokes.navier_stokes`.

:func:`spin_up_and_snapshots` runs independent members from random vorticity, discards a spin-up
(keeping its kinetic energy and enstrophy series as evidence of statistical steadiness) and saves
vorticity snapshots; :func:`pderepro.data.turbulence_pairs.filtered_pairs` turns the snapshots
into the LES training pairs ``(w_bar, psi_bar, Pi)``. Truth statistics (spectra, PDF, tails)
live in the evaluation layer (:mod:`pderepro.evaluation.turbulence_truth`), which this layer
may not import.

Parameter presets (:data:`TURBULENCE_PRESETS`), both ``k_f = 4``, ``mu = 0.1``, ``A = 4``, the
two-direction forcing:

- ``"paper"``: ``nu = 1 / Re = 5e-5`` (``Re = 20,000``) at ``1024^2``, the DNS of the paper's
  first case (Guan et al. 2022, Mojgani et al. 2023); not run here (no GPU). ``h = 1e-4``: an
  advective CFL number ``u_max h / dx`` of 0.07 at the peak speed 4.5 measured at 256^2, and
  AB2/CN blew up only above CFL 0.3 in the check below, so peak speeds up to ~18 are covered.
- ``"quick"``: ``nu = 1e-3`` at ``256^2`` (``Re = 1000``). The viscous cutoff scales as
  ``k_nu ~ nu^(-1/2)`` at fixed enstrophy injection, so a grid 4x coarser needs ``nu`` 16x
  larger for the same ``k_max / k_nu`` (``16 x 5e-5 = 8e-4``, enough for the single-direction
  forcing); the two-direction forcing injects twice the enstrophy, and
  ``k_nu ~ (eta / nu^3)^(1/6)`` asks ``2^(1/3)`` more: ``1e-3``, measured below. ``h = 1e-3``
  (CFL 0.10-0.18 with the single-direction forcing, 0.15 at ``t = 30`` with the two-direction
  one).

Evidence (one or two members from the GRF start, pooled snapshots of the second half):

- Two-direction forcing, ``256^2, nu = 8e-4, h = 1e-3`` (the quick preset), 30 time units:
  energy overshoots to 3.1 at ``t = 3.5``, then stays in 1.56-1.90 from ``t = 9``; enstrophy
  14-20; ``sigma(w) = 5.8``. The enstrophy spectrum peaks at ``K = 4`` and is ``1.6e-4`` of the
  peak at ``K = 85`` (``2.2e-3`` at ``K = 42``), twice the single-direction level below (twice
  the injected enstrophy, ``<f^2> = A^2``): marginally resolved, 3.8 decades down. ``nu = 1e-3``
  (``2^(1/3)`` larger, the ``k_nu`` scaling) gives ``8.8e-5``, the single-direction margin.
  ``beta = 20, h = 5e-4``, 15 time units: energy still growing at ``t = 15`` (4.1, zonal jets),
  peak speed 6.4 (CFL 0.13), ``9e-5`` at ``K = 85``.
- Single-direction forcing ``A cos(k_f y)`` (``"kolmogorov"``), ``256^2, nu = 8e-4, h = 1e-3``,
  30 time units: energy ``1/2 <|u|^2>`` overshoots to 1.6 at ``t = 3``, then stays in 0.84-1.24
  from ``t = 6``; enstrophy 7-12; peak speed 2.8-4.5. The spectrum is ``7e-5`` of its peak at
  the 2/3-rule cutoff ``K = 85`` (``1.4e-3`` at ``K = 42``), flattening slightly over the last
  ~8 shells: marginally resolved, far above any LES cutoff (``K <= 32``). ``sigma(w) = 4.5``,
  tail mass beyond ``3 sigma`` 0.010, kurtosis 5.1. With ``h = 2e-3`` (CFL 0.29 at ``t = 4``)
  it blew up before ``t = 5``; with ``nu = 1.6e-3`` the spectrum at ``K = 85`` is ``1e-5`` of
  the peak, with the same shallow last shells: the flattening is the cutoff's, and ``nu = 8e-4``
  keeps the Reynolds number as high as the grid allows. ``beta = 20`` diverged at ``t = 6.1``
  with ``h = 1e-3`` (faster zonal jets): the ``les_turbulence`` study's quick preset steps the
  DNS at ``h = 5e-4`` (its sizes come from ``config/presets``; :data:`TURBULENCE_PRESETS` is
  this module's own, for tests and by-hand runs). ``128^2, nu = 3.2e-3, h = 2e-3``, 100 time
  units: energy within 0.55-1.0 from ``t = 2``, spectrum ``1.8e-4`` of its peak at ``K = 42``.

The forcing is that of the CNN-LES paper the SMARL paper builds on (Guan et al. 2022,
``f = k_f (cos(k_f x) + cos(k_f y))``) and of the group's solver py2d, ``A = k_f``; the SMARL
paper's own equation was not read. The single-direction forcing kept a mean zonal shear (its
``x``-averaged vorticity carried ~40 % of the vorticity variance at ``128^2``), an anisotropic
truth unlike the paper's.

Initial vorticity: :func:`~pderepro.solvers.navier_stokes.torus.sample_vorticity_grf` with the
problem's GRF parameters, drawn on the unit torus and used as grid values on the ``L`` box (so its
correlation length is ``L`` times the unit-torus one); projected onto the solver's 2/3-rule modes,
so the state stays in the Galerkin space the solver advects. The spin-up forgets it.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from typing import Any

import numpy as np
import torch
import xarray as xr

from pderepro.data.conventions import apply_conventions
from pderepro.data.dns_segments import (
    DnsSegment,
    DnsState,
    load_dns_state,
    run_fingerprint,
    save_dns_state,
)
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, NavierStokesStepper
from pderepro.solvers.navier_stokes.torus import (
    dealias_mask,
    default_device,
    sample_vorticity_grf,
    wavenumbers,
)

__all__ = [
    "SOLVER",
    "TURBULENCE_PRESETS",
    "member_seeds",
    "spin_up_and_snapshots",
    "turbulence_problem",
]

log = logging.getLogger(__name__)

#: The ``solver`` attribute of the truth files (selects their CF attributes, see conventions).
SOLVER = "navier_stokes_turbulence_ab2cn"

#: Steps between finiteness checks (each costs a device sync).
_CHECK_EVERY = 100

#: Problem parameters and run lengths of the presets (see the module docstring for the evidence).
#: The energy reaches its statistically steady band about 9 time units after the random start
#: (256^2, two-direction forcing; 6 with the single-direction one at 128^2 and 256^2); the quick
#: spin-up (2 drag times 1 / mu) is twice that, the paper's 10 drag times leaves room for a
#: slower transient at Re = 20,000 (not measured).
TURBULENCE_PRESETS: dict[str, dict[str, Any]] = {
    "quick": {
        "problem": {"resolution": 256, "viscosity": 1e-3, "time_step": 1e-3},
        "spin_up_time": 20.0,
        "snapshot_interval": 1.0,
    },
    "paper": {
        "problem": {"resolution": 1024, "viscosity": 5e-5, "time_step": 1e-4},
        "spin_up_time": 100.0,
        "snapshot_interval": 1.0,
    },
}

#: Shared by the presets: the paper's first case, 2 pi box, k_f = 4 in both directions, linear
#: drag 0.1.
_COMMON = {
    "box_size": 2.0 * math.pi,
    "drag": 0.1,
    "beta": 0.0,
    "forcing_kind": "kolmogorov_xy",
    "forcing_wavenumber": 4,
    "forcing_amplitude": 4.0,
}


def turbulence_problem(preset: str, **overrides: Any) -> NavierStokesProblem:
    """The :class:`NavierStokesProblem` of a preset of :data:`TURBULENCE_PRESETS`.

    ``overrides`` replace any field (e.g. ``resolution=64`` for a test). ``t_final`` and
    ``record_interval`` are not used by :func:`spin_up_and_snapshots` and keep their defaults.
    """
    if preset not in TURBULENCE_PRESETS:
        raise ValueError(f"preset must be one of {sorted(TURBULENCE_PRESETS)}, got {preset!r}")
    fields = {**_COMMON, **TURBULENCE_PRESETS[preset]["problem"], **overrides}
    return NavierStokesProblem(**fields)


def member_seeds(seed: int, n_members: int) -> np.ndarray:
    """Seeds of members ``0 .. n_members - 1``, ``(n_members,)`` uint32.

    Each member's seed depends on ``(seed, member)`` only, so a member can be regenerated alone
    and adding members does not change the existing ones.
    """
    return np.array(
        [np.random.SeedSequence([seed, i]).generate_state(1, dtype=np.uint32)[0] for i in
         range(n_members)],
        dtype=np.uint32,
    )  # fmt: skip


def _whole_steps(duration: float, step: float, what: str, *, allow_zero: bool = False) -> int:
    steps = round(duration / step)
    if (steps < 1 and not (allow_zero and duration == 0)) or abs(steps * step - duration) > (
        1e-9 * max(duration, step)
    ):
        raise ValueError(f"{what}={duration} is not a positive whole number of steps h={step}")
    return steps


class _Budgets:
    """Domain means ``1/2 <|u|^2>`` and ``1/2 <w^2>`` from ``rfft2`` coefficients (Parseval)."""

    def __init__(self, n: int, box_size: float) -> None:
        kx, ky = wavenumbers(n)
        weight = np.full((n, n // 2 + 1), 2.0)  # a stored k_y > 0 column stands for +-k
        weight[:, 0] = weight[:, n // 2] = 1.0  # k_y = 0 and the Nyquist column are their own
        kappa2 = (2.0 * np.pi / box_size) ** 2 * (kx**2 + ky**2)
        inv = np.divide(1.0, kappa2, out=np.zeros_like(kappa2), where=kappa2 > 0)
        scale = 0.5 / float(n) ** 4  # c_k = w_hat / n^2
        self._enstrophy, self._energy = scale * weight, scale * weight * inv

    def __call__(self, w_hat: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """Energy and enstrophy of each member, two ``(batch,)`` float64 arrays."""
        # Summed by numpy on the host: torch's threaded reductions round differently with the
        # thread count, and the series should be as reproducible as the snapshots.
        power = torch.view_as_real(w_hat).square().sum(-1).cpu().numpy().astype(np.float64)
        return (power * self._energy).sum((-2, -1)), (power * self._enstrophy).sum((-2, -1))


def _initial_vorticity(problem: NavierStokesProblem, seeds: np.ndarray) -> torch.Tensor:
    """GRF starts ``(members, n, n)`` float64 on the CPU, restricted to the 2/3-rule modes."""
    n = problem.resolution
    w0 = torch.cat(
        [
            sample_vorticity_grf(
                1, n, scale=problem.grf_scale, shift=problem.grf_shift,
                exponent=problem.grf_exponent, seed=int(s), device="cpu",
            )
            for s in seeds
        ]
    )  # fmt: skip
    mask = torch.as_tensor(dealias_mask(n), dtype=torch.float64)
    return torch.fft.irfft2(torch.fft.rfft2(w0) * mask, s=(n, n))


def _check_finite(w_hat: torch.Tensor, t: float) -> None:
    finite = torch.isfinite(torch.view_as_real(w_hat)).flatten(1).all(dim=1)
    if not bool(finite.all()):
        bad = int(torch.nonzero(~finite)[0, 0])
        raise SolverDivergedError(f"turbulence DNS diverged: member {bad} non-finite at t={t:.6g}")


def spin_up_and_snapshots(
    problem: NavierStokesProblem,
    *,
    n_members: int,
    seed: int,
    spin_up_time: float,
    n_snapshots: int,
    snapshot_interval: float,
    series_interval: float | None = None,
    device: str | torch.device | None = None,
    segment: DnsSegment | None = None,
) -> xr.Dataset | None:
    """Spin forced turbulence up from random vorticity and save vorticity snapshots.

    Each member is one continuous trajectory (one stepper, so the AB2 history runs through the
    spin-up into the snapshots): snapshots at ``t = spin_up_time + j snapshot_interval``,
    ``j = 0 .. n_snapshots - 1``. Bit-for-bit reproducible on one device with one torch thread
    count (the FFTs round differently with the thread count; the statistics do not care).

    Parameters
    ----------
    problem : NavierStokesProblem
        Equation, grid and step ``h`` (e.g. :func:`turbulence_problem`); ``t_final`` and
        ``record_interval`` are ignored.
    n_members : int
        Independent trajectories, each from its own seed (:func:`member_seeds`).
    seed : int
        Base seed.
    spin_up_time : float
        Discarded time before the first snapshot (time units), a whole number of steps (0
        allowed).
    n_snapshots : int
        Snapshots per member, ``>= 1``.
    snapshot_interval : float
        Time between snapshots (time units), a whole number of steps.
    series_interval : float, optional
        Time between energy and enstrophy records (time units), from ``t = 0`` to the last
        snapshot; defaults to ``snapshot_interval``.
    device : str or torch.device, optional
        Solver device; CUDA when available, else CPU. Arithmetic is float64.
    segment : DnsSegment, optional
        A run longer than one job: resume from the earlier jobs' states, stop at a step and
        save (:mod:`pderepro.data.dns_segments`); None: the whole run in this job.

    Returns
    -------
    xarray.Dataset or None
        None from a segment that stops before the run's end (its state is saved). Else
        ``w(member, time, x, y)``: vorticity (1/time), float32, ``w[..., i, j] = w(x_i, y_j)``
        (the solver's layout); ``energy(member, series_time)`` and
        ``enstrophy(member, series_time)``: ``1/2 <|u|^2>`` (length^2/time^2) and
        ``1/2 <w^2>`` (1/time^2), float64. Coordinates ``member``, ``seed(member)``, ``time``,
        ``series_time``, ``x``, ``y``; the problem parameters and run lengths as attributes;
        CF attributes applied; ``dns_wall_seconds``: the stepping's seconds over all jobs.

    Raises
    ------
    SolverDivergedError
        If the state becomes non-finite (checked every 100 steps and at each record).
    """
    if n_members < 1 or n_snapshots < 1:
        raise ValueError(f"need n_members, n_snapshots >= 1, got {n_members}, {n_snapshots}")
    h, n = problem.time_step, problem.resolution
    spin_steps = _whole_steps(spin_up_time, h, "spin_up_time", allow_zero=True)
    snap_steps = _whole_steps(snapshot_interval, h, "snapshot_interval")
    series_interval = snapshot_interval if series_interval is None else series_interval
    series_steps = _whole_steps(series_interval, h, "series_interval")
    total = spin_steps + (n_snapshots - 1) * snap_steps
    segment = segment or DnsSegment()
    last = total if segment.stop is None else int(segment.stop)
    if not 0 <= last <= total or (last < total and segment.save is None):
        raise ValueError(f"a segment stops at a step in [0, {total}] and, before the end, saves")
    fingerprint = run_fingerprint(
        {"problem": _problem_attrs(problem), "members": n_members, "seed": seed,
         "spin_up": spin_steps, "snapshots": n_snapshots, "snap": snap_steps,
         "series": series_steps}
    )  # fmt: skip
    device = default_device(device)
    seeds = member_seeds(seed, n_members)
    stepper = NavierStokesStepper(problem, device=device, dtype=torch.float64)
    budgets = _Budgets(n, problem.box_size)
    series_steps_at = np.arange(0, total + 1, series_steps)
    energy = np.empty((n_members, series_steps_at.size))
    enstrophy = np.empty_like(energy)
    final = last == total
    first, wall, resumed = 0, 0.0, None
    if segment.resume:
        resumed = load_dns_state(segment.resume[-1], fingerprint)
        first = resumed.step + 1
    # this job's snapshots j (at steps spin + j snap in [first, last]): all of the run's in
    # the last job (the earlier jobs' read from their states), else only its own
    own = range(
        max(0, -(-(first - spin_steps) // snap_steps)), (last - spin_steps) // snap_steps + 1
    )
    offset = 0 if final else own.start
    snapshots = np.empty((n_members, n_snapshots if final else len(own), n, n), dtype=np.float32)
    if resumed is not None:
        if final:  # every earlier job's snapshots
            for path in segment.resume[:-1]:
                load_dns_state(path, fingerprint).put_snapshots(snapshots)
            resumed.put_snapshots(snapshots)
        w_hat = resumed.w_hat.to(device)
        stepper.load_advection_state(resumed.advection)
        energy[:], enstrophy[:], wall = resumed.energy, resumed.enstrophy, resumed.wall_s
        del resumed
    else:
        w_hat = torch.fft.rfft2(_initial_vorticity(problem, seeds).to(device))  # (members, n, kc)
    log.info(
        "turbulence DNS: %d members n=%d nu=%g mu=%g k_f=%d A=%g h=%g: steps %d-%d of %d "
        "(spin-up %d)", n_members, n, problem.viscosity, problem.drag,
        problem.forcing_wavenumber, problem.forcing_amplitude, h, first, last, total, spin_steps,
    )  # fmt: skip
    clock = time.perf_counter()
    with torch.no_grad():
        for step in range(first, last + 1):
            if step:
                stepper.step_(w_hat)
            if step % series_steps == 0:
                _check_finite(w_hat, step * h)
                record = step // series_steps
                energy[:, record], enstrophy[:, record] = budgets(w_hat)
            after = step - spin_steps
            if after >= 0 and after % snap_steps == 0:
                _check_finite(w_hat, step * h)
                w = torch.fft.irfft2(w_hat, s=(n, n))
                snapshots[:, after // snap_steps - offset] = w.cpu().numpy()
                log.debug("snapshot t=%g wall=%.1fs", step * h, time.perf_counter() - clock)
            elif step % _CHECK_EVERY == 0:
                _check_finite(w_hat, step * h)
    wall += time.perf_counter() - clock
    log.info("turbulence DNS %s: %.1f s", "done" if final else f"segment to step {last}", wall)
    if not final:
        state = DnsState(step=last, w_hat=w_hat, advection=stepper.advection_state(),
                         energy=energy, enstrophy=enstrophy, wall_s=wall,
                         first_snapshot=own.start, snapshots=snapshots)  # fmt: skip
        save_dns_state(segment.save, state, fingerprint)
        return None
    ds = xr.Dataset(
        {
            "w": (("member", "time", "x", "y"), snapshots),
            "energy": (("member", "series_time"), energy),
            "enstrophy": (("member", "series_time"), enstrophy),
        },
        coords={
            "member": np.arange(n_members),
            "seed": ("member", seeds.astype(np.int64)),
            "time": (spin_steps + snap_steps * np.arange(n_snapshots)) * h,
            "series_time": series_steps_at * h,
            "x": problem.grid,
            "y": problem.grid,
        },
    )
    ds.attrs.update(
        solver=SOLVER,
        solver_dtype="float64",
        base_seed=int(seed),
        spin_up_time=float(spin_up_time),
        snapshot_interval=float(snapshot_interval),
        series_interval=float(series_interval),
        dns_wall_seconds=wall,
        initial_condition="sample_vorticity_grf on the unit torus, used as grid values, "
        "2/3-rule modes",
        **_problem_attrs(problem),
    )
    return apply_conventions(ds)


def _problem_attrs(problem: NavierStokesProblem) -> dict[str, Any]:
    """The problem's fields as NetCDF-safe attributes (minus the unused recording ones)."""
    attrs: dict[str, Any] = {}
    for name, value in dataclasses.asdict(problem).items():
        if name in ("t_final", "record_interval"):
            continue
        if name in ("resolution", "forcing_wavenumber"):
            attrs[name] = int(value)
        else:
            attrs[name] = value if isinstance(value, str) else float(value)
    return attrs
