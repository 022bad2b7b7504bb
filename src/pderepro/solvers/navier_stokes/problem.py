"""The forced two-dimensional vorticity problem on a periodic square box (by default the unit
torus of the FNO paper): its parameters, their checks and the grids, times and forcing derived
from them (solved by :mod:`pderepro.solvers.navier_stokes.navier_stokes`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pderepro.solvers.common.checks import check_count, check_divides, check_real
from pderepro.solvers.navier_stokes.torus import GRF_EXPONENT, GRF_SCALE, GRF_SHIFT

__all__ = ["FORCING_KINDS", "NavierStokesProblem"]

#: Forcing shapes :meth:`NavierStokesProblem.forcing` knows (see ``forcing_kind``).
FORCING_KINDS = ("fno", "kolmogorov", "kolmogorov_xy")


@dataclass(frozen=True)
class NavierStokesProblem:
    """Parameters of the forced 2-D vorticity problem on the periodic box ``[0, L)^2``.

    The equation is ``w_t + u . grad w + beta v = nu Delta w - mu w + f`` with
    ``u = (u, v) = (psi_y, -psi_x)`` and ``-Delta psi = w``. Defaults are the FNO paper's
    ``nu = 1e-3`` setting (Li et al. 2021): unit box, no drag, no beta term, FNO forcing.

    Attributes
    ----------
    viscosity : float
        Kinematic viscosity ``nu`` (length^2 / time), ``>= 0``.
    t_final : float
        Final time ``T`` (time units).
    time_step : float
        Step ``h`` (time units); must divide ``record_interval``.
    resolution : int
        Grid points per side ``n``, even, ``>= 8``.
    record_interval : float
        Time between recorded fields (time units); must divide ``t_final``.
    forcing_amplitude : float
        ``A`` of the forcing (vorticity / time), see ``forcing_kind``.
    grf_scale, grf_shift, grf_exponent : float
        Initial-vorticity covariance ``scale (-Delta + shift I)^(-exponent)``; ``shift`` in
        1/length^2, see :func:`sample_vorticity_grf` (which samples on the unit torus; the
        values are not rescaled with ``box_size``).
    box_size : float
        Side ``L`` of the periodic box (length), ``> 0``; ``1`` is the FNO unit torus, ``2 pi``
        the usual box of 2-D turbulence studies. Angular wavenumbers are ``2 pi k / L`` for
        integer ``k``.
    drag : float
        Linear (Ekman/Rayleigh) drag coefficient ``mu`` (1/time), ``>= 0``.
    beta : float
        Planetary vorticity gradient ``beta`` (1/(length time)) of the beta-plane term
        ``beta v``; any sign. With it a single Fourier mode ``cos(k . x - omega t)`` is a
        Rossby wave, ``omega = -beta k_x / |k|^2`` (angular wavenumbers).
    forcing_kind : str
        ``"fno"``: ``f = A (sin(2 pi (x + y) / L) + cos(2 pi (x + y) / L))``, the FNO forcing
        (on the unit box). ``"kolmogorov"``: ``f = A cos(2 pi k_f y / L)``, ``k_f`` whole
        waves across the box; it is the curl of the body force
        ``(-(A / kappa_f) sin(kappa_f y), 0)``, ``kappa_f = 2 pi k_f / L``, a shear flow
        whose laminar state is ``w = A cos(kappa_f y) / (nu kappa_f^2 + mu)``.
        ``"kolmogorov_xy"``: ``f = A (cos(2 pi k_f x / L) + cos(2 pi k_f y / L))``, the same
        forcing in both directions (the form of Guan et al. 2022 and of their solver py2d,
        ``A = k_f`` there); both terms lie on the shell ``|kappa| = kappa_f``, so without beta
        the laminar state is ``w = f / (nu kappa_f^2 + mu)``.
    forcing_wavenumber : int
        ``k_f`` of the Kolmogorov forcings, ``>= 1`` (ignored for the FNO forcing).
    """

    viscosity: float = 1e-3
    t_final: float = 50.0
    time_step: float = 1e-4
    resolution: int = 256
    record_interval: float = 1.0
    forcing_amplitude: float = 0.1
    grf_scale: float = GRF_SCALE
    grf_shift: float = GRF_SHIFT
    grf_exponent: float = GRF_EXPONENT
    box_size: float = 1.0
    drag: float = 0.0
    beta: float = 0.0
    forcing_kind: str = "fno"
    forcing_wavenumber: int = 4

    def __post_init__(self) -> None:
        names = ("t_final", "time_step", "record_interval", "grf_scale", "grf_exponent")
        for name in (*names, "box_size"):
            check_real(name, getattr(self, name), positive=True)
        for name in ("viscosity", "drag"):
            check_real(name, getattr(self, name), non_negative=True)
        if self.forcing_kind not in FORCING_KINDS:
            kind = self.forcing_kind
            raise ValueError(f"forcing_kind must be one of {FORCING_KINDS}, got {kind!r}")
        k_f = check_count("forcing_wavenumber", self.forcing_wavenumber, 1)
        if self.forcing_kind in ("kolmogorov", "kolmogorov_xy") and 3 * k_f >= self.resolution:
            # on the grid, cos(2 pi k_f j / n) with k_f >= n / 3 is outside the advected modes
            # (or aliases onto a low one for k_f >= n / 2)
            raise ValueError(
                f"forcing_wavenumber {k_f} must lie below resolution / 3 = {self.resolution / 3:g}"
            )
        for name in ("forcing_amplitude", "grf_shift", "beta"):
            check_real(name, getattr(self, name))
        if self.grf_shift + 4.0 * math.pi**2 <= 0:
            raise ValueError(f"grf_shift={self.grf_shift} makes the covariance non-positive")
        n = self.resolution
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 8 or n % 2:
            raise ValueError(f"resolution must be an even integer >= 8, got {n!r}")
        check_divides("time_step", self.time_step, "record_interval", self.record_interval)
        check_divides("record_interval", self.record_interval, "t_final", self.t_final, "records")

    @property
    def steps_per_record(self) -> int:
        """Time steps between recorded fields."""
        return round(self.record_interval / self.time_step)

    @property
    def n_records(self) -> int:
        """Recorded times after the initial one: ``t_final / record_interval``."""
        return round(self.t_final / self.record_interval)

    @property
    def n_steps(self) -> int:
        """Time steps to reach ``t_final``."""
        return self.n_records * self.steps_per_record

    @property
    def record_times(self) -> np.ndarray:
        """Output times ``0, record_interval, ..., t_final``, shape ``(n_records + 1,)``."""
        return np.arange(self.n_records + 1, dtype=np.float64) * self.record_interval

    @property
    def grid(self) -> np.ndarray:
        """Grid coordinates ``L j / resolution`` along either axis, shape ``(resolution,)``
        (length)."""
        # j / n, then scaled: bit-identical to the unit-torus grid when L = 1
        return np.arange(self.resolution, dtype=np.float64) / self.resolution * self.box_size

    def forcing(self) -> np.ndarray:
        """Forcing ``f(x_i, y_j)``, shape ``(resolution, resolution)`` (vorticity / time).

        See ``forcing_kind``; ``x`` runs along axis 0 and ``y`` along axis 1.
        """
        # Phases from the unit-box coordinate j / n, so L = 1 reproduces the FNO forcing bit
        # for bit and other L give the same grid values (the forcing scales with the box).
        s = np.arange(self.resolution, dtype=np.float64) / self.resolution
        if self.forcing_kind in ("kolmogorov", "kolmogorov_xy"):
            wave = np.cos(2.0 * np.pi * self.forcing_wavenumber * s)
            shape = (s.size, s.size)
            if self.forcing_kind == "kolmogorov":
                return self.forcing_amplitude * np.broadcast_to(wave[None, :], shape)
            return self.forcing_amplitude * (wave[:, None] + wave[None, :])
        phase = 2.0 * np.pi * (s[:, None] + s[None, :])
        return self.forcing_amplitude * (np.sin(phase) + np.cos(phase))
