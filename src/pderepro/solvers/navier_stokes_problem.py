"""The forced two-dimensional vorticity problem on the unit torus: its parameters, their
checks and the grids, times and forcing derived from them (solved by
:mod:`pderepro.solvers.navier_stokes`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pderepro.solvers.torus import GRF_EXPONENT, GRF_SCALE, GRF_SHIFT

__all__ = ["NavierStokesProblem"]


def _is_real(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _whole_ratio(numerator: float, denominator: float) -> int | None:
    ratio = numerator / denominator
    n = round(ratio)
    return n if n >= 1 and abs(ratio - n) <= 1e-9 * ratio else None


@dataclass(frozen=True)
class NavierStokesProblem:
    """Parameters of the forced 2-D vorticity problem on the unit torus.

    Defaults are the FNO paper's ``nu = 1e-3`` setting (Li et al. 2021).

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
        ``A`` in ``f(x, y) = A (sin(2 pi (x + y)) + cos(2 pi (x + y)))`` (vorticity / time).
    grf_scale, grf_shift, grf_exponent : float
        Initial-vorticity covariance ``scale (-Delta + shift I)^(-exponent)``; ``shift`` in
        1/length^2, see :func:`sample_vorticity_grf`.
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

    def __post_init__(self) -> None:
        names = ("t_final", "time_step", "record_interval", "grf_scale", "grf_exponent")
        for name in names:
            value = getattr(self, name)
            if not (_is_real(value) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value!r}")
        value = self.viscosity
        if not (_is_real(value) and math.isfinite(value) and value >= 0):
            raise ValueError(f"viscosity must be a non-negative finite number, got {value!r}")
        for name in ("forcing_amplitude", "grf_shift"):
            value = getattr(self, name)
            if not (_is_real(value) and math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if self.grf_shift + 4.0 * math.pi**2 <= 0:
            raise ValueError(f"grf_shift={self.grf_shift} makes the covariance non-positive")
        n = self.resolution
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 8 or n % 2:
            raise ValueError(f"resolution must be an even integer >= 8, got {n!r}")
        if _whole_ratio(self.record_interval, self.time_step) is None:
            raise ValueError(
                f"time_step={self.time_step} does not divide record_interval="
                f"{self.record_interval} into a whole number of steps"
            )
        if _whole_ratio(self.t_final, self.record_interval) is None:
            raise ValueError(
                f"record_interval={self.record_interval} does not divide t_final="
                f"{self.t_final} into a whole number of records"
            )

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
        """Grid coordinates ``j / resolution`` along either axis, shape ``(resolution,)``."""
        return np.arange(self.resolution, dtype=np.float64) / self.resolution

    def forcing(self) -> np.ndarray:
        """Forcing ``f(x_i, y_j)``, shape ``(resolution, resolution)`` (vorticity / time)."""
        x = self.grid
        phase = 2.0 * np.pi * (x[:, None] + x[None, :])
        return self.forcing_amplitude * (np.sin(phase) + np.cos(phase))
