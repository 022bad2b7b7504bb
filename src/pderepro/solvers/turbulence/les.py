"""LES of 2-D vorticity on a coarse grid: the Navier-Stokes stepper plus a subgrid closure.

Solves ``w_t + u . grad w + beta v = nu Lap w - mu w + f - Pi(w)`` on the LES grid, with
``Pi`` from a :class:`~pderepro.solvers.turbulence.les_closures.Closure` (sign of
:mod:`pderepro.solvers.turbulence.les_filters`). The numerics are those of
:class:`~pderepro.solvers.navier_stokes.navier_stokes.NavierStokesStepper` (AB2/CN, 2/3 rule); the
closure term is explicit and joins the advection term in the Adams-Bashforth part::

    (1 + h a / 2) w^{n+1} = (1 - h a / 2) w^n + h (f - 3/2 (N + Pi)^n + 1/2 (N + Pi)^{n-1}),

with ``Pi`` truncated to the 2/3-rule modes like ``N`` (so the closure acts on the advected
modes only). An eddy viscosity treated explicitly (AB2, stable for ``h lambda`` in [-1, 0] on
the negative real axis) limits the step to roughly ``h < Delta^2 / (8.8 nu_e)`` (the largest
2/3-rule ``kappa^2`` is about ``8.8 / Delta^2``); the runs flag rather than raise when that or
anything else blows up (:func:`run_les`). With
:class:`~pderepro.solvers.turbulence.les_closures.NoClosure` the hook is skipped, so the unclosed
LES is the plain solver, bit for bit and at its cost.

The stepper processes the whole batch at once (no CPU chunking): a closure sees ``(batch, n, n)``
so that per-sample or per-point coefficient fields line up, and LES grids are small.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch

from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesStepper
from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.solvers.navier_stokes.torus import dealias_mask, default_device
from pderepro.solvers.turbulence.les_closures import Closure, NoClosure

__all__ = ["BLOWUP_FACTOR", "LesRun", "LesStepper", "run_les"]

#: Default blow-up threshold: this many times the largest ``|w0|`` of the batch.
BLOWUP_FACTOR = 100.0


class LesStepper(NavierStokesStepper):
    """AB2/CN stepper of ``problem`` (on the LES grid) with the explicit closure term ``-Pi``.

    Parameters
    ----------
    problem : NavierStokesProblem
        The LES problem: ``resolution`` is the LES grid, ``box_size`` the box ``L``; the
        forcing is taken as given (for a Gaussian filter pass the filtered amplitude).
    closure : Closure
        ``closure(w, box_size) -> Pi`` on ``(batch, n, n)``; may be changed between steps.
        :meth:`nonlinear_hat` then returns the transform of ``N + Pi`` (2/3-rule modes).
    device, dtype
        As for :class:`~pderepro.solvers.navier_stokes.navier_stokes.NavierStokesStepper`.
    """

    def __init__(
        self, problem: NavierStokesProblem, closure: Closure, *,
        device: str | torch.device | None = None, dtype: torch.dtype = torch.float64,
    ) -> None:  # fmt: skip
        super().__init__(problem, device=device, dtype=dtype, chunk_size=sys.maxsize)
        self.closure = closure
        mask = torch.as_tensor(dealias_mask(self.resolution)[:, : self.kc], device=self.device)
        # The stepper stores K = -3/2 b N_hat on the retained columns; Pi enters like N.
        self._c_pi = -1.5 * self._b * mask.to(self._b.dtype)  # (n, kc)

    def _advection(
        self, w_hat: torch.Tensor, k_new: torch.Tensor, *, forcing: bool = True
    ) -> torch.Tensor:
        super()._advection(w_hat, k_new, forcing=forcing)
        if isinstance(self.closure, NoClosure):
            return k_new
        n = self.resolution
        w = torch.fft.irfft2(w_hat, s=(n, n))  # (batch, n, n)
        pi_hat = torch.fft.rfft2(self.closure(w, self.problem.box_size))[..., : self.kc]
        k_new.addcmul_(pi_hat, self._c_pi)
        return k_new


@dataclass
class LesRun:
    """Result of :func:`run_les`.

    Attributes
    ----------
    vorticity : torch.Tensor
        ``(batch, n_records + 1, n, n)`` at ``problem.record_times``; NaN from the first record
        after a sample's blow-up.
    blown_up : numpy.ndarray
        ``(batch,)`` bool.
    blowup_time : numpy.ndarray
        ``(batch,)`` time of detection (time units), NaN where none.
    wall_time : float
        Seconds spent stepping.
    """

    vorticity: torch.Tensor
    blown_up: np.ndarray
    blowup_time: np.ndarray
    wall_time: float

    @property
    def n_blowups(self) -> int:
        """Number of samples that blew up."""
        return int(self.blown_up.sum())


def run_les(
    w0: torch.Tensor | np.ndarray,
    problem: NavierStokesProblem,
    closure: Closure,
    *,
    blowup_threshold: float | None = None,
    check_every: int = 10,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
) -> LesRun:
    """Integrate the LES from ``w0``, recording every ``problem.record_interval``.

    A sample blows up when ``max |w|`` exceeds ``blowup_threshold`` or is not finite (checked
    every ``check_every`` steps and at each record). That is counted, not raised: its later
    records are NaN and the other samples go on (samples do not interact); the run stops early
    once every sample has blown up.

    Parameters
    ----------
    w0 : torch.Tensor or numpy.ndarray
        Initial resolved vorticity (1/time), ``(batch, n, n)``, ``n = problem.resolution``.
    problem : NavierStokesProblem
        The LES problem (see :class:`LesStepper`).
    closure : Closure
        Subgrid closure.
    blowup_threshold : float, optional
        Vorticity bound (1/time); default ``BLOWUP_FACTOR * max |w0|`` (only non-finite
        values count when ``w0 = 0``).
    check_every : int
        Steps between blow-up checks.
    device, dtype
        Where and in which precision to compute.

    Returns
    -------
    LesRun
    """
    device = default_device(device)
    w = torch.as_tensor(w0).to(device=device, dtype=dtype)
    n = problem.resolution
    if w.ndim != 3 or tuple(w.shape[1:]) != (n, n):
        raise ValueError(f"w0 must have shape (batch, {n}, {n}), got {tuple(w.shape)}")
    if blowup_threshold is None:
        peak = float(w.abs().max())
        blowup_threshold = BLOWUP_FACTOR * peak if peak > 0 else math.inf  # then: non-finite
    batch, h = w.shape[0], problem.time_step
    stepper = LesStepper(problem, closure, device=device, dtype=dtype)
    out = torch.full((batch, problem.n_records + 1, n, n), math.nan, dtype=dtype, device=device)
    out[:, 0] = w
    blown = np.zeros(batch, dtype=bool)
    blowup_time = np.full(batch, np.nan)

    def check(w_now: torch.Tensor, t: float) -> None:
        peak = w_now.abs().amax(dim=(1, 2))
        bad = (~torch.isfinite(peak) | (peak > blowup_threshold)).cpu().numpy() & ~blown
        blowup_time[bad] = t
        blown[bad] = True

    start = time.perf_counter()
    with torch.no_grad():
        w_hat = torch.fft.rfft2(w)  # (batch, n, n // 2 + 1)
        step = 0
        for record in range(1, problem.n_records + 1):
            for _ in range(problem.steps_per_record):
                stepper.step_(w_hat)
                step += 1
                if step % check_every == 0:
                    check(torch.fft.irfft2(w_hat, s=(n, n)), step * h)
            w_now = torch.fft.irfft2(w_hat, s=(n, n))
            check(w_now, step * h)
            keep = torch.as_tensor(~blown, device=device)
            out[keep, record] = w_now[keep]
            if blown.all():
                break
    return LesRun(out, blown, blowup_time, time.perf_counter() - start)
