"""Compiled two-scale Lorenz-96 RK4 kernel (numba), fused and parallel over trajectories.

Kept apart from :mod:`pderepro.solvers.lorenz96.lorenz96` because the kernel is written as plain
Python and compiled lazily: the module-level ``_prange`` is rebound to ``numba.prange``
before compiling, which keeps numba's on-disk cache usable (a closure could not be cached).
"""

from __future__ import annotations

import functools
import logging

import numpy as np

logger = logging.getLogger(__name__)


#: Parallel range of the kernel; the numba factory rebinds it to ``numba.prange``.
_prange = range


def _rk4_kernel(x, y, n_steps, K, J, forcing, coupling, cb, c_damp, x_damp, dt):
    """Advance ``x`` (batch, K) and the rings ``y`` (batch, K J) by ``n_steps``, in place.

    Plain Python compiled by :func:`_numba_kernel`; each trajectory is stepped independently
    with its own work buffers, so results do not depend on the batch or the thread count.
    ``c_damp`` and ``x_damp`` are ``c`` and 1, or 0 without damping: subtracting ``0 * y``
    leaves the sum bitwise unchanged, so this matches :func:`tendencies` without a branch.
    """
    n = K * J
    half, third, sixth = 0.5 * dt, dt / 3.0, dt / 6.0
    for t in _prange(x.shape[0]):
        xs, ys = x[t], y[t]  # (K,), (n,) views
        xt, dxv, xa = np.empty(K), np.empty(K), np.empty(K)  # stage input, tendency, sum
        # Stage input of the ring padded with ghosts (yt[p] = Y_{p-1}, p = 0 .. n + 2) so the
        # stencil loop has no wrap-around branches and vectorises.
        yt, dyv, ya = np.empty(n + 3), np.empty(n), np.empty(n)
        for _ in range(n_steps):
            xt[:] = xs
            yt[1 : n + 1] = ys
            for stage in range(4):
                yt[0], yt[n + 1], yt[n + 2] = yt[n], yt[1], yt[2]
                for k in range(K):
                    km1 = k - 1 if k > 0 else K - 1
                    km2 = k - 2 if k > 1 else k - 2 + K
                    kp1 = k + 1 if k < K - 1 else 0
                    total = 0.0
                    for j in range(J):
                        total += yt[k * J + j + 1]
                    d = -xt[km1] * (xt[km2] - xt[kp1]) - x_damp * xt[k]
                    dxv[k] = d + forcing - coupling * total
                    cx = coupling * xt[k]
                    for i in range(k * J, (k + 1) * J):
                        e = -cb * yt[i + 2] * (yt[i + 3] - yt[i]) - c_damp * yt[i + 1]
                        dyv[i] = e + cx
                if stage == 0:
                    for k in range(K):
                        xa[k] = xs[k] + sixth * dxv[k]
                        xt[k] = xs[k] + half * dxv[k]
                    for i in range(n):
                        ya[i] = ys[i] + sixth * dyv[i]
                        yt[i + 1] = ys[i] + half * dyv[i]
                elif stage < 3:
                    scale = half if stage == 1 else dt
                    for k in range(K):
                        xa[k] += third * dxv[k]
                        xt[k] = xs[k] + scale * dxv[k]
                    for i in range(n):
                        ya[i] += third * dyv[i]
                        yt[i + 1] = ys[i] + scale * dyv[i]
                else:
                    for k in range(K):
                        xs[k] = xa[k] + sixth * dxv[k]
                    for i in range(n):
                        ys[i] = ya[i] + sixth * dyv[i]


@functools.cache
def _numba_kernel():
    """The compiled kernel, or None (with one logged warning) when numba is missing."""
    try:
        import numba
    except ImportError:
        logger.warning("numba is not installed; Lorenz-96 uses the slower numpy integrator")
        return None
    global _prange
    _prange = numba.prange
    # fastmath off: no reassociation, so results are reproducible and match numpy.
    return numba.njit(parallel=True, fastmath=False, cache=True)(_rk4_kernel)
