"""Steady Darcy flow on the unit square: random coefficients and a finite-difference solver.

Solves ``-div(a grad u) = f`` on ``(0, 1)^2`` with ``u = 0`` on the boundary, as in the FNO
paper's Darcy benchmark (Li et al., Fourier Neural Operator for Parametric PDEs, ICLR 2021,
Section 5.2). The coefficient is ``a = psi(g)`` with
``g`` a zero-mean Gaussian random field of covariance ``scale * (-Delta + shift I)^(-exponent)``
under zero-Neumann boundary conditions (a cosine series) and ``psi`` a two-valued threshold.

Arrays are vertex values on the grid ``x_i = i h``, ``y_j = j h``, ``h = 1 / (s - 1)``, boundary
included, indexed ``[..., i, j]`` (axis -2 is ``x``, axis -1 is ``y``). The discretisation is the
conservative 5-point scheme; each sample's sparse system is solved with SuperLU. Its face
coefficients are, by default, the harmonic mean ``2 a1 a2 / (a1 + a2)`` of the two neighbouring
vertex values: where ``a`` jumps midway between two vertices, as the thresholded ``psi(g)``
does, that is the coefficient which passes a constant flux between them exactly (the two
half-cells act as resistances ``h / (2 a1)`` and ``h / (2 a2)`` in series), whereas the
arithmetic mean ``(a1 + a2) / 2`` overstates it and costs first-order accuracy. The arithmetic
mean stays available (``face_mean``) because the FNO authors' published generator uses it
(on a coefficient spline-interpolated to the vertices): data meant to match the paper's use it.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.fft
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from pderepro.solvers.common.checks import check_count, check_real

logger = logging.getLogger(__name__)

#: Smallest non-zero eigenvalue of ``-Delta`` with zero-Neumann conditions on the unit square.
_NEUMANN_GAP = math.pi**2


def _check_grf(shift: float, exponent: float, scale: float) -> None:
    if check_real("grf shift", shift) + _NEUMANN_GAP <= 0:
        raise ValueError(f"grf shift={shift!r} must be > -pi^2 so the covariance is positive")
    check_real("grf exponent", exponent, positive=True)
    check_real("grf scale", scale, positive=True)


#: Face coefficient from the two vertex values ``a1, a2`` it separates (units of ``a``).
FACE_MEANS = {
    "harmonic": lambda a1, a2: 2.0 * a1 * a2 / (a1 + a2),
    "arithmetic": lambda a1, a2: 0.5 * (a1 + a2),
}


@dataclass(frozen=True)
class DarcyProblem:
    """Parameters of the Darcy benchmark on the unit square.

    Attributes
    ----------
    resolution : int
        Grid points per side ``s``, boundary included (421 in the paper).
    psi_high, psi_low : float
        Coefficient values (permeability units) where ``g >= 0`` and ``g < 0``.
    forcing : float
        Constant source ``f`` (units of ``u`` * permeability / length^2).
    grf_shift : float
        ``tau^2`` in the covariance ``scale * (-Delta + tau^2 I)^(-exponent)`` (1/length^2).
    grf_exponent : float
        ``alpha`` in the covariance.
    grf_scale : float
        Overall variance factor (units of ``g^2`` * length^(-2 alpha)); it does not change the
        sign of ``g``, hence not ``a``.
    face_mean : str
        How a face coefficient is made from its two vertex values: ``harmonic`` or
        ``arithmetic`` (see :data:`FACE_MEANS`).
    """

    resolution: int = 421
    psi_high: float = 12.0
    psi_low: float = 3.0
    forcing: float = 1.0
    grf_shift: float = 9.0
    grf_exponent: float = 2.0
    grf_scale: float = 1.0
    face_mean: str = "harmonic"

    def __post_init__(self) -> None:
        if self.face_mean not in FACE_MEANS:
            raise ValueError(
                f"face_mean must be one of {sorted(FACE_MEANS)}, got {self.face_mean!r}"
            )
        check_count("resolution", self.resolution, 3)
        check_real("psi_high", self.psi_high, positive=True)
        check_real("psi_low", self.psi_low, positive=True)
        check_real("forcing", self.forcing)
        _check_grf(self.grf_shift, self.grf_exponent, self.grf_scale)

    @property
    def h(self) -> float:
        """Grid spacing ``1 / (resolution - 1)`` (length units)."""
        return 1.0 / (self.resolution - 1)

    @property
    def grid(self) -> np.ndarray:
        """Vertex coordinates ``i h``, ``i = 0..resolution-1``, shape ``(resolution,)``."""
        return np.linspace(0.0, 1.0, self.resolution)


def cosine_grf_eigenvalues(
    n_modes: int, *, shift: float = 9.0, exponent: float = 2.0, scale: float = 1.0
) -> np.ndarray:
    """Covariance eigenvalues ``scale * (pi^2 (k1^2 + k2^2) + shift)^(-exponent)``.

    Parameters
    ----------
    n_modes : int
        Modes ``k1, k2 = 0..n_modes-1`` per direction.
    shift, exponent, scale : float
        Covariance parameters, see :class:`DarcyProblem`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_modes, n_modes)``; entry ``[0, 0]`` (the mean mode) is set to zero.
    """
    k = np.pi * np.arange(n_modes, dtype=np.float64)
    lam = scale * (k[:, None] ** 2 + k[None, :] ** 2 + shift) ** (-exponent)
    lam[0, 0] = 0.0
    return lam


def sample_cosine_grf(
    n_samples: int,
    resolution: int,
    *,
    shift: float = 9.0,
    exponent: float = 2.0,
    scale: float = 1.0,
    rng: np.random.Generator,
    n_modes: int | None = None,
) -> np.ndarray:
    """Draw zero-Neumann Gaussian random fields on the vertex grid of the unit square.

    Karhunen-Loeve expansion in the orthonormal Neumann eigenfunctions
    ``phi_k = c_k1 c_k2 cos(pi k1 x) cos(pi k2 y)`` (``c_0 = 1``, ``c_k = sqrt(2)`` otherwise):
    ``g = sum_k sqrt(lambda_k) xi_k phi_k`` with ``xi_k ~ N(0, 1)`` iid and the mean mode
    ``k = (0, 0)`` dropped, so the spatial mean of ``g`` is zero and its domain-averaged variance
    is ``sum_k lambda_k``. The series is truncated at ``k1, k2 < n_modes`` and summed exactly on
    the grid ``x_i = i / (resolution - 1)`` with a type-I DCT. Every odd-order normal derivative of
    each term vanishes on the boundary, so ``dg/dn = 0`` there.

    Parameters
    ----------
    n_samples : int
        Number of independent fields.
    resolution : int
        Grid points per side, boundary included.
    shift, exponent, scale : float
        Covariance ``scale * (-Delta + shift I)^(-exponent)``, see :class:`DarcyProblem`.
    rng : numpy.random.Generator
        Source of the ``n_samples * n_modes^2`` standard normals, drawn in C order of
        ``(sample, k1, k2)``; drawing a batch at once or sample by sample gives the same fields.
    n_modes : int, optional
        Modes per direction, ``2 <= n_modes <= resolution``; defaults to ``resolution`` (all
        modes the grid resolves). Fixing it makes fields at different resolutions the same
        function sampled on nested grids.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_samples, resolution, resolution)``, float64.
    """
    n_samples = check_count("n_samples", n_samples, 0)
    resolution = check_count("resolution", resolution, 3)
    _check_grf(shift, exponent, scale)
    n_modes = resolution if n_modes is None else check_count("n_modes", n_modes, 2)
    if n_modes > resolution:
        raise ValueError(f"n_modes={n_modes} exceeds resolution={resolution}; modes would alias")

    lam = cosine_grf_eigenvalues(n_modes, shift=shift, exponent=exponent, scale=scale)
    norm = np.full(n_modes, math.sqrt(2.0))
    norm[0] = 1.0
    amplitude = np.sqrt(lam) * norm[:, None] * norm[None, :]  # (K, K)

    xi = rng.standard_normal((n_samples, n_modes, n_modes))  # (n, K, K)
    coeffs = np.zeros((n_samples, resolution, resolution))
    coeffs[:, :n_modes, :n_modes] = amplitude * xi
    # Unnormalised DCT-I: y_i = x_0 + (-1)^i x_{N-1} + 2 sum_{0<k<N-1} x_k cos(pi k i / (N-1));
    # halving the interior coefficients per axis turns it into sum_k x_k cos(pi k i / (N-1)).
    coeffs[:, 1:-1, :] *= 0.5
    coeffs[:, :, 1:-1] *= 0.5
    return scipy.fft.dctn(coeffs, type=1, axes=(1, 2), workers=1)


def coefficient_from_field(g: np.ndarray, problem: DarcyProblem) -> np.ndarray:
    """Threshold a field: ``psi_high`` where ``g >= 0``, ``psi_low`` where ``g < 0``.

    Parameters
    ----------
    g : numpy.ndarray
        Field values, any shape.
    problem : DarcyProblem
        Supplies ``psi_high`` and ``psi_low`` (permeability units).

    Returns
    -------
    numpy.ndarray
        float64 array with the shape of ``g``.
    """
    g = np.asarray(g)
    if np.isnan(g).any():
        raise ValueError("field g contains NaN; cannot threshold it")
    return np.where(g >= 0, float(problem.psi_high), float(problem.psi_low))


def darcy_operator(a: np.ndarray, h: float, face_mean: str = "harmonic") -> sp.csr_matrix:
    """Matrix of the 5-point ``-div(a grad .)`` on the interior vertices, Dirichlet boundary.

    Unknowns are the interior vertices ``(i, j)``, ``1 <= i, j <= s - 2``, in C order (row
    ``p = (i - 1) (s - 2) + (j - 1)``). Row ``p`` reads
    ``(a_E (u_p - u_E) + a_W (u_p - u_W) + a_N (u_p - u_N) + a_S (u_p - u_S)) / h^2`` with face
    coefficients a mean of the two vertex values they separate, such as the harmonic
    ``a_E = 2 a[i, j] a[i + 1, j] / (a[i, j] + a[i + 1, j])``; boundary neighbours are zero and
    drop out. The matrix is symmetric, and positive definite for positive ``a``.

    Parameters
    ----------
    a : numpy.ndarray
        Shape ``(s, s)``, positive vertex values of the coefficient (permeability units),
        boundary included.
    h : float
        Grid spacing (length units).
    face_mean : str
        ``harmonic`` or ``arithmetic`` (:data:`FACE_MEANS`).

    Returns
    -------
    scipy.sparse.csr_matrix
        Shape ``((s - 2)^2, (s - 2)^2)``, units of ``a`` / length^2.
    """
    s = a.shape[-1]
    m = s - 2
    mean = FACE_MEANS[face_mean]
    ax = mean(a[1:, :], a[:-1, :])  # (s-1, s): face between (i, j) and (i+1, j)
    ay = mean(a[:, 1:], a[:, :-1])  # (s, s-1): face between (i, j) and (i, j+1)
    east, west = ax[1:, 1:-1], ax[:-1, 1:-1]  # (m, m)
    north, south = ay[1:-1, 1:], ay[1:-1, :-1]  # (m, m)

    # Five candidate entries per row, in increasing column order: offsets -m, -1, 0, +1, +m.
    vals = np.stack([-west, -south, east + west + north + south, -north, -east], axis=-1)
    i, j = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")  # (m, m)
    valid = np.stack([i > 0, j > 0, np.ones_like(i, bool), j < m - 1, i < m - 1], axis=-1)
    p = i * m + j
    cols = p[..., None] + np.array([-m, -1, 0, 1, m])  # (m, m, 5)
    data = vals[valid] / h**2
    indices = cols[valid].astype(np.int32)
    indptr = np.zeros(m * m + 1, dtype=np.int32)
    np.cumsum(valid.reshape(m * m, 5).sum(axis=1), out=indptr[1:])
    return sp.csr_matrix((data, indices, indptr), shape=(m * m, m * m))


def _as_batch(x: np.ndarray, name: str, s: int) -> np.ndarray:
    if x.ndim not in (2, 3) or x.shape[-2:] != (s, s):
        raise ValueError(f"{name} must have shape (s, s) or (n, s, s) with s={s}, got {x.shape}")
    return x if x.ndim == 3 else x[None]


def solve_darcy(
    a: np.ndarray, problem: DarcyProblem, rhs: float | np.ndarray | None = None
) -> np.ndarray:
    """Solve ``-div(a grad u) = f`` on the unit square with ``u = 0`` on the boundary.

    Parameters
    ----------
    a : numpy.ndarray
        Shape ``(s, s)`` or ``(n, s, s)`` with ``s = problem.resolution``: positive finite
        vertex values of the coefficient (permeability units), boundary included.
    problem : DarcyProblem
        Grid and, when ``rhs`` is None, the constant source ``problem.forcing``.
    rhs : float or numpy.ndarray, optional
        Source ``f`` (units of ``u`` * permeability / length^2): a number, or vertex values of
        shape ``(s, s)`` (shared by all samples) or ``(n, s, s)``. Only interior values are used.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``a``; the solution at the vertices, exactly zero on the boundary.
    """
    s = problem.resolution
    a_in = np.asarray(a, dtype=np.float64)
    a3 = _as_batch(a_in, "a", s)  # (n, s, s)
    if not np.isfinite(a3).all():
        raise ValueError("coefficient a contains non-finite values")
    if (a3 <= 0).any():
        raise ValueError(f"coefficient a must be positive, got minimum {a3.min()!r}")

    if rhs is None:
        rhs = problem.forcing
    f = np.asarray(rhs, dtype=np.float64)
    if f.ndim == 0:
        f = np.full((s, s), float(f))
    f3 = _as_batch(f, "rhs", s)
    if f3.shape[0] not in (1, a3.shape[0]):
        raise ValueError(f"rhs has {f3.shape[0]} samples but a has {a3.shape[0]}")
    if not np.isfinite(f3).all():
        raise ValueError("rhs contains non-finite values")

    u = np.zeros_like(a3)
    for n in range(a3.shape[0]):
        matrix = darcy_operator(a3[n], problem.h, problem.face_mean)
        # The matrix is symmetric, so its CSR arrays are also its CSC arrays (no conversion).
        # Minimum degree on A^T + A and no pivoting (safe: symmetric positive definite) roughly
        # halve SuperLU's fill and time against the default COLAMD ordering.
        csc = sp.csc_matrix((matrix.data, matrix.indices, matrix.indptr), shape=matrix.shape)
        lu = spla.splu(
            csc,
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,
            options={"SymmetricMode": True},
        )
        b = f3[min(n, f3.shape[0] - 1), 1:-1, 1:-1].ravel()
        u[n, 1:-1, 1:-1] = lu.solve(b).reshape(s - 2, s - 2)
    return u if a_in.ndim == 3 else u[0]


def generate_darcy_samples(
    n_samples: int, problem: DarcyProblem, *, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Draw coefficients ``a = psi(g)`` and solve for ``u`` with ``f = problem.forcing``.

    Sample ``n`` is identical to sample ``n`` of
    ``coefficient_from_field(sample_cosine_grf(n_samples, s, ..., rng=default_rng(seed)))``;
    fields are drawn one at a time to bound memory. Progress is logged about every 10%.

    Parameters
    ----------
    n_samples : int
        Number of pairs.
    problem : DarcyProblem
        Grid, coefficient values, forcing and GRF parameters.
    seed : int
        Seed of ``numpy.random.default_rng``; use distinct seeds for distinct splits.

    Returns
    -------
    a, u : numpy.ndarray
        Each ``(n_samples, s, s)`` float64: coefficient (permeability units) and solution.
    """
    n_samples = check_count("n_samples", n_samples, 0)
    rng = np.random.default_rng(seed)
    s = problem.resolution
    a = np.empty((n_samples, s, s))
    u = np.empty((n_samples, s, s))
    every = max(1, math.ceil(n_samples / 10))
    start = time.perf_counter()
    for n in range(n_samples):
        g = sample_cosine_grf(
            1,
            s,
            shift=problem.grf_shift,
            exponent=problem.grf_exponent,
            scale=problem.grf_scale,
            rng=rng,
        )
        a[n] = coefficient_from_field(g[0], problem)
        u[n] = solve_darcy(a[n], problem)
        if (n + 1) % every == 0 or n + 1 == n_samples:
            logger.info(
                "Darcy s=%d: %d/%d samples, %.1f s elapsed",
                s,
                n + 1,
                n_samples,
                time.perf_counter() - start,
            )
    return a, u
