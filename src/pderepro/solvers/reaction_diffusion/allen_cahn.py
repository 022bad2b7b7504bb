"""1-D periodic Allen-Cahn ``u_t = d u_xx + r (u - u^3)``: the reference solution of the
physics-informed study (docs/references.md), by a Fourier pseudo-spectral method and ETDRK4.

The study's instance is ``d = 1e-4``, ``r = 5`` on ``x in [-1, 1)`` periodic, ``t in [0, 1]``,
``u0 = x^2 cos(pi x)`` (:data:`DIFFUSION`, :data:`REACTION`, :data:`DOMAIN`,
:func:`study_initial_condition`). In Fourier space the equation splits into the stiff
diagonal part ``L = -d k^2`` (``k = 2 pi m / length``), integrated exactly, and the
pointwise reaction ``N(u) = r (u - u^3)``, evaluated on the grid (no dealiasing: the
grid-resolution rows of :mod:`pderepro.verification.allen_cahn` bound what aliasing
and truncation together cost). Time stepping is Cox-Matthews ETDRK4 with the
Kassam-Trefethen contour-integral coefficients (:func:`etdrk4_coefficients`), fourth
order in ``dt``. The module needs numpy only (no torch), so that study definitions may
import its constants.

The periodic extension of the study's ``u0`` is continuous (``u0(-1) = u0(1) = -1``) but its
slope jumps (``u0'(-1) = 2``, ``u0'(1) = -2``): on 512 points the first frames are off by
up to 9e-4 at ``x = -1``, converging only algebraically with the grid, until diffusion and
the reaction (which drives values towards the stable states -1 and 1) flatten the kink;
fronts, about ``sqrt(2 d / r) = 1 / 158`` wide, are resolved spectrally (1.4e-6 at t = 1).
The verification module quotes the numbers.
"""

from __future__ import annotations

import math

import numpy as np

from pderepro.solvers.common.checks import check_count, check_real
from pderepro.solvers.common.errors import SolverDivergedError
from pderepro.solvers.common.etdrk4 import etdrk4_coefficients

#: The study's instance (docs/references.md): diffusivity (length^2 / time), reaction rate
#: (1 / time), periodic domain [lo, hi) (length units), final time (time units).
DIFFUSION = 1e-4
REACTION = 5.0
DOMAIN = (-1.0, 1.0)
T_FINAL = 1.0
#: Default ETDRK4 steps per time unit (dt = 2.5e-3). At the study's instance on 512 points
#: the difference from twice as many steps is about 3e-10 at t = 1, far below the grid's
#: own error (1.4e-6 at t = 1 against 1024 points, 9e-4 at the kink of the initial
#: condition in the first frames); see :mod:`pderepro.verification.allen_cahn`.
STEPS_PER_UNIT = 400


def periodic_grid(lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` equispaced points ``x_j = lo + (hi - lo) j / n`` of the periodic interval [lo, hi).

    Parameters
    ----------
    lo, hi : float
        Ends of the period (length units), ``lo < hi``; ``hi`` itself is not a point.
    n : int
        Number of points, at least 2.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, float64 (length units).
    """
    lo, hi = check_real("lo", lo), check_real("hi", hi)
    if not hi > lo:
        raise ValueError(f"the interval must have hi > lo, got [{lo!r}, {hi!r})")
    n = check_count("n", n, 2)
    return lo + (hi - lo) * np.arange(n, dtype=np.float64) / n


def study_initial_condition(x: np.ndarray) -> np.ndarray:
    """The study's ``u0 = x^2 cos(pi x)`` (dimensionless) at points ``x`` (length units)."""
    x = np.asarray(x, dtype=np.float64)
    return x**2 * np.cos(np.pi * x)


def angular_wavenumbers(n: int, length: float) -> np.ndarray:
    """Angular wavenumbers ``k = 2 pi m / length`` of the ``rfft`` modes ``m = 0 .. n // 2``.

    Returns
    -------
    numpy.ndarray
        Shape ``(n // 2 + 1,)``, float64 (1 / length).
    """
    return 2.0 * np.pi * np.arange(n // 2 + 1, dtype=np.float64) / length


def reaction_flow(u: np.ndarray, reaction: float, t: float) -> np.ndarray:
    """Exact solution of ``u' = r (u - u^3)`` after time ``t``, pointwise.

    Parameters
    ----------
    u : numpy.ndarray
        Values at time 0 (dimensionless), any shape.
    reaction : float
        ``r`` (1 / time).
    t : float
        Elapsed time (time units).

    Returns
    -------
    numpy.ndarray
        ``u e^{r t} / sqrt(1 - u^2 + u^2 e^{2 r t})``, the shape of ``u``.
    """
    # 1 - u^2 + u^2 e^{2rt} = 1 + u^2 (e^{2rt} - 1): expm1 keeps small r t accurate
    return u * math.exp(reaction * t) / np.sqrt(1.0 + u**2 * math.expm1(2.0 * reaction * t))


def _check_frames_arguments(
    u0: np.ndarray, length: float, times: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray]:
    u = np.array(u0, dtype=np.float64)
    if u.ndim != 1 or u.shape[0] < 2:
        raise ValueError(f"u0 must be (x,) with at least 2 points, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("u0 has non-finite values")
    length = check_real("length", length, positive=True)
    times = np.asarray(times, dtype=np.float64)
    if times.ndim != 1 or times.size == 0:
        raise ValueError(f"times must be a non-empty 1-D array, got shape {times.shape}")
    if not np.all(np.isfinite(times)) or times[0] < 0 or np.any(np.diff(times) <= 0):
        raise ValueError("times must be finite, non-negative and strictly increasing")
    return u, length, times


def _substeps(times: np.ndarray, steps_per_unit: int) -> list[tuple[int, float]]:
    """Per frame: how many equal steps reach it from the previous one (from ``t = 0`` for
    the first), and their length (time units): ``ceil(interval * steps_per_unit)``, with a
    relative slack of 1e-12 so that an interval of rounded multiples is not given one more."""
    plan, t_prev = [], 0.0
    for t in times.tolist():
        m = math.ceil((t - t_prev) * steps_per_unit * (1.0 - 1e-12))
        plan.append((m, (t - t_prev) / m if m else 0.0))
        t_prev = t
    return plan


def allen_cahn_frames(
    u0: np.ndarray,
    length: float,
    times: np.ndarray,
    diffusion: float = DIFFUSION,
    reaction: float = REACTION,
    steps_per_unit: int = STEPS_PER_UNIT,
    *,
    contour_points: int = 64,
    method: str = "etdrk4",
) -> np.ndarray:
    """Frames of ``u_t = d u_xx + r (u - u^3)`` on a periodic interval, ETDRK4 in time.

    Between consecutive requested times the solver takes ``ceil(interval * steps_per_unit)``
    equal steps, so the step is exactly ``1 / steps_per_unit`` where the frame spacing is a
    multiple of it (the usual case) and never larger elsewhere. The time grid starts at
    ``t = 0``: a first requested time above 0 is stepped to, ``times[0] == 0`` returns ``u0``.

    Parameters
    ----------
    u0 : numpy.ndarray
        Initial values at the points of :func:`periodic_grid` of the interval, shape ``(nx,)``
        (dimensionless).
    length : float
        Period of the interval (length units).
    times : numpy.ndarray
        Frame times (time units), shape ``(nt,)``, non-negative and strictly increasing.
    diffusion : float
        ``d`` (length^2 / time), non-negative.
    reaction : float
        ``r`` (1 / time), any sign; 0 gives the heat equation, solved exactly.
    steps_per_unit : int
        Steps per time unit (the step is ``1 / steps_per_unit`` time units).
    contour_points : int
        Points of the contour integrals for the coefficients (:func:`etdrk4_coefficients`).
    method : str
        ``etdrk4``, or ``strang`` for an independent check: Strang splitting of exactly
        solved parts, each step half a reaction step by :func:`reaction_flow`, a whole
        diffusion step in Fourier space (mode ``k`` decays by ``exp(-d k^2 dt)``) and half a
        reaction step; second order in ``dt``, and sharing with ETDRK4 only the grid, the
        wavenumbers and the steps between frames (``contour_points`` unused).

    Returns
    -------
    numpy.ndarray
        Shape ``(nt, nx)``, float64 (dimensionless).

    Raises
    ------
    SolverDivergedError
        When an ETDRK4 frame has non-finite values (too large a step for the reaction).
    """
    u, length, times = _check_frames_arguments(u0, length, times)
    diffusion = check_real("diffusion", diffusion, non_negative=True)
    reaction = check_real("reaction", reaction)
    steps_per_unit = check_count("steps_per_unit", steps_per_unit, 1)
    n = u.shape[0]
    linear = -diffusion * angular_wavenumbers(n, length) ** 2  # (n // 2 + 1,)
    plan = _substeps(times, steps_per_unit)
    if method == "strang":
        return _strang_frames(u, linear, reaction, plan)
    if method != "etdrk4":
        raise ValueError(f"method must be 'etdrk4' or 'strang', got {method!r}")

    def nonlinear(v_hat: np.ndarray) -> np.ndarray:
        w = np.fft.irfft(v_hat, n=n)  # (n,)
        return np.fft.rfft(reaction * (w - w**3))  # (n // 2 + 1,)

    frames = np.empty((times.size, n))  # (nt, nx)
    v = np.fft.rfft(u)  # (n // 2 + 1,) complex
    h_cached, c = math.nan, {}
    for i, (m, h) in enumerate(plan):
        if m and not abs(h - h_cached) <= 1e-12 * h:  # frame spacings differ by rounding only
            h_cached, c = h, etdrk4_coefficients(linear, h, contour_points=contour_points)
        for _ in range(m):
            nv = nonlinear(v)
            a = c["E2"] * v + c["Q"] * nv
            na = nonlinear(a)
            b = c["E2"] * v + c["Q"] * na
            nb = nonlinear(b)
            cc = c["E2"] * a + c["Q"] * (2.0 * nb - nv)
            nc = nonlinear(cc)
            v = c["E"] * v + c["f1"] * nv + 2.0 * c["f2"] * (na + nb) + c["f3"] * nc
        frames[i] = np.fft.irfft(v, n=n) if m else u  # m = 0 only for times[0] = 0
        if not np.all(np.isfinite(frames[i])):
            raise SolverDivergedError(
                f"Allen-Cahn solve diverged: non-finite values at t={float(times[i]):.6g} "
                f"(steps_per_unit={steps_per_unit})"
            )
    return frames


def _strang_frames(
    u: np.ndarray, linear: np.ndarray, reaction: float, plan: list[tuple[int, float]]
) -> np.ndarray:
    """Strang-splitting frames ``(nt, n)`` of :func:`allen_cahn_frames` (``method='strang'``)
    for the diffusion part ``linear = -d k^2`` ``(n // 2 + 1,)`` (1 / time)."""
    n = u.shape[0]
    frames = np.empty((len(plan), n))  # (nt, nx)
    for i, (m, h) in enumerate(plan):
        decay = np.exp(linear * h)  # (n // 2 + 1,)
        for _ in range(m):
            u = reaction_flow(u, reaction, h / 2)
            u = np.fft.irfft(np.fft.rfft(u) * decay, n=n)
            u = reaction_flow(u, reaction, h / 2)
        frames[i] = u
    return frames
