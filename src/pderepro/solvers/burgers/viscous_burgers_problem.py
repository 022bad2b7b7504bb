"""Settings of a PDEBench viscous Burgers solve and the internal grid and step they imply.

The rule (why the grid is ``n_cells * 2^p`` with ``points_per_front`` points per thinnest
front, and the step a Courant number of the dealiased ``k_max``) is explained in
:mod:`pderepro.solvers.burgers.viscous_burgers`, which solves the problem. Kept free of torch: the
data specs size generation jobs from :attr:`PDEBenchBurgersProblem.resolution` and
:attr:`PDEBenchBurgersProblem.steps_per_frame` when Snakemake builds the DAG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pderepro.solvers.common.checks import check_count, check_real
from pderepro.solvers.common.pdebench_ic import N_CELLS, N_FRAMES, SPEED_BOUND, T_FINAL

__all__ = ["PDEBenchBurgersProblem"]


@dataclass(frozen=True)
class PDEBenchBurgersProblem:
    """Settings of one PDEBench Burgers solve.

    Attributes
    ----------
    nu : float
        PDEBench viscosity parameter; the diffusion coefficient is ``nu / pi``
        (length^2 / time).
    n_cells : int
        Saved cells on [0, 1).
    t_final : float
        Time of the last frame (time units).
    n_frames : int
        Saved frames, ``t_k = k t_final / (n_frames - 1)``.
    speed_bound : float
        Bound ``U`` on ``|u0|`` (velocity units); sets grid and step, checked on the data.
    points_per_front : float
        Internal grid points per minimal front width ``2 nu / (pi U)``.
    courant : float
        ``dt U k_max``, with ``k_max = 2 pi N / 3`` the largest retained wavenumber.
    internal_resolution : int, optional
        Internal grid size, a multiple of ``n_cells``; overrides the rule (for convergence
        studies).
    """

    nu: float
    n_cells: int = N_CELLS
    t_final: float = T_FINAL
    n_frames: int = N_FRAMES
    speed_bound: float = SPEED_BOUND
    points_per_front: float = 5.0
    courant: float = 4.0
    internal_resolution: int | None = None

    def __post_init__(self) -> None:
        for name in ("nu", "t_final", "speed_bound", "points_per_front", "courant"):
            check_real(name, getattr(self, name), positive=True)
        if check_count("n_cells", self.n_cells, 4) % 2:
            raise ValueError(f"n_cells must be even, got {self.n_cells}")
        check_count("n_frames", self.n_frames, 2)
        if self.internal_resolution is not None:
            n = check_count("internal_resolution", self.internal_resolution, self.n_cells)
            if n % self.n_cells:
                raise ValueError(
                    f"internal_resolution={n} must be a multiple of n_cells={self.n_cells}"
                )

    @property
    def diffusivity(self) -> float:
        """``nu / pi`` (length^2 / time)."""
        return self.nu / math.pi

    @property
    def resolution(self) -> int:
        """Internal grid size ``N``: ``n_cells * 2^p`` resolving the thinnest front."""
        if self.internal_resolution is not None:
            return int(self.internal_resolution)
        needed = self.points_per_front * self.speed_bound / (2.0 * self.diffusivity)
        return self.n_cells * 2 ** max(0, math.ceil(math.log2(needed / self.n_cells)))

    @property
    def stride(self) -> int:
        """Internal points per saved cell."""
        return self.resolution // self.n_cells

    @property
    def internal_grid(self) -> np.ndarray:
        """Internal points ``1 / (2 n_cells) + i / N``, shape ``(N,)`` (length units).

        Every ``stride``-th point is a cell centre ``(j + 1/2) / n_cells``.
        """
        return self.sampling_grid(1)

    def sampling_grid(self, oversample: int) -> np.ndarray:
        """``oversample`` times finer points ``1 / (2 n_cells) + i / (oversample N)``.

        Parameters
        ----------
        oversample : int
            Refinement factor ``r >= 1`` of the internal grid.

        Returns
        -------
        numpy.ndarray
            Shape ``(r N,)`` (length units); every ``r``-th point is an internal point.
        """
        n = check_count("oversample", oversample, 1) * self.resolution
        return 0.5 / self.n_cells + np.arange(n, dtype=np.float64) / n

    @property
    def frame_interval(self) -> float:
        """Time between saved frames (time units)."""
        return self.t_final / (self.n_frames - 1)

    @property
    def steps_per_frame(self) -> int:
        """ETDRK4 steps between saved frames."""
        k_max = 2.0 * math.pi * self.resolution / 3.0
        return max(1, math.ceil(self.frame_interval * self.speed_bound * k_max / self.courant))

    @property
    def time_step(self) -> float:
        """ETDRK4 step (time units)."""
        return self.frame_interval / self.steps_per_frame
