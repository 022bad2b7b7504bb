"""PDEBench viscous Burgers ``u_t + (u^2 / 2)_x = (nu / pi) u_xx`` on the periodic unit interval.

Method: Fourier pseudo-spectral in space with the 2/3 rule and ETDRK4 in time, by reusing
:class:`~pderepro.solvers.burgers.burgers.BurgersETDRK4` with diffusivity ``eps = nu / pi``, on an
internal grid finer than the saved 1024 cells where ``nu`` demands it. Why this method:

* For ``nu > 0`` the solution is analytic, so a spectral method converges faster than any
  power once the steepest front is resolved, and the result can be checked against exact
  Cole-Hopf solutions to 1e-10. A limited finite-volume scheme is at most second order at
  fronts and would need a finer grid for the same accuracy.
* ETDRK4 integrates the diffusion exactly: at ``nu = 4`` an explicit step would be limited
  to ``dt < 2 / (eps k_max^2) ~ 1e-7`` at 1024 cells; only the nonlinear term sets the step.

Resolution. A viscous front with jump ``du`` has the profile ``tanh(du (x - s) / (4 eps))``,
width ``delta = 4 eps / du``, and Fourier coefficients decaying like ``exp(-pi k delta / 2)``.
By the maximum principle ``|u| <= U = max |u0|`` (``U <= 4``, :data:`SPEED_BOUND
<pderepro.solvers.common.pdebench_ic.SPEED_BOUND>`, for the PDEBench law), so ``du <= 2 U`` and
``delta >= 2 eps / U``. The internal grid is the smallest ``1024 * 2^p`` points with
``points_per_front`` (default 5) points per ``2 eps / U``; the coefficients at the 2/3 cutoff
are then below ``exp(-pi^2 points_per_front / 3) ~ 7e-8`` (measured for ``2 sin(8 pi x)`` at
``nu = 1e-3`` with 5 points per front for ``U = 2``: 1.3e-8 relative). This gives 32768
points at ``nu = 1e-3``, 16384 at 2e-3, 8192 at 4e-3, 4096 at 0.01, 2048 at 0.02 and the
saved 1024 for ``nu >= 0.04``. The grid is offset by half a saved cell, so every
``(internal / 1024)``-th point is a cell centre: the frames are point values at the cell
centres, like the initial frame and the advection data, with no averaging or interpolation.

Time step. The nonlinear term is explicit, so ``dt U k_max <= courant`` (``k_max = 2 pi N / 3``
after dealiasing), rounded down to divide the frame interval 0.01. ``courant = 4`` is stable
(8.6 is not), also for ``max |u0| = 3.996`` (spectral tail below 1e-17). Its time error
against ``courant = 1`` on the same grid, every frame to ``T = 2``, relative to ``max |u0|``,
under the PDEBench law (6 draws, 3 forced ``|.|``, 3 forced windows, and two fields with
``max |u0| = 3.996`` near the bound): at most 1.8e-6 at ``nu = 0.01`` (a bound-near field;
the law's draws 7e-10), 1.4e-7 at 0.1, 1.6e-7 at 1 and 4.0e-7 at 4 (a windowed draw). At
``nu >= 1`` that error sits in the first frame, where the window's edges decay: relative to
``max |u|`` over ``t >= 0.01`` it is 7.6e-7 at ``nu = 1`` and 5.7e-6 at 4 (5.3e-6 the worst
of 30 more forced windows). Measured by ``benchmarks/solver_time_errors.py``. Grid and step
follow from ``nu`` and the bound ``U``, never from the data, so a sample's result does not
depend on the batch it was solved in.

Initial data. An initial condition with ``|.|`` has kinks: its samples on the internal grid
alias an ``O(N^-2)`` error into the low modes, which viscosity does not remove (measured
2.8e-5 relative at ``nu = 0.1``, 1024 points; 2.1e-5 at ``nu = 0.01``, 2048, under the
earlier two-sine law). The formula is therefore sampled 8 times finer and the solve starts
from the internal grid's Fourier modes of those samples: 2.5e-7 and 1.2e-7. The window's
2e-9 periodic mismatch (:mod:`pderepro.solvers.common.pdebench_ic`) adds an error of that size. The
law's wrap-around jump at ``x = 0`` (up to 0.05) is not resolved at ``t = 0`` and leaves a
first-order error ``O(jump / N)`` that the spectral tail (below 1e-17) does not show. Against
a 4 times finer grid, relative to ``max |u0|``: 1.4e-5 at ``nu = 0.1`` over 12 law draws (a
jump of 0.023; 2.8e-7 for the same draws with wavelength 1), and for the draws with jumps
0.014 and 0.023, 2.3e-5 at ``nu = 0.04`` and 4.2e-6 at ``nu = 1``; against a twice finer
grid, 4.1e-6 at ``nu = 0.01`` (4096 points, jump 0.014). The error halves with the spacing,
so a jump of 0.05 gives about 5e-5 at ``nu = 0.04`` by the same measure.

Cost on one CPU core (float64, batch of 8, law draws, on a machine shared with other work):
0.22 s per sample at ``nu = 0.1`` (1024 points, 4400 steps) and 2.5 s at ``nu = 0.01``
(4096 points, 17,200 steps) for 201 frames to ``T = 2``; other ``nu`` scale with points
times steps (:class:`PDEBenchBurgersProblem`), an estimated 3 minutes at ``nu = 1e-3``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from pderepro.solvers.burgers.burgers import BurgersETDRK4

# The problem lives in a torch-free module so that the data specs can size generation jobs
# from its grid and step rule at DAG-build time; re-exported here, where it is solved.
from pderepro.solvers.burgers.viscous_burgers_problem import PDEBenchBurgersProblem
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.common.pdebench_ic import SinesIC, evaluate_initial_conditions

__all__ = [
    "OVERSAMPLE",
    "RELEASED_NUS",
    "BurgersFrames",
    "PDEBenchBurgersProblem",
    "burgers_frames",
    "solve_viscous_burgers",
]

logger = logging.getLogger(__name__)

#: Viscosities ``nu`` of the released PDEBench Burgers data (the coefficient is ``nu / pi``).
RELEASED_NUS = (0.001, 0.002, 0.004, 0.01, 0.02, 0.04, 0.1, 0.2, 0.4, 1.0, 2.0, 4.0)

#: Initial data are sampled this many times finer than the internal grid: ``|.|`` leaves
#: kinks whose aliasing would otherwise put an O(N^-2) error into the low modes.
OVERSAMPLE = 8

#: The spectral tail is measured over the top fifth of the retained (2/3-rule) modes.
_TAIL_FRACTION = 0.8


@dataclass(frozen=True)
class BurgersFrames:
    """Saved frames of a batch of solves.

    Attributes
    ----------
    frames : numpy.ndarray
        ``u`` at the cell centres, shape ``(S, n_frames, n_cells)``, float64 (velocity units).
    spectral_tail : numpy.ndarray
        Per sample, the largest Fourier coefficient in the top fifth of the retained modes
        over frames ``k >= 1``, relative to the largest initial coefficient, shape ``(S,)``:
        an a-posteriori resolution indicator of the fronts, about their relative spatial
        error (1e-7 or less at the default resolution). It does not see the ``O(jump / N)``
        error of the law's wrap-around jump at ``x = 0`` (module docstring).
    """

    frames: np.ndarray
    spectral_tail: np.ndarray


def _tail(v_hat: torch.Tensor, resolution: int) -> torch.Tensor:
    """Largest ``|v_hat|`` over the top fifth of the retained modes, shape ``(S,)``."""
    # Retained modes are m < N / 3 (2/3 rule); their top fifth shows whether the front fits.
    cutoff = math.ceil(resolution / 3.0)
    return v_hat[:, int(_TAIL_FRACTION * cutoff) : cutoff].abs().amax(dim=-1)


def solve_viscous_burgers(
    u0: np.ndarray,
    problem: PDEBenchBurgersProblem,
    *,
    device: str | torch.device | None = None,
) -> BurgersFrames:
    """Solve PDEBench Burgers from initial values on the internal grid.

    Parameters
    ----------
    u0 : numpy.ndarray
        ``u(x, 0)`` at ``problem.sampling_grid(r)``, shape ``(S, r N)`` or ``(r N,)``
        (velocity units); evaluate the initial formula there rather than interpolating saved
        values. With ``r > 1`` the solve starts from the first ``N / 2`` Fourier modes of the
        finer samples, whose aliasing error is ``r^2`` times smaller for initial data with
        kinks (``|.|``); ``r = 1`` (``problem.internal_grid``) is enough for smooth data.
    problem : PDEBenchBurgersProblem
        Viscosity, grids and step.
    device : str or torch.device, optional
        Defaults to CUDA when available, else CPU. Arithmetic is float64.

    Returns
    -------
    BurgersFrames
        Frames at the cell centres (``(S, n_frames, n_cells)``, or ``(n_frames, n_cells)``
        with ``(S,)`` dropped for 1-D ``u0``) and the spectral-tail indicator.

    Raises
    ------
    ValueError
        If ``u0`` has the wrong shape, is not finite, or exceeds ``problem.speed_bound``.
    SolverDivergedError
        If a non-finite value appears; names the first such sample and the frame time.
    """
    u0 = np.asarray(u0, dtype=np.float64)
    squeeze = u0.ndim == 1
    batch = u0[None, :] if squeeze else u0  # (S, r N)
    n = problem.resolution
    if batch.ndim != 2 or batch.shape[1] % n or batch.shape[1] == 0 or batch.shape[0] == 0:
        raise ValueError(f"u0 must have shape (S, r * {n}) or (r * {n},), got {u0.shape}")
    oversample = batch.shape[1] // n
    if not np.all(np.isfinite(batch)):
        raise ValueError("u0 must be finite")
    peak = float(np.abs(batch).max())
    if peak > problem.speed_bound * (1.0 + 1e-12):
        raise ValueError(
            f"max |u0| = {peak:.6g} exceeds speed_bound = {problem.speed_bound:g}, which sets "
            "the grid and the time step; raise speed_bound"
        )
    stepper = BurgersETDRK4(n, problem.diffusivity, problem.time_step, device=device)
    logger.debug(
        "PDEBench Burgers: S=%d nu=%g N=%d dt=%g steps/frame=%d device=%s",
        batch.shape[0],
        problem.nu,
        n,
        problem.time_step,
        problem.steps_per_frame,
        stepper.device,
    )
    frames = np.empty((batch.shape[0], problem.n_frames, problem.n_cells))  # (S, K, n_cells)
    frames[:, 0] = batch[:, :: oversample * problem.stride]
    with torch.no_grad():
        v_hat = torch.fft.rfft(torch.as_tensor(batch, device=stepper.device), dim=-1)
        if oversample > 1:
            # The N-point grid's modes from the finer samples; the Nyquist mode is dropped
            # because a real N-point field cannot carry its sine part (the 2/3 rule excludes
            # it and viscosity damps it within a step).
            v_hat = v_hat[:, : n // 2 + 1] / oversample
            v_hat[:, n // 2] = 0.0
        tail = torch.zeros(batch.shape[0], dtype=torch.float64, device=stepper.device)
        # Relative to the initial spectrum: a field decayed to 1e-40 (nu = 4, T = 2) would
        # otherwise show its round-off as a large ratio.
        scale = v_hat.abs().amax(dim=-1)
        scale = torch.where(scale > 0, scale, 1.0)
        for k in range(1, problem.n_frames):
            for _ in range(problem.steps_per_frame):
                stepper.step_(v_hat)
            u = torch.fft.irfft(v_hat, n=n, dim=-1)[:, :: problem.stride]  # (S, n_cells)
            finite = torch.isfinite(u).all(dim=-1)
            if not bool(finite.all()):
                bad = int(torch.nonzero(~finite)[0, 0])
                raise SolverDivergedError(
                    f"PDEBench Burgers (nu={problem.nu:g}) diverged: non-finite values in "
                    f"sample {bad} at t={k * problem.frame_interval:.6g}"
                )
            frames[:, k] = u.cpu().numpy()
            torch.maximum(tail, _tail(v_hat, n), out=tail)
        tail_np = (tail / scale).cpu().numpy()
    if squeeze:
        return BurgersFrames(frames=frames[0], spectral_tail=tail_np[0])
    return BurgersFrames(frames=frames, spectral_tail=tail_np)


def burgers_frames(
    ics: Sequence[SinesIC],
    problem: PDEBenchBurgersProblem,
    *,
    oversample: int = OVERSAMPLE,
    device: str | torch.device | None = None,
) -> BurgersFrames:
    """Solve PDEBench Burgers for PDEBench initial conditions.

    Parameters
    ----------
    ics : sequence of SinesIC
        ``S`` initial conditions
        (:func:`~pderepro.solvers.common.pdebench_ic.draw_initial_condition`).
    problem : PDEBenchBurgersProblem
        Viscosity, grids and step.
    oversample : int
        The formula is sampled this many times finer than the internal grid (see
        :func:`solve_viscous_burgers`).
    device : str or torch.device, optional
        Where to compute.

    Returns
    -------
    BurgersFrames
        Frames ``(S, n_frames, n_cells)`` and the per-sample spectral tail.
    """
    u0 = evaluate_initial_conditions(ics, problem.sampling_grid(oversample))  # (S, r N)
    return solve_viscous_burgers(u0, problem, device=device)
