"""Verification of the 2-D Navier-Stokes solver: exact single-shell solutions, enstrophy budget.

Any vorticity made of Fourier modes of one shell ``|k| = const`` is a Laplacian eigenfunction,
so ``psi`` is proportional to ``w`` and the advection term ``J(psi, w)`` vanishes identically;
each mode then obeys ``dw_k/dt = -nu 4 pi^2 |k|^2 w_k + f_k`` exactly. The FNO forcing lives on
the shell ``|k|^2 = 2``. These give exact solutions that exercise the viscous and forcing parts
(advection is still evaluated and must cancel to round-off). The advection part is checked by the
enstrophy budget ``dZ/dt = -nu <|grad w|^2> + <w f>`` of a turbulent run, which holds because
advection conserves ``Z = 1/2 <w^2>`` in 2-D (and the dealiased Galerkin truncation keeps that),
but so would any antisymmetric advection, a wrong sign included. So a turbulent run is also
compared with an independent algorithm, the advective form integrated by integrating-factor
RK4 (:func:`box_if_rk4`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import torch

from pderepro.solvers.navier_stokes.navier_stokes import (
    NavierStokesProblem,
    NavierStokesStepper,
    solve_navier_stokes,
)
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf, wavenumbers
from pderepro.verification.table import convergence_rows, log_table, row

logger = logging.getLogger(__name__)

SOLVER = "navier_stokes_spectral"

#: Formal order of the AB2/CN time stepper.
AB2CN_ORDER = 2


def spectral_diagnostics(
    w: torch.Tensor, forcing: torch.Tensor | None = None, *, is_rfft2: bool = False
) -> dict[str, torch.Tensor]:
    """Domain averages of a vorticity field, computed by Parseval from ``rfft2``.

    Parameters
    ----------
    w : torch.Tensor
        Vorticity (1/time), shape ``(..., n, n)``; or, with ``is_rfft2``, its unnormalised
        ``rfft2`` coefficients, shape ``(..., n, n // 2 + 1)`` (saves a transform).
    forcing : torch.Tensor, optional
        Forcing field ``f`` (1/time^2) on the grid, shape ``(n, n)``.
    is_rfft2 : bool
        Whether ``w`` holds ``rfft2`` coefficients.

    Returns
    -------
    dict of str to torch.Tensor
        Each of shape ``w.shape[:-2]``: ``energy`` ``1/2 <|u|^2>`` (length^2/time^2),
        ``enstrophy`` ``Z = 1/2 <w^2>`` (1/time^2), ``palinstrophy`` ``<|grad w|^2>``
        (1/(length^2 time^2)) and, with ``forcing``, ``forcing_work`` ``<w f>`` (1/time^3).
        The enstrophy budget is ``dZ/dt = -nu <|grad w|^2> + <w f>``.
    """
    n = w.shape[-2]
    w_hat = (w if is_rfft2 else torch.fft.rfft2(w)) / n**2
    kx, ky = wavenumbers(n)
    # Columns 1..n/2-1 stand for themselves and their conjugates; k_y = 0 and n/2 only once.
    weight = np.full(ky.shape, 2.0)
    weight[0, 0] = weight[0, -1] = 1.0
    k2 = 4.0 * np.pi**2 * (kx**2 + ky**2)
    inv_k2 = np.divide(1.0, k2, out=np.zeros_like(k2), where=k2 > 0)
    real = w_hat.real.dtype

    def weighted(values: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(weight * values, device=w.device, dtype=real)

    power = w_hat.real**2 + w_hat.imag**2
    out = {
        "energy": 0.5 * (power * weighted(inv_k2)).sum((-2, -1)),
        "enstrophy": 0.5 * (power * weighted(np.ones_like(k2))).sum((-2, -1)),
        "palinstrophy": (power * weighted(k2)).sum((-2, -1)),
    }
    if forcing is not None:
        f_hat = torch.fft.rfft2(forcing.to(device=w.device, dtype=real)) / n**2
        cross = w_hat.real * f_hat.real + w_hat.imag * f_hat.imag
        out["forcing_work"] = (cross * weighted(np.ones_like(k2))).sum((-2, -1))
    return out


def taylor_green_vorticity(resolution: int, wavenumber: int, amplitude: float = 1.0) -> np.ndarray:
    """Taylor-Green vorticity ``A sin(2 pi k x) sin(2 pi k y)``, shape ``(n, n)`` (1/time).

    It lies on the shell ``|k|^2 = 2 k^2`` and decays as ``exp(-8 pi^2 k^2 nu t)`` unforced.
    """
    x = np.arange(resolution, dtype=np.float64) / resolution
    s = np.sin(2.0 * np.pi * wavenumber * x)
    return amplitude * s[:, None] * s[None, :]


def relative_max_error(w: torch.Tensor | np.ndarray, exact: np.ndarray) -> float:
    """Largest ``|w - exact|`` relative to the largest ``|exact|`` (dimensionless)."""
    w = w.cpu().numpy() if isinstance(w, torch.Tensor) else w
    return float(np.abs(w - exact).max() / np.abs(exact).max())


def taylor_green_error(
    resolution: int, time_step: float, *, viscosity: float, t_final: float, wavenumber: int
) -> float:
    """Max relative error at ``t_final`` of unforced Taylor-Green decay (see module docstring)."""
    problem = NavierStokesProblem(
        viscosity=viscosity, t_final=t_final, time_step=time_step, resolution=resolution,
        record_interval=t_final, forcing_amplitude=0.0,
    )  # fmt: skip
    w0 = taylor_green_vorticity(resolution, wavenumber)
    w = solve_navier_stokes(w0, problem, device="cpu")[-1]
    decay = math.exp(-viscosity * 8.0 * math.pi**2 * wavenumber**2 * t_final)
    return relative_max_error(w, decay * w0)


def forced_shell_error(
    resolution: int, time_step: float, *, viscosity: float, t_final: float
) -> float:
    """Max relative error at ``t_final`` of a forced run that stays on the ``|k|^2 = 2`` shell.

    ``w0 = cos(2 pi (x - y)) + 0.5 sin(2 pi (x + y))`` with the FNO forcing ``f`` (amplitude
    0.1) has ``w(t) = exp(-a t) w0 + (1 - exp(-a t)) f / a``, ``a = 8 pi^2 nu``.
    """
    problem = NavierStokesProblem(
        viscosity=viscosity, t_final=t_final, time_step=time_step, resolution=resolution,
        record_interval=t_final,
    )  # fmt: skip
    x = problem.grid
    w0 = np.cos(2.0 * np.pi * (x[:, None] - x[None, :])) + 0.5 * np.sin(
        2.0 * np.pi * (x[:, None] + x[None, :])
    )
    w = solve_navier_stokes(w0, problem, device="cpu")[-1]
    a = 8.0 * math.pi**2 * viscosity
    decay = math.exp(-a * t_final)
    return relative_max_error(w, decay * w0 + (1.0 - decay) / a * problem.forcing())


def enstrophy_budget_residual(
    problem: NavierStokesProblem, w0: torch.Tensor, *, dtype: torch.dtype = torch.float64
) -> np.ndarray:
    """Relative residual of the enstrophy budget over ``[0, t_final]``, per sample.

    ``|Z(T) - Z(0) - int_0^T (-nu <|grad w|^2> + <w f>) dt| / |Z(T) - Z(0)|`` with the integral
    by the trapezoidal rule over every step (second order, like the scheme). The residual
    measures the time-discretisation error of the advection, which conserves ``Z`` exactly in
    the semi-discrete (dealiased) system.

    Parameters
    ----------
    problem : NavierStokesProblem
        Run parameters; ``record_interval`` is ignored.
    w0 : torch.Tensor
        Initial vorticity, shape ``(batch, n, n)``.
    dtype : torch.dtype
        Arithmetic precision.

    Returns
    -------
    numpy.ndarray
        Shape ``(batch,)``, dimensionless.
    """
    stepper = NavierStokesStepper(problem, device="cpu", dtype=dtype)
    forcing = torch.as_tensor(problem.forcing())
    nu, h = problem.viscosity, problem.time_step

    def budget(w_hat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = spectral_diagnostics(w_hat, forcing, is_rfft2=True)
        return d["enstrophy"], -nu * d["palinstrophy"] + d["forcing_work"]

    with torch.no_grad():
        w_hat = torch.fft.rfft2(w0.to(dtype))
        z0, rate = budget(w_hat)
        integral = torch.zeros_like(z0)
        for _ in range(round(problem.t_final / h)):
            stepper.step_(w_hat)
            z, new_rate = budget(w_hat)
            integral += 0.5 * h * (rate + new_rate)
            rate = new_rate
    return ((z - z0 - integral).abs() / (z - z0).abs()).numpy()


def box_if_rk4(
    w0: np.ndarray, forcing: np.ndarray, *, box_size: float, viscosity: float, drag: float,
    beta: float, t_final: float, time_step: float, advection_sign: float = 1.0,
) -> np.ndarray:  # fmt: skip
    """An independent reference: ``w_t = -u w_x - v w_y - beta v + nu Lap w - mu w + f`` on
    ``[0, L)^2`` by integrating-factor RK4 (numpy, float64), written from the equation alone.

    The linear part ``-nu |kappa|^2 - mu + i beta kappa_x / |kappa|^2`` (from ``v = -psi_x``,
    ``psi_hat = w_hat / |kappa|^2``) is integrated exactly by its exponential, so the beta
    term's treatment shares nothing with the solver's Crank-Nicolson; the advective form
    ``u w_x + v w_y`` is formed in physical space from the retained (2/3-rule) modes and
    truncated to them, the Galerkin truncation the solver integrates.

    Parameters
    ----------
    w0 : numpy.ndarray
        Initial vorticity ``(batch, n, n)`` (1/time), ``w0[..., i, j] = w(x_i, y_j)``.
    forcing : numpy.ndarray
        ``f(x_i, y_j)`` (vorticity / time), ``(n, n)``.
    box_size, viscosity, drag, beta : float
        ``L`` (length), ``nu`` (length^2/time), ``mu`` (1/time), ``beta`` (1/(length time)).
    t_final, time_step : float
        Final time and RK4 step (time units); ``t_final / time_step`` whole.
    advection_sign : float
        Multiplies ``u . grad w``; the tests use ``-1`` or ``0`` to show that the comparison
        sees the nonlinear term.

    Returns
    -------
    numpy.ndarray
        ``w(t_final)``, ``(batch, n, n)``.
    """
    n = w0.shape[-1]
    steps = round(t_final / time_step)
    if not math.isclose(steps * time_step, t_final, rel_tol=1e-9):
        raise ValueError("t_final must be a whole number of time steps")
    k_int = np.fft.fftfreq(n, d=1.0 / n)
    keep = (np.abs(k_int)[:, None] < n / 3.0) & (np.abs(k_int[: n // 2 + 1])[None, :] < n / 3.0)
    kx = 2.0 * math.pi / box_size * k_int[:, None]  # angular, along x (axis -2)
    ky = 2.0 * math.pi / box_size * np.arange(n // 2 + 1)[None, :]  # along y (axis -1)
    k2 = kx**2 + ky**2
    inv_k2 = np.divide(1.0, k2, out=np.zeros_like(k2), where=k2 > 0)
    rate = -viscosity * k2 - drag + 1j * beta * kx * inv_k2  # linear rate (1/time)
    h = time_step
    e_half, e_full = np.exp(rate * h / 2), np.exp(rate * h)
    f_hat = np.fft.rfft2(forcing)

    def grid(coeffs: np.ndarray) -> np.ndarray:
        return np.fft.irfft2(coeffs, s=(n, n))

    def tendency(w_hat: np.ndarray) -> np.ndarray:  # f - u . grad w, in rfft2 layout
        w_hat = w_hat * keep
        psi_hat = w_hat * inv_k2
        u, v = grid(1j * ky * psi_hat), grid(-1j * kx * psi_hat)
        advection = u * grid(1j * kx * w_hat) + v * grid(1j * ky * w_hat)
        return f_hat - advection_sign * np.fft.rfft2(advection) * keep

    w_hat = np.fft.rfft2(w0)
    for _ in range(steps):
        k1 = tendency(w_hat)
        k2_ = tendency(e_half * (w_hat + h / 2 * k1))
        k3 = tendency(e_half * w_hat + h / 2 * k2_)
        k4 = tendency(e_full * w_hat + h * e_half * k3)
        w_hat = e_full * w_hat + h / 6 * (e_full * k1 + 2 * e_half * (k2_ + k3) + k4)
    return grid(w_hat)


def advective_reference_difference(
    problem: NavierStokesProblem, w0: torch.Tensor, reference_step: float
) -> float:
    """Max relative difference at ``problem.t_final`` between :func:`solve_navier_stokes`
    (AB2/CN at ``problem.time_step``) and :func:`box_if_rk4` at ``reference_step``."""
    ours = solve_navier_stokes(w0, problem, device="cpu")[:, -1].numpy()
    reference = box_if_rk4(
        w0.numpy(), problem.forcing(), box_size=problem.box_size, viscosity=problem.viscosity,
        drag=problem.drag, beta=problem.beta, t_final=problem.t_final, time_step=reference_step,
    )  # fmt: skip
    return relative_max_error(ours, reference)


def reference_rows(
    case: str,
    problem: NavierStokesProblem,
    w0: torch.Tensor,
    time_steps: Sequence[float],
    reference_step: float,
) -> list:
    """Rows of a step refinement of ``problem`` against :func:`box_if_rk4`.

    Parameters
    ----------
    case : str
        The rows' case.
    problem : NavierStokesProblem
        The run, its ``time_step`` replaced by each of ``time_steps``.
    w0 : torch.Tensor
        Initial vorticities ``(batch, n, n)`` (1 / time).
    time_steps : sequence of float
        AB2/CN steps (time units), coarsest first.
    reference_step : float
        Step of :func:`box_if_rk4` (time units).

    Returns
    -------
    list of dict
        One row per step, the error :func:`advective_reference_difference` (dimensionless).
    """
    return refinement_rows(
        case, problem.resolution, time_steps,
        lambda dt: advective_reference_difference(
            dataclasses.replace(problem, time_step=dt), w0, reference_step
        ),
    )  # fmt: skip


def refinement_rows(
    case: str, resolution: int, time_steps: Sequence[float], error_of: Callable[[float], float]
) -> list:
    """Rows of a step-refinement case: ``error_of(dt)`` per step, with observed orders."""
    dts = [float(dt) for dt in time_steps]
    errors = [error_of(dt) for dt in dts]
    return convergence_rows(SOLVER, case, resolution, dts, errors, [1.0 / dt for dt in dts])


def navier_stokes_verification(
    *,
    decay_resolutions: Sequence[int] = (32, 64),
    decay_time_step: float = 1e-4,
    decay_viscosity: float = 1e-3,
    decay_t_final: float = 1.0,
    decay_wavenumber: int = 4,
    forced_resolution: int = 32,
    forced_time_steps: Sequence[float] = (0.1, 0.05, 0.025, 0.0125),
    forced_viscosity: float = 1e-2,
    forced_t_final: float = 1.0,
    budget_resolution: int = 64,
    budget_time_steps: Sequence[float] = (0.02, 0.01, 0.005, 0.0025),
    budget_viscosity: float = 1e-3,
    budget_t_final: float = 1.0,
    budget_samples: int = 4,
    advective_resolution: int = 32,
    advective_time_steps: Sequence[float] = (0.02, 0.01, 0.005),
    advective_reference_step: float = 1e-3,
    advective_viscosity: float = 1e-3,
    advective_t_final: float = 1.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Verification table of :func:`solve_navier_stokes` (about 5 s on one CPU core).

    Cases (``case`` column); ``max_abs_error`` holds a *relative* error, as the case name says:

    - ``taylor_green_decay (max relative error)``: unforced Taylor-Green vortex of wavenumber
      ``decay_wavenumber`` at the paper's step, vs the exact decay; one row per resolution.
      The error (about 2e-9 with the defaults) is the CN time error; it does not depend on the
      grid, so no spatial order is reported (NaN).
    - ``forced_shell_time (max relative error)``: forced single-shell solution (see
      :func:`forced_shell_error`), step refinement at ``forced_viscosity = 0.01`` so the time
      error stands above round-off; the observed order should approach
      :data:`AB2CN_ORDER`.
    - ``enstrophy_budget (residual / |Z(T)-Z(0)|)``: largest residual over ``budget_samples``
      GRF initial fields (FNO covariance) of :func:`enstrophy_budget_residual`, with step
      refinement; observed order should approach :data:`AB2CN_ORDER`. With the defaults the
      enstrophy changes by about 25% over the run, and the residual falls from ~3e-4 to ~4e-6.
    - ``advective_if_rk4 (max relative difference)``: GRF initial fields against the
      independent advective-form integrating-factor RK4 (:func:`advective_if_rk4`) at a
      step small enough that its own error is negligible; the difference is the AB2/CN
      time error, whose observed order should approach :data:`AB2CN_ORDER`. A wrong sign
      or a missing part of the advection term shows as an O(1) difference.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`pderepro.verification.table.COLUMNS`.
    """
    rows = [
        row(
            SOLVER, "taylor_green_decay (max relative error)", n, decay_time_step,
            taylor_green_error(
                int(n), decay_time_step, viscosity=decay_viscosity, t_final=decay_t_final,
                wavenumber=decay_wavenumber,
            ),
        )
        for n in decay_resolutions
    ]  # fmt: skip
    rows += refinement_rows(
        "forced_shell_time (max relative error)", forced_resolution, forced_time_steps,
        lambda dt: forced_shell_error(
            forced_resolution, dt, viscosity=forced_viscosity, t_final=forced_t_final
        ),
    )  # fmt: skip

    w0 = sample_vorticity_grf(budget_samples, budget_resolution, seed=seed, device="cpu")
    base = NavierStokesProblem(
        viscosity=budget_viscosity, t_final=budget_t_final, resolution=budget_resolution,
        record_interval=budget_t_final,
    )  # fmt: skip
    rows += refinement_rows(
        "enstrophy_budget (residual / |Z(T)-Z(0)|)", budget_resolution, budget_time_steps,
        lambda dt: float(
            enstrophy_budget_residual(dataclasses.replace(base, time_step=dt), w0).max()
        ),
    )  # fmt: skip

    w_adv = sample_vorticity_grf(2, advective_resolution, seed=seed + 1, device="cpu")
    advective = NavierStokesProblem(
        viscosity=advective_viscosity, t_final=advective_t_final,
        resolution=advective_resolution, record_interval=advective_t_final,
    )  # fmt: skip
    rows += reference_rows(
        "advective_if_rk4 (max relative difference)", advective, w_adv, advective_time_steps,
        advective_reference_step,
    )  # fmt: skip
    return log_table(rows, "Navier-Stokes verification", logger)
