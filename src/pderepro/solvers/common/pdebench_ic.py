"""PDEBench 1-D initial conditions as PDEBench's released data generator draws them
(docs/references.md, corrected 2026-12-05).

The law: of ``K = 4`` candidate modes ``k = 1..4``, two integers are drawn uniformly from
``{1..4}``, independently (they may coincide), and ``c_k`` counts how many of the two equal
``k`` (0, 1 or 2). For every ``k`` an amplitude ``A_k ~ U(0, 1)`` and a phase
``phi_k ~ U(0, 2 pi)`` are drawn, and

    ``u0(x) = sum_k A_k sin(2 pi k c_k x / L + phi_k)``,  ``L = x_N - x_1 = 1 - 1/N``

on the ``N = 1024`` cell centres. So an unselected candidate (``c_k = 0``) adds the constant
``A_k sin(phi_k)`` (every sample carries two or three such offsets: its mean is rarely near
zero), a mode drawn twice has its wavenumber doubled (mode numbers ``k c_k`` up to 8),
``|u0|`` reaches about 3.5 (bounded by 4), and the divisor ``L`` (the span of the cell
centres, not the period 1) stretches every wave by ``N / (N - 1)``: the field is not
exactly periodic, with a jump of at most ``2 pi (sum_k k c_k) / (N - 1) < 0.05`` where the
periodic extension wraps. Then, in this order: with probability 0.1 the absolute value is
taken; the field is multiplied by a random sign (probability 1/2 each); with probability
0.1 it is multiplied by the window ``(tanh((x - x_L) / 0.01) - tanh((x - x_R) / 0.01)) / 2``
with ``x_L ~ U(0.1, 0.45)`` and ``x_R ~ U(0.55, 0.9)``. Diffusion-reaction then rescales
each sample to [0, 1] (:mod:`pderepro.solvers.reaction_diffusion.diffusion_reaction`).

Not copied (artefacts of the released code's random-number use, not part of the law): it
draws ``x_L`` and ``x_R`` from one random number, so that ``x_R - x_L = 0.45`` always, and
shares random keys between several other draws. Here every draw is independent, from one
``numpy.random.Generator`` per sample.

The drawn parameters are kept (:class:`SinesIC`) rather than only the sampled field, because
the solvers evaluate the formula itself at other points: advection at shifted points, Burgers
on a grid finer than the saved one. The formula is evaluated at ``x mod 1``, i.e. the
periodic extension of its values on [0, 1): at the saved cell centres this is exactly the
released law, and the solvers see its boundary jump as the released solvers do. The window
itself is periodic to ``exp(-20) ~ 2e-9`` (``x_L >= 0.1``, ``x_R <= 0.9``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

#: Saved grid of the PDEBench 1-D data: cells on [0, 1) and frames (docs/references.md).
N_CELLS = 1024
N_FRAMES = 201
#: Final time of advection and Burgers (time units); frames are 0.01 apart.
T_FINAL = 2.0
#: Candidate modes ``k = 1..CANDIDATE_MODES``; ``MODE_DRAWS`` of them are drawn with
#: replacement.
CANDIDATE_MODES = 4
MODE_DRAWS = 2
#: The law's wavelength divisor: the span ``x_N - x_1`` of the released 1024 cell centres
#: (length units), not the period 1.
LAW_WAVELENGTH = 1.0 - 1.0 / N_CELLS
P_ABSOLUTE = 0.1
P_NEGATIVE = 0.5
P_WINDOW = 0.1
#: Width of the window's tanh edges (length units).
WINDOW_WIDTH = 0.01
WINDOW_LEFT = (0.1, 0.45)
WINDOW_RIGHT = (0.55, 0.9)
#: Bound on ``|u0|`` for this law: four amplitudes below 1, and abs, sign and window
#: (values in [0, 1]) cannot increase it (velocity units). The largest of 20,000 draws is
#: about 3.5.
SPEED_BOUND = 4.0


@dataclass(frozen=True)
class SinesIC:
    """Drawn parameters of one PDEBench initial condition: a sum of sines, then abs, sign, window.

    Attributes
    ----------
    modes : tuple of int
        Mode numbers ``n_i >= 0``: the wave is ``sin(2 pi n_i x / wavelength + phi_i)``. Under
        the law ``n_k = k c_k``; 0 (an unselected candidate) makes the constant
        ``A_i sin(phi_i)``.
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
    wavelength : float
        Divisor ``L`` of the waves (length units): :data:`LAW_WAVELENGTH` under the law, 1
        for exactly periodic sums of sines (the verification cases).
    """

    modes: tuple[int, ...]
    amplitudes: tuple[float, ...]
    phases: tuple[float, ...]
    absolute: bool = False
    sign: float = 1.0
    windowed: bool = False
    x_left: float = 0.25
    x_right: float = 0.75
    wavelength: float = 1.0

    def __post_init__(self) -> None:
        if not (len(self.modes) == len(self.amplitudes) == len(self.phases) >= 1):
            raise ValueError(
                "modes, amplitudes and phases must have one common non-zero length, got "
                f"{len(self.modes)}, {len(self.amplitudes)}, {len(self.phases)}"
            )
        if any(isinstance(n, bool) or int(n) != n or n < 0 for n in self.modes):
            raise ValueError(f"modes must be non-negative integers, got {self.modes}")
        values = (*self.amplitudes, *self.phases, self.x_left, self.x_right, self.wavelength)
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"initial-condition parameters must be finite, got {self}")
        if self.wavelength <= 0:
            raise ValueError(f"wavelength must be positive, got {self.wavelength}")
        if self.sign not in (1.0, -1.0):
            raise ValueError(f"sign must be +1 or -1, got {self.sign}")
        if self.windowed and not self.x_left < self.x_right:
            raise ValueError(f"need x_left < x_right, got {self.x_left}, {self.x_right}")

    @property
    def periodic_sines(self) -> bool:
        """Whether the sum of sines is exactly 1-periodic with zero mean (wavelength 1, no
        constant terms): what a Fourier or Cole-Hopf reference needs."""
        return self.wavelength == 1.0 and min(self.modes) >= 1

    def record(self) -> dict[str, float | int | bool]:
        """Flat dictionary of the parameters (``n1, a1, phi1, n2, ...``) for a data record."""
        out: dict[str, float | int | bool] = {}
        for i, (n, a, phi) in enumerate(
            zip(self.modes, self.amplitudes, self.phases, strict=True), start=1
        ):
            out |= {f"n{i}": int(n), f"a{i}": float(a), f"phi{i}": float(phi)}
        flags = asdict(self)
        for key in ("absolute", "sign", "windowed", "x_left", "x_right", "wavelength"):
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
    """Draw one initial condition's parameters under the released generator's law.

    The draws are made in a fixed order and number (the two candidate draws, four amplitudes,
    four phases, the abs flag, the sign, the window flag, ``x_L``, ``x_R``), so one generator
    per sample, seeded by the caller, reproduces that sample alone.

    Parameters
    ----------
    rng : numpy.random.Generator
        The sample's generator.

    Returns
    -------
    SinesIC
        Four sines, ``modes[k - 1] = k c_k`` (0 for an unselected candidate), wavelength
        :data:`LAW_WAVELENGTH`.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    drawn = rng.integers(1, CANDIDATE_MODES + 1, size=MODE_DRAWS)
    candidates = np.arange(1, CANDIDATE_MODES + 1)
    counts = (drawn[None, :] == candidates[:, None]).sum(axis=1)  # c_k, (CANDIDATE_MODES,)
    amplitudes = rng.uniform(0.0, 1.0, size=CANDIDATE_MODES)
    phases = rng.uniform(0.0, 2.0 * np.pi, size=CANDIDATE_MODES)
    absolute, negative, windowed = rng.random(3) < (P_ABSOLUTE, P_NEGATIVE, P_WINDOW)
    return SinesIC(
        modes=tuple(int(n) for n in candidates * counts),
        amplitudes=tuple(float(a) for a in amplitudes),
        phases=tuple(float(p) for p in phases),
        absolute=bool(absolute),
        sign=-1.0 if negative else 1.0,
        windowed=bool(windowed),
        x_left=float(rng.uniform(*WINDOW_LEFT)),
        x_right=float(rng.uniform(*WINDOW_RIGHT)),
        wavelength=LAW_WAVELENGTH,
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
    if len({ic.wavelength for ic in ics}) != 1:
        raise ValueError("all initial conditions must have the same wavelength")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[0] != len(ics)):
        raise ValueError(f"x must have shape (P,) or ({len(ics)}, P), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    xs = np.broadcast_to(np.mod(x, 1.0), (len(ics), x.shape[-1]))  # (S, P)
    k = 2.0 * np.pi / ics[0].wavelength * np.array([ic.modes for ic in ics], dtype=np.float64)
    amp = np.array([ic.amplitudes for ic in ics])
    phase = np.array([ic.phases for ic in ics])
    u = np.zeros(xs.shape)
    for i in range(k.shape[1]):  # (S, n_sines); a loop over sines keeps memory at (S, P)
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
