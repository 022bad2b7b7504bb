"""Reference solutions of the Neural Spectral Methods problems and their verification.

* Periodic Poisson ``-Lap u = s`` on [0, 1)^2: exact in Fourier for a band-limited source,
  ``u_hat_k = s_hat_k / (4 pi^2 |k|^2)``, with the gauge ``u(0, 0) = 0`` (the networks'
  output transform's); the source must have zero mean.
* Reaction-diffusion ``u_t = nu u_xx + rho u (1 - u)``, periodic in ``x``, ``t`` in [0, 1]: the
  Strang splitting of :mod:`pderepro.solvers.reaction_diffusion.diffusion_reaction` on a fine grid,
  from the band-limited interpolant of the initial values at the nodes.
* Forced Navier-Stokes (vorticity) on the unit torus, ``t`` in [0, T]: the torus solver's
  AB2/CN pseudo-spectral scheme (:mod:`pderepro.solvers.navier_stokes.navier_stokes`) from the
  band-limited interpolant of the initial vorticity at the nodes, recorded at uniform times.

Their verification rows: :mod:`pderepro.verification.nsm`.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from pderepro.solvers.common.random_fields import fourier_upsample
from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, solve_navier_stokes
from pderepro.solvers.reaction_diffusion.diffusion_reaction import diffusion_reaction_frames


def poisson_solution(source: np.ndarray) -> np.ndarray:
    """Solve ``-Lap u = s`` on the periodic unit square in Fourier, gauge ``u(0, 0) = 0``.

    Parameters
    ----------
    source : numpy.ndarray
        ``s`` at the nodes ``(j / n, i / n)``, shape ``(..., n, n)``; its mean over the
        grid is ignored (a periodic solution needs a mean-zero source).

    Returns
    -------
    numpy.ndarray
        ``u`` at the same nodes, shape ``(..., n, n)``, float64: the exact solution for
        the source's trigonometric interpolant.
    """
    source = np.asarray(source, dtype=np.float64)
    ny, nx = source.shape[-2:]
    ky = np.fft.fftfreq(ny, d=1.0 / ny)[:, None]
    kx = np.fft.rfftfreq(nx, d=1.0 / nx)[None, :]
    k2 = 4.0 * np.pi**2 * (kx**2 + ky**2)  # (ny, nx // 2 + 1)
    k2[0, 0] = 1.0
    u_hat = np.fft.rfft2(source) / k2
    u_hat[..., 0, 0] = 0.0
    u = np.fft.irfft2(u_hat, s=(ny, nx))
    return u - u[..., :1, :1]


def reaction_diffusion_reference(
    h: np.ndarray,
    nu: float,
    rho: float,
    *,
    nx: int,
    steps: int,
    t: np.ndarray,
    x_points: int,
) -> np.ndarray:
    """``u_t = nu u_xx + rho u (1 - u)`` from the interpolant of ``h``, at times ``t``.

    Parameters
    ----------
    h : numpy.ndarray
        Initial values at the nodes ``j / n_nodes``, shape ``(S, n_nodes)``.
    nu, rho : float
        Diffusivity (length^2 / time) and reaction rate (1 / time).
    nx : int
        Solver grid points on [0, 1) (the initial condition is interpolated onto it).
    steps : int
        Strang steps per unit time; each interval between consecutive output times takes
        ``max(1, ceil(steps * interval))`` equal steps.
    t : numpy.ndarray
        Increasing output times starting at 0, shape ``(n_t,)``.
    x_points : int
        Output points ``j / x_points``: the solver grid's values where ``nx`` is a
        multiple of it, else its trigonometric interpolant.

    Returns
    -------
    numpy.ndarray
        Shape ``(S, n_t, x_points)``, float64.
    """
    t = np.asarray(t, dtype=np.float64)
    if t.ndim != 1 or t[0] != 0.0 or np.any(np.diff(t) <= 0):
        raise ValueError("t must be increasing and start at 0")
    u = fourier_upsample(np.asarray(h, dtype=np.float64), nx, ndim=1)  # (S, nx)
    frames = [u]
    for interval in np.diff(t):
        n_steps = max(1, math.ceil(steps * float(interval) - 1e-9))
        u = diffusion_reaction_frames(
            u, nu, rho, t_final=float(interval), n_frames=2, steps_per_frame=n_steps
        )[:, -1]
        frames.append(u)
    out = np.stack(frames, axis=1)  # (S, n_t, nx)
    return fourier_upsample(out, x_points, ndim=1)


def navier_stokes_reference(
    w0: np.ndarray,
    *,
    nu: float,
    forcing_amplitude: float,
    t_final: float,
    nx: int,
    steps: int,
    n_times: int,
    x_points: int,
    device: str | torch.device | None = None,
) -> np.ndarray:
    """Forced vorticity ``w_t + u . grad w = nu Lap w + f`` on the unit torus at uniform times.

    ``u = (psi_y, -psi_x)``, ``-Lap psi = w`` and ``f = A (sin 2 pi (x + y) + cos 2 pi (x + y))``
    (:class:`~pderepro.solvers.navier_stokes.problem.NavierStokesProblem`'s FNO forcing); arrays are
    ``w[..., i, j] = w(x_i, y_j)``.

    Parameters
    ----------
    w0 : numpy.ndarray
        Initial vorticity (1/time) at the nodes ``(i / m, j / m)``, shape ``(S, m, m)``; its
        trigonometric interpolant is the initial condition.
    nu, forcing_amplitude, t_final : float
        Viscosity (length^2 / time), ``A`` (1/time^2) and the horizon ``T`` (time).
    nx : int
        Solver grid points per side (even, >= 8).
    steps : int
        AB2/CN steps over [0, T], rounded up to a whole number per output interval.
    n_times : int
        Output times ``linspace(0, T, n_times)``, ``>= 2``.
    x_points : int
        Output points ``j / x_points`` per side: the solver grid's values where ``nx`` is a
        multiple of it, else its trigonometric interpolant.
    device : str or torch.device, optional
        Where the solver runs (default: CUDA when available, else CPU).

    Returns
    -------
    numpy.ndarray
        Shape ``(S, n_times, x_points, x_points)``, float64.
    """
    if n_times < 2:
        raise ValueError(f"need at least 2 output times, got {n_times}")
    interval = float(t_final) / (n_times - 1)
    per_interval = max(1, math.ceil(steps / (n_times - 1) - 1e-9))
    problem = NavierStokesProblem(
        viscosity=float(nu), t_final=float(t_final), time_step=interval / per_interval,
        resolution=int(nx), record_interval=interval, forcing_amplitude=float(forcing_amplitude),
    )  # fmt: skip
    w = fourier_upsample(np.asarray(w0, dtype=np.float64), nx, ndim=2)  # (S, nx, nx)
    out = solve_navier_stokes(w, problem, device=device).cpu().numpy()  # (S, n_times, nx, nx)
    return fourier_upsample(out, x_points, ndim=2)
