"""Verification of the generalised 2-D Navier-Stokes solver: box size, drag, beta, Kolmogorov.

Exact solutions on a box of side ``L`` (``2 pi`` by default, the turbulence setting). A field
made of modes of one shell ``|kappa| = const`` has ``psi`` proportional to ``w``, so the
advection term vanishes and each mode obeys the linear equation ``dw_k/dt = -a_k w_k + f_k``
with ``a_k = nu |kappa|^2 + mu - i beta kappa_x / |kappa|^2`` exactly:

- a Taylor-Green vortex ``sin(m x) sin(m y)`` (``L = 2 pi``) decays as
  ``exp(-(2 nu m^2 + mu) t)``, which checks drag and the wavenumber scaling with ``L``;
- a single mode ``A cos(kappa . x - omega t)`` with ``omega = -beta kappa_x / |kappa|^2``,
  damped by ``exp(-(nu |kappa|^2 + mu) t)``, is a Rossby wave: its field and its phase speed
  ``omega / |kappa|`` check the sign and size of the beta term;
- Kolmogorov forcing ``A cos(kappa_f y)`` from rest gives the zonal flow
  ``(1 - exp(-a t)) f / a``, ``a = nu kappa_f^2 + mu``, on which beta has no effect
  (``kappa_x = 0``);
- the two-direction forcing ``A (cos(kappa_f x) + cos(kappa_f y))`` lies on one shell too, so
  from rest each of its modes grows as ``(1 - exp(-a_k t)) f_k / a_k`` (without beta the
  laminar state ``f / (nu kappa_f^2 + mu)``); with beta the ``cos(kappa_f x)`` part is a
  forced Rossby wave, which checks the beta term against the forcing.

The nonlinear term with all of these together is checked on random multi-mode fields against
an independent algorithm written from the equation alone
(:func:`~pderepro.verification.navier_stokes.box_if_rk4`), at steps
refined towards it; the difference is the AB2/CN time error, of order 2
(:data:`pderepro.verification.navier_stokes.AB2CN_ORDER`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from pderepro.solvers.navier_stokes.navier_stokes import NavierStokesProblem, solve_navier_stokes
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf
from pderepro.verification.navier_stokes import (
    advective_reference_difference as box_reference_difference,
)
from pderepro.verification.navier_stokes import (
    reference_rows,
    refinement_rows,
    relative_max_error,
)
from pderepro.verification.table import log_table

__all__ = [
    "box_reference_difference",
    "drag_decay_error",
    "kolmogorov_laminar_error",
    "navier_stokes_box_verification",
    "rossby_wave_errors",
]

logger = logging.getLogger(__name__)

TWO_PI = 2.0 * math.pi


def drag_decay_error(
    resolution: int, time_step: float, *, viscosity: float, drag: float, t_final: float,
    wavenumber: int, box_size: float = TWO_PI,
) -> float:  # fmt: skip
    """Max relative error at ``t_final`` of an unforced Taylor-Green vortex with drag.

    ``w0 = sin(kappa x) sin(kappa y)``, ``kappa = 2 pi m / L`` (``m = wavenumber``), decays as
    ``exp(-(2 nu kappa^2 + mu) t)``; ``viscosity`` (length^2/time), ``drag`` (1/time).
    """
    problem = NavierStokesProblem(
        viscosity=viscosity, drag=drag, box_size=box_size, t_final=t_final,
        time_step=time_step, resolution=resolution, record_interval=t_final,
        forcing_amplitude=0.0,
    )  # fmt: skip
    kappa = TWO_PI * wavenumber / box_size
    s = np.sin(kappa * problem.grid)
    w0 = s[:, None] * s[None, :]
    w = solve_navier_stokes(w0, problem, device="cpu")[-1]
    rate = 2.0 * viscosity * kappa**2 + drag
    return relative_max_error(w, math.exp(-rate * t_final) * w0)


def rossby_wave_errors(
    resolution: int, time_step: float, *, beta: float, viscosity: float, drag: float,
    t_final: float, wavevector: tuple[int, int] = (2, 1), box_size: float = TWO_PI,
) -> tuple[float, float]:  # fmt: skip
    """Errors of a damped Rossby wave ``cos(kappa . x - omega t) exp(-(nu |kappa|^2 + mu) t)``.

    Parameters
    ----------
    resolution : int
        Grid points per side.
    time_step, t_final : float
        Step and final time (time units).
    beta, viscosity, drag : float
        ``beta`` (1/(length time)), ``nu`` (length^2/time), ``mu`` (1/time).
    wavevector : (int, int)
        Integer ``(k_x, k_y)``, ``k_y >= 0``; ``kappa = 2 pi k / L``.
    box_size : float
        ``L`` (length).

    Returns
    -------
    (float, float)
        Max relative field error at ``t_final``, and relative error of the phase speed
        ``omega / |kappa|`` measured from the mode's phase over the run (recorded every step
        and unwrapped between steps, so ``|omega| time_step < pi`` is required).
    """
    problem = NavierStokesProblem(
        viscosity=viscosity, drag=drag, beta=beta, box_size=box_size, t_final=t_final,
        time_step=time_step, resolution=resolution, record_interval=time_step,
        forcing_amplitude=0.0,
    )  # fmt: skip
    kx, ky = (TWO_PI * k / box_size for k in wavevector)
    k2 = kx**2 + ky**2
    omega = -beta * kx / k2
    if abs(omega) * time_step >= math.pi:
        raise ValueError("too few records to unwrap the Rossby wave's phase")
    x = problem.grid
    phase = kx * x[:, None] + ky * x[None, :]
    w = solve_navier_stokes(np.cos(phase), problem, device="cpu")
    exact = math.exp(-(viscosity * k2 + drag) * t_final) * np.cos(phase - omega * t_final)
    # The mode's coefficient turns as exp(-i omega t); sum its turn between records.
    coeff = torch.fft.rfft2(w)[:, wavevector[0], wavevector[1]].numpy()
    turned = np.angle(coeff[1:] / coeff[:-1]).sum()
    measured = -turned / t_final
    return relative_max_error(w[-1], exact), abs(measured - omega) / abs(omega)


def kolmogorov_laminar_error(
    resolution: int, time_step: float, *, viscosity: float, drag: float, beta: float,
    t_final: float, forcing_wavenumber: int = 4, amplitude: float = 1.0,
    box_size: float = TWO_PI, forcing_kind: str = "kolmogorov",
) -> float:  # fmt: skip
    """Max relative error at ``t_final`` of Kolmogorov flow spun up from rest.

    Each Fourier mode of the forcing ``f`` (``forcing_kind`` ``"kolmogorov"``: ``A cos(kappa_f
    y)``; ``"kolmogorov_xy"``: ``A (cos(kappa_f x) + cos(kappa_f y))``) grows as
    ``w_k(t) = (1 - exp(-a_k t)) f_k / a_k``, ``a_k = nu kappa_f^2 + mu - i beta kappa_x /
    kappa_f^2``: the beta term leaves the zonal part alone and turns the ``cos(kappa_f x)`` part
    into a forced Rossby wave.
    """
    problem = NavierStokesProblem(
        viscosity=viscosity, drag=drag, beta=beta, box_size=box_size, t_final=t_final,
        time_step=time_step, resolution=resolution, record_interval=t_final,
        forcing_amplitude=amplitude, forcing_kind=forcing_kind,
        forcing_wavenumber=forcing_wavenumber,
    )  # fmt: skip
    w = solve_navier_stokes(np.zeros((resolution, resolution)), problem, device="cpu")[-1]
    kappa_f = TWO_PI * forcing_wavenumber / box_size
    kappa_x = TWO_PI / box_size * np.fft.fftfreq(resolution, 1.0 / resolution)[:, None]
    a = viscosity * kappa_f**2 + drag - 1j * beta * kappa_x / kappa_f**2  # (n, 1), x on axis 0
    # the forcing's modes all lie on |kappa| = kappa_f (others are zero, whatever a says there)
    exact_hat = -np.expm1(-a * t_final) / a * np.fft.fft2(problem.forcing())
    return relative_max_error(w, np.fft.ifft2(exact_hat).real)


def navier_stokes_box_verification(
    *,
    resolution: int = 32,
    time_steps: Sequence[float] = (0.04, 0.02, 0.01, 0.005),
    viscosity: float = 1e-2,
    drag: float = 0.2,
    beta: float = 10.0,
    t_final: float = 2.0,
    decay_wavenumber: int = 4,
    forcing_wavenumber: int = 4,
    turbulent_resolution: int = 32,
    turbulent_time_steps: Sequence[float] = (0.02, 0.01, 0.005, 0.0025),
    turbulent_beta: float = 2.0,
    turbulent_t_final: float = 1.0,
    turbulent_amplitude: float = 2.0,
    reference_step: float = 1e-3,
    seed: int = 0,
) -> pd.DataFrame:
    """Verification table of the box, drag, beta and Kolmogorov extensions (``L = 2 pi``; about
    8 s on one CPU core).

    Cases (``case`` column; ``max_abs_error`` holds the relative error the name says), each a
    step refinement whose observed order should approach 2, the AB2/CN order:

    - ``box_drag_decay``: Taylor-Green vortex of ``decay_wavenumber`` with viscosity and drag
      (:func:`drag_decay_error`).
    - ``rossby_wave`` and ``rossby_phase_speed``: damped Rossby wave of wavevector ``(2, 1)``
      (:func:`rossby_wave_errors`), field error and phase-speed error; with the defaults it
      turns through 8 radians. A wrong sign of beta gives an O(1) error.
    - ``kolmogorov_laminar``: Kolmogorov flow from rest with beta on
      (:func:`kolmogorov_laminar_error`).
    - ``kolmogorov_xy_laminar``: the same with the two-direction forcing (beta on: its
      ``cos(kappa_f x)`` part is a forced Rossby wave).
    - ``box_drag_beta_if_rk4``: two random fields (FNO covariance, grid values scaled to a
      largest magnitude of ``turbulent_amplitude``, 1/time, so that advection matters on the
      ``L = 2 pi`` box) with Kolmogorov forcing of amplitude 1, drag, viscosity and
      ``turbulent_beta``, against
      :func:`~pderepro.verification.navier_stokes.box_if_rk4` at ``reference_step``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`pderepro.verification.table.COLUMNS`.
    """
    rossby: dict[float, tuple[float, float]] = {}

    def rossby_at(dt: float) -> tuple[float, float]:
        if dt not in rossby:  # one run gives both rows
            rossby[dt] = rossby_wave_errors(
                resolution, dt, beta=beta, viscosity=viscosity, drag=drag, t_final=t_final
            )
        return rossby[dt]

    rows = refinement_rows(
        "box_drag_decay (max relative error)", resolution, time_steps,
        lambda dt: drag_decay_error(
            resolution, dt, viscosity=viscosity, drag=drag, t_final=t_final,
            wavenumber=decay_wavenumber,
        ),
    )  # fmt: skip
    rows += refinement_rows(
        "rossby_wave (max relative error)", resolution, time_steps, lambda dt: rossby_at(dt)[0]
    )
    rows += refinement_rows(
        "rossby_phase_speed (relative error)", resolution, time_steps,
        lambda dt: rossby_at(dt)[1],
    )  # fmt: skip
    rows += refinement_rows(
        "kolmogorov_laminar (max relative error)", resolution, time_steps,
        lambda dt: kolmogorov_laminar_error(
            resolution, dt, viscosity=viscosity, drag=drag, beta=beta, t_final=t_final,
            forcing_wavenumber=forcing_wavenumber,
        ),
    )  # fmt: skip
    rows += refinement_rows(
        "kolmogorov_xy_laminar (max relative error)", resolution, time_steps,
        lambda dt: kolmogorov_laminar_error(
            resolution, dt, viscosity=viscosity, drag=drag, beta=beta, t_final=t_final,
            forcing_wavenumber=forcing_wavenumber, forcing_kind="kolmogorov_xy",
        ),
    )  # fmt: skip
    w0 = sample_vorticity_grf(2, turbulent_resolution, seed=seed, device="cpu")
    w0 *= turbulent_amplitude / w0.abs().amax(dim=(1, 2), keepdim=True)
    base = NavierStokesProblem(
        viscosity=viscosity, drag=drag, beta=turbulent_beta, box_size=TWO_PI,
        t_final=turbulent_t_final, resolution=turbulent_resolution,
        record_interval=turbulent_t_final, forcing_amplitude=1.0, forcing_kind="kolmogorov",
        forcing_wavenumber=forcing_wavenumber,
    )  # fmt: skip
    rows += reference_rows(
        "box_drag_beta_if_rk4 (max relative difference)",
        base,
        w0,
        turbulent_time_steps,
        reference_step,
    )
    return log_table(rows, "Navier-Stokes box verification", logger)
