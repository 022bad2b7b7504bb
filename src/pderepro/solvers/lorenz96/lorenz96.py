"""Two-scale Lorenz-96 system (Lorenz 1996) with a fast batched RK4 integrator.

``K`` slow variables ``X_k`` are each coupled to ``J`` fast variables ``Y_{j,k}``; all indices
are periodic, and the fast variables form one ring of length ``K J`` (``Y_{j,k}`` at position
``k J + j``)::

    dX_k/dt     = -X_{k-1} (X_{k-2} - X_{k+1}) - X_k + F - (h c / b) sum_j Y_{j,k}
    dY_{j,k}/dt = -c b Y_{j+1,k} (Y_{j+2,k} - Y_{j-1,k}) - c Y_{j,k} + (h c / b) X_k

The closure target of parametrisation studies is the subgrid tendency
``U_k = -(h c / b) sum_j Y_{j,k}``. Without forcing and damping the advection and the coupling
exchange energy but conserve ``sum X^2 + sum Y^2``, which the verification uses.

The integrator fuses the tendency evaluation and the RK4 update per trajectory in a numba
kernel parallel over trajectories (no temporaries per stage). numba is optional: it is imported
on first use, and without it a vectorised numpy implementation is used (a few times slower).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from pderepro.solvers.common.checks import check_count, check_real
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.lorenz96.kernel import _numba_kernel

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Lorenz96Problem:
    """Parameters of the two-scale Lorenz-96 system (model time units throughout).

    Attributes
    ----------
    K : int
        Number of slow variables (at least 4, so the stencil ``k-2 .. k+1`` is distinct).
    J : int
        Fast variables per slow variable.
    forcing : float
        Constant forcing ``F``.
    h : float
        Coupling strength (0 decouples the scales).
    b : float
        Spatial-scale ratio of slow to fast variables (positive).
    c : float
        Time-scale ratio of fast to slow variables (positive).
    time_step : float
        RK4 step (time units).
    damping : bool
        Include the linear damping terms ``-X_k`` and ``-c Y_{j,k}``. A verification switch:
        with ``damping=False`` and ``forcing=0`` the quadratic invariant is conserved.
    """

    K: int = 8
    J: int = 32
    forcing: float = 20.0
    h: float = 1.0
    b: float = 10.0
    c: float = 10.0
    time_step: float = 0.001
    damping: bool = True

    def __post_init__(self) -> None:
        check_count("K", self.K, 4)
        check_count("J", self.J, 1)
        for name in ("forcing", "h", "b", "c", "time_step"):
            check_real(name, getattr(self, name), positive=name not in ("forcing", "h"))
        if not isinstance(self.damping, bool | np.bool_):
            raise ValueError(f"damping must be a bool, got {self.damping!r}")

    @property
    def coupling(self) -> float:
        """Coupling coefficient ``h c / b``."""
        return self.h * self.c / self.b

    @property
    def n_fast(self) -> int:
        """Length ``K J`` of the fast-variable ring."""
        return self.K * self.J


@dataclass(frozen=True)
class Lorenz96Solution:
    """Output of :func:`integrate`; ``n_saved = n_steps // save_every``.

    Attributes
    ----------
    times : numpy.ndarray
        Save times (time units), shape ``(n_saved,)``.
    x : numpy.ndarray
        Slow variables at the save times, shape ``(batch, n_saved, K)``.
    y : numpy.ndarray or None
        Fast variables at the save times, shape ``(batch, n_saved, K, J)``; None unless
        ``store_fast``.
    subgrid : numpy.ndarray
        Subgrid tendency ``U = -(h c / b) sum_j Y`` at the save times, shape
        ``(batch, n_saved, K)``.
    x_final, y_final : numpy.ndarray
        State after all ``n_steps`` steps, shapes ``(batch, K)`` and ``(batch, K, J)``, to
        continue the run.
    """

    times: np.ndarray
    x: np.ndarray
    y: np.ndarray | None
    subgrid: np.ndarray
    x_final: np.ndarray
    y_final: np.ndarray


def whole_steps(duration: float, dt: float, *, what: str) -> int:
    """Whole number of steps of ``dt`` in ``duration``; ValueError naming ``what`` otherwise."""
    n = round(duration / dt)
    if n < 1 or not math.isclose(n * dt, duration, rel_tol=1e-9):
        raise ValueError(f"{what}={duration} is not a whole number of steps of {dt}")
    return n


def _check_shapes(x: np.ndarray, y: np.ndarray, problem: Lorenz96Problem) -> None:
    if x.ndim < 1 or x.shape[-1] != problem.K:
        raise ValueError(f"x must have shape (..., {problem.K}), got {x.shape}")
    if y.shape != (*x.shape, problem.J):
        raise ValueError(f"y must have shape {(*x.shape, problem.J)}, got {y.shape}")


def tendencies(
    x: np.ndarray, y: np.ndarray, problem: Lorenz96Problem
) -> tuple[np.ndarray, np.ndarray]:
    """Time derivatives of the two-scale system (vectorised numpy reference).

    Parameters
    ----------
    x : numpy.ndarray
        Slow variables, shape ``(..., K)``, e.g. ``(batch, K)``.
    y : numpy.ndarray
        Fast variables, shape ``(..., K, J)``.
    problem : Lorenz96Problem
        Parameters.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``dX/dt`` with the shape of ``x`` and ``dY/dt`` with the shape of ``y`` (1/time),
        float64.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    _check_shapes(x, y, problem)
    ring = y.reshape(*x.shape[:-1], problem.n_fast)  # (..., K J)
    coupling = problem.coupling
    # np.roll(a, s)[i] = a[i - s]. The operation order matches the numba kernel.
    dx = -np.roll(x, 1, axis=-1) * (np.roll(x, 2, axis=-1) - np.roll(x, -1, axis=-1))
    dy = -problem.c * problem.b * np.roll(ring, -1, axis=-1)
    dy *= np.roll(ring, -2, axis=-1) - np.roll(ring, 1, axis=-1)
    if problem.damping:
        dx -= x
        dy -= problem.c * ring
    dx += problem.forcing
    dx -= coupling * y.sum(axis=-1)
    dy += coupling * np.repeat(x, problem.J, axis=-1)  # (..., K J), X_k repeated J times
    return dx, dy.reshape(y.shape)


def subgrid_tendency(y: np.ndarray, problem: Lorenz96Problem) -> np.ndarray:
    """Subgrid tendency ``U_k = -(h c / b) sum_j Y_{j,k}``.

    Parameters
    ----------
    y : numpy.ndarray
        Fast variables, shape ``(..., K, J)``.
    problem : Lorenz96Problem
        Parameters (for ``h c / b``).

    Returns
    -------
    numpy.ndarray
        Shape ``(..., K)`` (units of ``dX/dt``), float64.
    """
    return -problem.coupling * np.asarray(y, dtype=np.float64).sum(axis=-1)


def quadratic_invariant(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Energy ``sum_k X_k^2 + sum_{j,k} Y_{j,k}^2`` per trajectory.

    Conserved by the advection and coupling terms (``forcing=0``, ``damping=False``).

    Parameters
    ----------
    x : numpy.ndarray
        Slow variables, shape ``(..., K)``.
    y : numpy.ndarray
        Fast variables, shape ``(..., K, J)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(...)``, float64.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return np.sum(x * x, axis=-1) + np.sum(y * y, axis=(-2, -1))


def _rk4_numpy(x: np.ndarray, y: np.ndarray, n_steps: int, problem: Lorenz96Problem) -> None:
    """Advance ``x`` (batch, K) and ``y`` (batch, K, J) by ``n_steps`` RK4 steps, in place."""
    dt = problem.time_step
    half, third, sixth = 0.5 * dt, dt / 3.0, dt / 6.0
    for _ in range(n_steps):
        # Same stage arithmetic as the numba kernel, so the two agree to round-off.
        dx, dy = tendencies(x, y, problem)
        xa, ya = x + sixth * dx, y + sixth * dy
        dx, dy = tendencies(x + half * dx, y + half * dy, problem)
        xa += third * dx
        ya += third * dy
        dx, dy = tendencies(x + half * dx, y + half * dy, problem)
        xa += third * dx
        ya += third * dy
        dx, dy = tendencies(x + dt * dx, y + dt * dy, problem)
        x[...] = xa + sixth * dx
        y[...] = ya + sixth * dy


def _check_finite(x: np.ndarray, y: np.ndarray, time: float, step: int, n_steps: int) -> None:
    finite = np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)  # (batch,)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise SolverDivergedError(
            f"Lorenz-96 integration diverged: non-finite values in trajectory {bad} detected "
            f"at t={time:.6g} (step {step} of {n_steps})"
        )


def integrate(
    x0: np.ndarray,
    y0: np.ndarray,
    problem: Lorenz96Problem,
    *,
    n_steps: int,
    save_every: int,
    store_fast: bool = True,
    t0: float = 0.0,
    backend: str = "auto",
    progress: bool = False,
    device: str | None = None,
) -> Lorenz96Solution:
    """Integrate a batch of trajectories with classical RK4 at ``problem.time_step``.

    Parameters
    ----------
    x0 : numpy.ndarray
        Initial slow variables, shape ``(batch, K)``.
    y0 : numpy.ndarray
        Initial fast variables, shape ``(batch, K, J)``.
    problem : Lorenz96Problem
        Parameters and step.
    n_steps : int
        Number of RK4 steps (non-negative).
    save_every : int
        Steps between saved states; the states after ``save_every, 2 save_every, ...`` steps
        are saved (``n_steps // save_every`` of them); leftover steps are still taken.
    store_fast : bool
        Keep the fast variables at the save times (``K J`` values per state); long truth runs
        usually only need ``x`` and ``subgrid``.
    t0 : float
        Time of the initial state (time units); only labels ``times`` and error messages.
    backend : {"auto", "numba", "numpy"}
        "auto" uses numba when installed, else numpy with a logged warning.
    progress : bool
        Show a tqdm progress bar over save points (on stderr).
    device : str, optional
        Only None or "cpu": the integrator runs on CPU cores (numba threads follow
        ``NUMBA_NUM_THREADS`` / ``numba.set_num_threads``).

    Returns
    -------
    Lorenz96Solution
        Saved states, subgrid tendencies and the final state, float64.

    Raises
    ------
    SolverDivergedError
        If a non-finite value appears (checked at save points and at the end); the message
        names the first offending trajectory and the time of detection.
    """
    if device is not None and str(device) != "cpu":
        raise ValueError(f"the Lorenz-96 integrator runs on CPU only, got device={device!r}")
    if backend not in ("auto", "numba", "numpy"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}")
    if int(n_steps) != n_steps or n_steps < 0:
        raise ValueError(f"n_steps must be a non-negative integer, got {n_steps!r}")
    if int(save_every) != save_every or save_every < 1:
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    n_steps, save_every = int(n_steps), int(save_every)
    x0 = np.asarray(x0, dtype=np.float64)
    y0 = np.asarray(y0, dtype=np.float64)
    if x0.ndim != 2:
        raise ValueError(f"x0 must have shape (batch, {problem.K}), got {x0.shape}")
    _check_shapes(x0, y0, problem)

    kernel = None if backend == "numpy" else _numba_kernel()
    if kernel is None and backend == "numba":
        raise ImportError("backend='numba' requested but numba is not installed")
    batch, K, J = x0.shape[0], problem.K, problem.J
    x = np.ascontiguousarray(x0.copy())  # (batch, K), advanced in place
    y = np.ascontiguousarray(y0.copy())  # (batch, K, J); the kernel sees it as (batch, K J)
    ring = y.reshape(batch, K * J)

    def advance(steps: int) -> None:
        if kernel is None:
            _rk4_numpy(x, y, steps, problem)
        else:
            kernel(
                x, ring, steps, K, J, float(problem.forcing), problem.coupling,
                problem.c * problem.b, float(problem.c) if problem.damping else 0.0,
                1.0 if problem.damping else 0.0, problem.time_step,
            )  # fmt: skip

    n_saved = n_steps // save_every
    dt = problem.time_step
    xs = np.empty((batch, n_saved, K))
    subgrid = np.empty((batch, n_saved, K))
    ys = np.empty((batch, n_saved, K, J)) if store_fast else None
    logger.debug(
        "Lorenz-96 RK4: batch=%d K=%d J=%d dt=%g steps=%d save_every=%d backend=%s",
        batch, K, J, dt, n_steps, save_every, "numpy" if kernel is None else "numba",
    )  # fmt: skip
    for s in tqdm(range(n_saved), disable=not progress, desc="lorenz96", unit="save"):
        advance(save_every)
        step = (s + 1) * save_every
        _check_finite(x, ring, t0 + step * dt, step, n_steps)
        xs[:, s] = x
        subgrid[:, s] = subgrid_tendency(y, problem)
        if ys is not None:
            ys[:, s] = y
    if n_steps > n_saved * save_every:
        advance(n_steps - n_saved * save_every)
        _check_finite(x, ring, t0 + n_steps * dt, n_steps, n_steps)
    times = t0 + dt * save_every * np.arange(1, n_saved + 1, dtype=np.float64)
    return Lorenz96Solution(times=times, x=xs, y=ys, subgrid=subgrid, x_final=x, y_final=y)


def attractor_state(
    problem: Lorenz96Problem, *, trajectories: int = 4, spin_up_time: float = 2.0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """States on (near) the attractor: random start, then a spin-up at ``problem.time_step``.

    Parameters
    ----------
    problem : Lorenz96Problem
        Parameters and step of the spin-up.
    trajectories : int
        Number of independent states.
    spin_up_time : float
        Spin-up duration (time units), a whole number of steps.
    seed : int
        Seed of the random start ``X ~ U(0, F)``, ``Y ~ N(0, 0.1^2)``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``x`` of shape ``(trajectories, K)`` and ``y`` of shape ``(trajectories, K, J)``.
    """
    rng = np.random.default_rng(seed)
    x0 = abs(problem.forcing) * rng.random((trajectories, problem.K))
    y0 = 0.1 * rng.standard_normal((trajectories, problem.K, problem.J))
    n = whole_steps(spin_up_time, problem.time_step, what="spin_up_time")
    run = integrate(x0, y0, problem, n_steps=n, save_every=n, store_fast=False)
    return run.x_final, run.y_final
