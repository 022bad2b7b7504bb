"""ETDRK4 coefficients (Cox and Matthews 2002) of a diagonal linear part, shared by the
spectral solvers (:mod:`pderepro.solvers.burgers.burgers`,
:mod:`pderepro.solvers.reaction_diffusion.allen_cahn`); numpy only."""

from __future__ import annotations

import numpy as np


def etdrk4_coefficients(
    linear: np.ndarray, time_step: float, *, contour_points: int = 64
) -> dict[str, np.ndarray]:
    """ETDRK4 coefficients for a real diagonal linear operator (Kassam & Trefethen 2005).

    The phi-functions are averaged over ``contour_points`` points on a unit circle around each
    ``z = h L``; this is exact for analytic integrands and avoids the cancellation of the
    closed forms near ``z = 0``.

    Parameters
    ----------
    linear : numpy.ndarray
        Diagonal of ``L`` (1/time), real.
    time_step : float
        Step ``h`` (time units).
    contour_points : int
        Number of contour points ``M``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``E = exp(hL)``, ``E2 = exp(hL/2)``, ``Q``, ``f1``, ``f2``, ``f3`` (the last four carry a
        factor ``h``, units of time), each with the shape of ``linear``.
    """
    h = float(time_step)
    z = h * np.asarray(linear, dtype=np.float64)
    roots = np.exp(2j * np.pi * (np.arange(1, contour_points + 1) - 0.5) / contour_points)
    lr = z[..., None] + roots
    ez = np.exp(lr)
    lr3 = lr**3
    q = h * np.mean((np.exp(lr / 2) - 1.0) / lr, axis=-1).real
    f1 = h * np.mean((-4.0 - lr + ez * (4.0 - 3.0 * lr + lr**2)) / lr3, axis=-1).real
    f2 = h * np.mean((2.0 + lr + ez * (-2.0 + lr)) / lr3, axis=-1).real
    f3 = h * np.mean((-4.0 - 3.0 * lr - lr**2 + ez * (4.0 - lr)) / lr3, axis=-1).real
    return {"E": np.exp(z), "E2": np.exp(z / 2), "Q": q, "f1": f1, "f2": f2, "f3": f3}
