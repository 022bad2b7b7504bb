"""Large-scale stochastic forcing and linear drag of 1-D shallow water, exact on any grid.

A forced run keeps the flow turbulent (shocks forming and decaying in a statistically
steady state). The momentum equation gains ``f(x, t) - mu hu``:

    (hu)_t + (hu^2 + g h^2 / 2)_x = f(x, t) - mu hu,

with ``f = A sum_{k=1..m} [a_k(t) cos(2 pi k x / L) + b_k(t) sin(2 pi k x / L)]``: the
``2 m`` coefficients are independent Ornstein-Uhlenbeck processes of unit variance and
correlation time ``tau``, sampled exactly at the kick interval ``dt``.

The forcing and drag are applied as one exact kick per interval ``dt`` (Lie splitting
after the flux update of the interval):

    hu <- exp(-mu dt) hu + (1 - exp(-mu dt)) / mu * f(x, t_n),

with ``f`` averaged exactly over each cell. Both are linear in the cell averages, so the
block average of a fine run's kick is the coarse run's kick to round-off: the whole
difference between a filtered fine run and a coarse run then lies in the face fluxes (the
closure's target, :mod:`pderepro.solvers.shallow_water.coarse`).
"""

from __future__ import annotations

import math

import numpy as np


def ou_coefficients(
    rng: np.random.Generator, members: int, steps: int, modes: int, *, dt: float,
    correlation_time: float,
) -> np.ndarray:  # fmt: skip
    """Unit-variance Ornstein-Uhlenbeck coefficients sampled exactly every ``dt``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the noise (and of the stationary initial values).
    members, steps, modes : int
        Runs, kicks per run and forced wavenumbers ``m``.
    dt, correlation_time : float
        Kick interval and correlation time ``tau`` (time units).

    Returns
    -------
    numpy.ndarray
        ``(members, steps, 2 modes)`` float64: ``[a_1..a_m, b_1..b_m]`` at each kick.
    """
    decay = math.exp(-dt / correlation_time)
    spread = math.sqrt(1.0 - decay * decay)
    out = np.empty((members, steps, 2 * modes))
    current = rng.standard_normal((members, 2 * modes))  # stationary start
    noise = rng.standard_normal((members, steps, 2 * modes))
    for n in range(steps):
        out[:, n] = current
        current = decay * current + spread * noise[:, n]
    return out


def forcing_cell_averages(coefficients: np.ndarray, resolution: int, length: float,
                          amplitude: float) -> np.ndarray:  # fmt: skip
    """Exact cell averages of ``f`` on ``resolution`` uniform cells of ``[0, length)``.

    Parameters
    ----------
    coefficients : numpy.ndarray
        ``(S, 2 m)`` coefficients at one kick (:func:`ou_coefficients`).
    resolution : int
        Cells ``n``.
    length, amplitude : float
        Domain length and ``A`` (momentum per area and time).

    Returns
    -------
    numpy.ndarray
        ``(S, n)``: ``(1 / dx) int_cell f dx``.
    """
    coefficients = np.asarray(coefficients, dtype=np.float64)
    modes = coefficients.shape[-1] // 2
    k = np.arange(1, modes + 1)[:, None]  # (m, 1)
    faces = np.arange(resolution + 1) / resolution  # x / L
    phase = 2 * np.pi * k * faces  # (m, n + 1)
    scale = resolution / (2 * np.pi * k)  # 1 / (2 pi k dx / L)
    cos_mean = scale * np.diff(np.sin(phase), axis=-1)  # (m, n): mean of cos over a cell
    sin_mean = -scale * np.diff(np.cos(phase), axis=-1)
    return amplitude * (coefficients[:, :modes] @ cos_mean + coefficients[:, modes:] @ sin_mean)


def kick(state: np.ndarray, forcing: np.ndarray | None, dt: float, drag: float) -> np.ndarray:
    """Apply the forcing and drag of one interval exactly; returns a new ``(S, 2, n)`` state.

    Parameters
    ----------
    state : numpy.ndarray
        ``(S, 2, n)`` depth and discharge.
    forcing : numpy.ndarray or None
        ``(S, n)`` cell averages of ``f`` at the interval's start (None: no forcing).
    dt, drag : float
        Interval (time units) and ``mu`` (1/time, >= 0).
    """
    out = np.array(state, dtype=np.float64, copy=True)
    decay = math.exp(-drag * dt)
    gain = dt if drag == 0 else -math.expm1(-drag * dt) / drag
    out[:, 1] *= decay
    if forcing is not None:
        out[:, 1] += gain * forcing
    return out


def random_initial_states(
    rng: np.random.Generator, members: int, resolution: int, *, depth_amplitude: float,
    velocity_amplitude: float, modes: int,
) -> np.ndarray:  # fmt: skip
    """Smooth random periodic states ``(members, 2, n)`` averaged exactly over the cells.

    ``h = 1 + d(x)`` and ``u = v(x)`` with ``d, v`` sums of Fourier modes ``k = 1..modes`` of
    random phase and amplitude ``~ 1/k`` (normal), each scaled to the given root mean square;
    ``hu`` is the cell average of ``h u`` by the midpoint rule. Depths stay positive when
    ``depth_amplitude`` is below about 1/3.
    """

    def field() -> np.ndarray:  # (members, n) cell averages of unit rms
        coefficients = rng.standard_normal((members, 2 * modes))
        coefficients /= np.tile(np.arange(1, modes + 1), 2)
        values = forcing_cell_averages(coefficients, resolution, 1.0, 1.0)
        return values / np.sqrt((values**2).mean(axis=-1, keepdims=True))

    h = 1.0 + depth_amplitude * field()
    u = velocity_amplitude * field()
    u -= (h * u).mean(axis=-1, keepdims=True) / h.mean(axis=-1, keepdims=True)  # no net flow
    return np.stack([h, h * u], axis=1)
