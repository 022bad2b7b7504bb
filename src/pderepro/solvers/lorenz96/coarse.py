"""The coarse (X-only) Lorenz-96 model that learned closures are coupled into.

``dX_k/dt = -X_{k-1} (X_{k-2} - X_{k+1}) - X_k + F + U_k``, with ``U`` supplied by a
closure (zero for the X-only model). Vectorised numpy over any leading batch shape; the
forcing may differ per trajectory, so one batch can hold several setups.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: A closure's deterministic part: X (batch, K) -> U (batch, K), both float64.
Tendency = Callable[[np.ndarray], np.ndarray]


def resolved_tendency(x: np.ndarray, forcing: float | np.ndarray) -> np.ndarray:
    """X-only tendency ``-X_{k-1} (X_{k-2} - X_{k+1}) - X_k + F`` (1/time).

    Parameters
    ----------
    x : numpy.ndarray
        Slow variables, shape ``(..., K)``.
    forcing : float or numpy.ndarray
        ``F``; an array must broadcast against ``x`` (e.g. shape ``(batch, 1)``).

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, float64.
    """
    # np.roll(a, s)[k] = a[k - s]
    return (
        -np.roll(x, 1, axis=-1) * (np.roll(x, 2, axis=-1) - np.roll(x, -1, axis=-1)) - x + forcing
    )


def coarse_rk4_step(
    x: np.ndarray,
    forcing: float | np.ndarray,
    dt: float,
    closure: Tendency | None = None,
    noise: np.ndarray | None = None,
) -> np.ndarray:
    """One classical RK4 step of the coarse model.

    Parameters
    ----------
    x : numpy.ndarray
        State, shape ``(batch, K)``.
    forcing : float or numpy.ndarray
        ``F`` (scalar or ``(batch, 1)``).
    dt : float
        Step (time units).
    closure : callable, optional
        Deterministic closure ``U(X)``, evaluated at every RK4 stage; None for X only.
    noise : numpy.ndarray, optional
        Additive stochastic tendency ``(batch, K)``, held fixed over the step.

    Returns
    -------
    numpy.ndarray
        State after ``dt``, shape ``(batch, K)``.
    """

    def rate(state: np.ndarray) -> np.ndarray:
        out = resolved_tendency(state, forcing)
        if closure is not None:
            out += closure(state)
        if noise is not None:
            out += noise
        return out

    k1 = rate(x)
    k2 = rate(x + 0.5 * dt * k1)
    k3 = rate(x + 0.5 * dt * k2)
    k4 = rate(x + dt * k3)
    return x + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def coarse_grained_tendency(
    x_now: np.ndarray, x_next: np.ndarray, forcing: float, dt: float
) -> np.ndarray:
    """Closure target in the coarse-graining form (Arnold et al. 2013).

    ``U = (X(t + dt) - Phi_dt(X(t))) / dt`` with ``Phi_dt`` one RK4 step of the X-only
    model: the part of the true coarse tendency that the X-only model misses, including
    its time-discretisation error at the coarse step.

    Parameters
    ----------
    x_now, x_next : numpy.ndarray
        True slow variables at ``t`` and ``t + dt``, shape ``(..., K)``.
    forcing : float
        ``F``.
    dt : float
        Coarse step (time units).

    Returns
    -------
    numpy.ndarray
        Shape ``(..., K)`` (units of ``dX/dt``), float64.
    """
    x_now = np.asarray(x_now, dtype=np.float64)
    shape = x_now.shape
    flat = x_now.reshape(-1, shape[-1])
    predicted = coarse_rk4_step(flat, forcing, dt).reshape(shape)
    return (np.asarray(x_next, dtype=np.float64) - predicted) / dt
