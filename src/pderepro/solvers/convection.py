"""Exact solution of the convection problem of the physics-informed study (docs/references.md):
``u_t + beta u_x = 0`` on ``x in [0, 2 pi)`` periodic, ``t in [0, 1]``, ``u0 = sin x``.

The solution is the travelling wave ``u(x, t) = sin(x - beta t)``; the study uses
``beta = 50`` (:data:`BETA`). The formula is checked against the propagation of the grid's
Fourier modes by :mod:`pderepro.solvers.allen_cahn_verification`.
"""

from __future__ import annotations

import math

import numpy as np

#: The study's instance: speed (length / time), periodic domain [lo, hi) (length units),
#: final time (time units).
BETA = 50.0
DOMAIN = (0.0, 2.0 * math.pi)
T_FINAL = 1.0


def convection_exact(x: np.ndarray, t: np.ndarray, beta: float = BETA) -> np.ndarray:
    """``u(x, t) = sin(x - beta t)``, the solution of ``u_t + beta u_x = 0``, ``u0 = sin x``.

    Parameters
    ----------
    x : numpy.ndarray
        Points (length units), shape ``(nx,)``.
    t : numpy.ndarray
        Times (time units), shape ``(nt,)``.
    beta : float
        Convection speed (length / time), any sign.

    Returns
    -------
    numpy.ndarray
        Shape ``(nt, nx)``, float64 (dimensionless).
    """
    if isinstance(beta, bool) or not isinstance(beta, int | float | np.integer | np.floating):
        raise ValueError(f"beta must be a real number, got {beta!r}")
    if not math.isfinite(beta):
        raise ValueError(f"beta must be finite, got {beta!r}")
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if x.ndim != 1 or t.ndim != 1:
        raise ValueError(f"x and t must be 1-D, got shapes {x.shape} and {t.shape}")
    return np.sin(x[None, :] - float(beta) * t[:, None])  # (nt, nx)
