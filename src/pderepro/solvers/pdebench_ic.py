"""PDEBench 1-D initial conditions on the periodic unit interval (REFERENCES §3).

Every sample is a sum of two sines ``A_i sin(2 pi n_i x + phi_i)`` with ``n_i`` uniform on
``{1, 2, 3, 4}``, ``A_i ~ U(0, 1)`` and ``phi_i ~ U(0, 2 pi)``; with probability 0.1 its
absolute value is taken; its sign is flipped with probability 1/2; and with probability 0.1 it
is multiplied by the window ``(tanh((x - x_L) / 0.01) - tanh((x - x_R) / 0.01)) / 2`` with
``x_L ~ U(0.1, 0.45)``, ``x_R ~ U(0.55, 0.9)``. The steps are applied in that order.

The drawn parameters are kept (:class:`SinesIC`) rather than only the sampled field, because
the solvers evaluate the formula itself at other points: advection at shifted points, Burgers
on a grid finer than the saved one. The formula is evaluated at ``x mod 1``, i.e. the
periodic extension of its values on [0, 1). The window is not exactly periodic: its values at
``x = 0`` and ``x = 1`` differ by at most ``exp(-20) ~ 2e-9`` (``x_L >= 0.1``,
``x_R <= 0.9``), a jump of that relative size that every periodic solver sees.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

#: Saved grid of the PDEBench 1-D data: cells on [0, 1) and frames (REFERENCES §3).
N_CELLS = 1024
N_FRAMES = 201
#: Final time of advection and Burgers (time units); frames are 0.01 apart.
T_FINAL = 2.0
#: Sine mode numbers ``n`` are drawn uniformly from ``1..MAX_MODE``.
MAX_MODE = 4
N_SINES = 2
P_ABSOLUTE = 0.1
P_NEGATIVE = 0.5
P_WINDOW = 0.1
#: Width of the window's tanh edges (length units).
WINDOW_WIDTH = 0.01
WINDOW_LEFT = (0.1, 0.45)
WINDOW_RIGHT = (0.55, 0.9)
#: Bound on ``|u0|`` for this family: two amplitudes below 1, and abs, sign and window
#: (values in [0, 1]) cannot increase it (velocity units).
SPEED_BOUND = 2.0


@dataclass(frozen=True)
class SinesIC:
    """Drawn parameters of one PDEBench initial condition.

    Attributes
    ----------
    modes : tuple of int
        Mode numbers ``n_i`` (wavenumber ``2 pi n_i``, 1/length).
    amplitudes : tuple of float
        ``A_i`` (velocity units).
    phases : tuple of float
        ``phi_i`` (radians).
    absolute : bool
        Whether ``|.|`` was taken.
    sign : float
        +1.0 or -1.0.
    windowed : bool
        Whether the window multiplies the field.
    x_left, x_right : float
        Window edges (length units); drawn for every sample so that every sample consumes
        the same number of random draws, used only when ``windowed``.
    """

    modes: tuple[int, ...]
    amplitudes: tuple[float, ...]
    phases: tuple[float, ...]
    absolute: bool = False
    sign: float = 1.0
    windowed: bool = False
    x_left: float = 0.25
    x_right: float = 0.75

    def __post_init__(self) -> None:
        if not (len(self.modes) == len(self.amplitudes) == len(self.phases) >= 1):
            raise ValueError(
                "modes, amplitudes and phases must have one common non-zero length, got "
                f"{len(self.modes)}, {len(self.amplitudes)}, {len(self.phases)}"
            )
        if any(isinstance(n, bool) or int(n) != n or n < 1 for n in self.modes):
            raise ValueError(f"modes must be positive integers, got {self.modes}")
        values = (*self.amplitudes, *self.phases, self.x_left, self.x_right)
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"initial-condition parameters must be finite, got {self}")
        if self.sign not in (1.0, -1.0):
            raise ValueError(f"sign must be +1 or -1, got {self.sign}")
        if self.windowed and not self.x_left < self.x_right:
            raise ValueError(f"need x_left < x_right, got {self.x_left}, {self.x_right}")

    def record(self) -> dict[str, float | int | bool]:
        """Flat dictionary of the parameters (``n1, a1, phi1, n2, ...``) for a data record."""
        out: dict[str, float | int | bool] = {}
        for i, (n, a, phi) in enumerate(
            zip(self.modes, self.amplitudes, self.phases, strict=True), start=1
        ):
            out |= {f"n{i}": int(n), f"a{i}": float(a), f"phi{i}": float(phi)}
        flags = asdict(self)
        for key in ("absolute", "sign", "windowed", "x_left", "x_right"):
            out[key] = flags[key]
        return out


def cell_centres(n_cells: int = N_CELLS) -> np.ndarray:
    """Cell centres ``(j + 1/2) / n_cells`` of the uniform grid on [0, 1).

    Parameters
    ----------
    n_cells : int
        Number of cells.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_cells,)``, length units.
    """
    if isinstance(n_cells, bool) or int(n_cells) != n_cells or n_cells < 1:
        raise ValueError(f"n_cells must be a positive integer, got {n_cells!r}")
    return (np.arange(int(n_cells), dtype=np.float64) + 0.5) / n_cells


def frame_times(t_final: float = T_FINAL, n_frames: int = N_FRAMES) -> np.ndarray:
    """Saved times ``t_k = k t_final / (n_frames - 1)``, shape ``(n_frames,)`` (time units)."""
    if not (math.isfinite(t_final) and t_final > 0):
        raise ValueError(f"t_final must be positive and finite, got {t_final!r}")
    if isinstance(n_frames, bool) or int(n_frames) != n_frames or n_frames < 2:
        raise ValueError(f"n_frames must be an integer >= 2, got {n_frames!r}")
    # Multiply before dividing so that e.g. t_25 = 0.25 exactly.
    return np.arange(int(n_frames), dtype=np.float64) * t_final / (n_frames - 1)


def draw_initial_condition(rng: np.random.Generator) -> SinesIC:
    """Draw one initial condition's parameters.

    The draws are made in a fixed order and number (modes, amplitudes, phases, the abs flag,
    the sign, the window flag, ``x_L``, ``x_R``), so one generator per sample, seeded by the
    caller, reproduces that sample alone.

    Parameters
    ----------
    rng : numpy.random.Generator
        The sample's generator.

    Returns
    -------
    SinesIC
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    modes = rng.integers(1, MAX_MODE + 1, size=N_SINES)
    amplitudes = rng.uniform(0.0, 1.0, size=N_SINES)
    phases = rng.uniform(0.0, 2.0 * np.pi, size=N_SINES)
    absolute, negative, windowed = rng.random(3) < (P_ABSOLUTE, P_NEGATIVE, P_WINDOW)
    return SinesIC(
        modes=tuple(int(n) for n in modes),
        amplitudes=tuple(float(a) for a in amplitudes),
        phases=tuple(float(p) for p in phases),
        absolute=bool(absolute),
        sign=-1.0 if negative else 1.0,
        windowed=bool(windowed),
        x_left=float(rng.uniform(*WINDOW_LEFT)),
        x_right=float(rng.uniform(*WINDOW_RIGHT)),
    )


def window(x: np.ndarray, x_left: np.ndarray, x_right: np.ndarray) -> np.ndarray:
    """The smooth window ``(tanh((x - x_L) / 0.01) - tanh((x - x_R) / 0.01)) / 2``.

    Parameters
    ----------
    x : numpy.ndarray
        Points (length units).
    x_left, x_right : numpy.ndarray
        Edges (length units), broadcastable with ``x``.

    Returns
    -------
    numpy.ndarray
        Values in [0, 1], the broadcast shape.
    """
    return 0.5 * (np.tanh((x - x_left) / WINDOW_WIDTH) - np.tanh((x - x_right) / WINDOW_WIDTH))


def evaluate_initial_conditions(ics: Sequence[SinesIC], x: np.ndarray) -> np.ndarray:
    """Evaluate initial conditions at points ``x`` (taken modulo 1).

    Parameters
    ----------
    ics : sequence of SinesIC
        ``S`` initial conditions with a common number of sines.
    x : numpy.ndarray
        Points (length units), shape ``(P,)`` shared by all samples or ``(S, P)``.

    Returns
    -------
    numpy.ndarray
        ``u0``, shape ``(S, P)``, float64 (velocity units).
    """
    if len(ics) == 0:
        raise ValueError("need at least one initial condition")
    if len({len(ic.modes) for ic in ics}) != 1:
        raise ValueError("all initial conditions must have the same number of sines")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[0] != len(ics)):
        raise ValueError(f"x must have shape (P,) or ({len(ics)}, P), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    xs = np.broadcast_to(np.mod(x, 1.0), (len(ics), x.shape[-1]))  # (S, P)
    k = 2.0 * np.pi * np.array([ic.modes for ic in ics], dtype=np.float64)  # (S, n_sines)
    amp = np.array([ic.amplitudes for ic in ics])
    phase = np.array([ic.phases for ic in ics])
    u = np.zeros(xs.shape)
    for i in range(k.shape[1]):  # a loop over 2 sines keeps memory at (S, P)
        u += amp[:, i, None] * np.sin(k[:, i, None] * xs + phase[:, i, None])
    absolute = np.array([ic.absolute for ic in ics])
    u[absolute] = np.abs(u[absolute])
    u *= np.array([ic.sign for ic in ics])[:, None]
    windowed = np.array([ic.windowed for ic in ics])
    if windowed.any():
        left = np.array([ic.x_left for ic in ics])[windowed, None]
        right = np.array([ic.x_right for ic in ics])[windowed, None]
        u[windowed] *= window(xs[windowed], left, right)
    return u


def sample_initial_conditions(
    rngs: Sequence[np.random.Generator], x: np.ndarray
) -> tuple[np.ndarray, list[SinesIC]]:
    """Draw one initial condition per generator and evaluate it at ``x``.

    Parameters
    ----------
    rngs : sequence of numpy.random.Generator
        One generator per sample (e.g. ``numpy.random.default_rng(seed_i)``; record the
        seeds).
    x : numpy.ndarray
        Points (length units), shape ``(P,)``, usually :func:`cell_centres`.

    Returns
    -------
    u0 : numpy.ndarray
        Shape ``(len(rngs), P)``, float64 (velocity units).
    ics : list of SinesIC
        The drawn parameters, in sample order.
    """
    ics = [draw_initial_condition(rng) for rng in rngs]
    return evaluate_initial_conditions(ics, x), ics
