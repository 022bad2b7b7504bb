"""Reference solver for the study's 1-D Schrodinger eigenproblems, and their exact energies.

Dimensionless units (``hbar = 1``, ``2m = 1``): ``-psi'' + V psi = E psi``, so the infinite
well on [0, 1] has ``E_n = n^2 pi^2``, ``psi_n = sqrt(2) sin(n pi x)``. The three problems
(:data:`PROBLEMS`) have ``psi = 0`` at both ends of :data:`DOMAINS`. The finite-difference
states of :func:`eigenstates` are verified against the roots of the matching conditions
(:func:`finite_well_energies`, :func:`barrier_ground_energy`) in
:mod:`pderepro.verification.schrodinger`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import eigh_tridiagonal
from scipy.optimize import brentq

#: ``V = 0`` on [0, 1].
INFINITE_WELL = "infinite_well"
#: ``V = 0`` for ``|x| < a``, ``V0`` outside, truncated to [-3, 3].
FINITE_WELL = "finite_well"
#: ``V = V0`` for ``|x| < b``, 0 elsewhere in [-1, 1]: a symmetric double well.
BARRIER = "barrier"
#: The study's three problems.
PROBLEMS = (INFINITE_WELL, FINITE_WELL, BARRIER)

#: Finite well: ``V`` outside the well (energy units).
FINITE_WELL_DEPTH = 20.0
#: Finite well: half-width ``a`` (length units).
FINITE_WELL_HALF_WIDTH = 0.5
#: Finite well: the truncated domain's walls sit at ``+-FINITE_WELL_WALL`` (length units).
FINITE_WELL_WALL = 3.0
#: Barrier: ``V`` inside the barrier (energy units).
BARRIER_HEIGHT = 20.0
#: Barrier: half-width ``b`` (length units).
BARRIER_HALF_WIDTH = 0.1

#: ``(lo, hi)`` of each problem, with ``psi(lo) = psi(hi) = 0`` (length units).
DOMAINS = {
    INFINITE_WELL: (0.0, 1.0),
    FINITE_WELL: (-FINITE_WELL_WALL, FINITE_WELL_WALL),
    BARRIER: (-1.0, 1.0),
}
#: ``n_cells`` must be a multiple of these so that every jump of ``V`` is a grid node
#: (``h = 0.5 / m`` puts +-0.5 on nodes of [-3, 3]; ``h = 0.1 / m`` puts +-0.1 on [-1, 1]).
CELL_MULTIPLES = {INFINITE_WELL: 1, FINITE_WELL: 12, BARRIER: 20}
#: Grid of the study's reference (a multiple of every entry of :data:`CELL_MULTIPLES`):
#: energy errors at most 2.6e-7 relative (the finite well's ground state, ``h = 5e-4``;
#: measured in :mod:`~pderepro.verification.schrodinger`), ~10 ms a solve.
REFERENCE_CELLS = 12_000
#: Points closer than this to a jump of ``V`` count as on it (length units).
JUMP_TOLERANCE = 1e-9


def _step(x: np.ndarray, edge: float, inside: float, outside: float) -> np.ndarray:
    # the mean at |x| = edge is what the 3-point stencil sees there (the hat-weighted
    # average of V over the node's two cells), which keeps the energies O(h^2)
    r = np.abs(x)
    on_jump = np.abs(r - edge) <= JUMP_TOLERANCE
    v = np.where(r < edge, inside, outside)
    return np.where(on_jump, 0.5 * (inside + outside), v)


def potential(name: str, x: np.ndarray) -> np.ndarray:
    """``V(x)`` (energy units) of problem ``name`` at points ``x`` (length units).

    At a jump (``|x| = a`` or ``|x| = b``, within :data:`JUMP_TOLERANCE`) ``V`` is the mean
    of its two sides.
    """
    x = np.asarray(x, dtype=np.float64)
    if name == INFINITE_WELL:
        return np.zeros_like(x)
    if name == FINITE_WELL:
        return _step(x, FINITE_WELL_HALF_WIDTH, 0.0, FINITE_WELL_DEPTH)
    if name == BARRIER:
        return _step(x, BARRIER_HALF_WIDTH, BARRIER_HEIGHT, 0.0)
    raise ValueError(f"unknown problem {name!r}; expected one of {PROBLEMS}")


def eigenstates(
    name: str, n_cells: int, n_states: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lowest eigenstates of ``-psi'' + V psi = E psi`` by second-order finite differences.

    The grid is ``x_j = lo + j h``, ``h = (hi - lo) / n_cells``, with ``psi = 0`` at
    ``x_0`` and ``x_n``; the interior nodes give the symmetric tridiagonal matrix
    ``(2 / h^2 + V_j)`` on the diagonal and ``-1 / h^2`` beside it, whose lowest
    eigenpairs ``scipy.linalg.eigh_tridiagonal`` finds. The energies converge as ``O(h^2)``
    only if each jump of ``V`` sits on a node and takes the mean of its sides there (a jump
    inside a cell, or a one-sided value on the node, moves it by up to ``h / 2``: an
    ``O(h)`` error), so ``n_cells`` must be a multiple of :data:`CELL_MULTIPLES`.

    Parameters
    ----------
    name : str
        One of :data:`PROBLEMS`.
    n_cells : int
        Number of grid cells.
    n_states : int
        How many of the lowest states to return.

    Returns
    -------
    energies : numpy.ndarray
        ``(n_states,)`` ascending (energy units).
    x : numpy.ndarray
        ``(n_cells + 1,)`` grid (length units), both walls included.
    psi : numpy.ndarray
        ``(n_states, n_cells + 1)``, zero at the walls, with trapezoidal
        ``integral psi^2 dx = 1`` (units length^-1/2) and its leftmost value of magnitude
        at least half its maximum positive (so the ground state is positive inside).
    """
    if n_cells % CELL_MULTIPLES[name]:
        raise ValueError(f"{name}: n_cells={n_cells} is not a multiple of {CELL_MULTIPLES[name]}")
    if not 1 <= n_states <= n_cells - 1:
        raise ValueError(f"n_states={n_states} must be in [1, {n_cells - 1}]")
    lo, hi = DOMAINS[name]
    x = lo + (hi - lo) * np.arange(n_cells + 1) / n_cells  # (n + 1,)
    h = (hi - lo) / n_cells
    diagonal = 2.0 / h**2 + potential(name, x[1:-1])  # (n - 1,)
    off = np.full(n_cells - 2, -1.0 / h**2)  # (n - 2,)
    energies, vectors = eigh_tridiagonal(
        diagonal, off, select="i", select_range=(0, n_states - 1)
    )  # (n_states,), (n - 1, n_states)
    psi = np.zeros((n_states, n_cells + 1))
    psi[:, 1:-1] = vectors.T
    psi /= np.sqrt(h * np.sum(psi**2, axis=1, keepdims=True))  # trapezoid, ends are zero
    for row in psi:
        # the leftmost large lobe, not the largest value: symmetric states have two of those
        big = np.flatnonzero(np.abs(row) >= 0.5 * np.abs(row).max())[0]
        row *= np.sign(row[big])
    return energies, x, psi


def richardson_energies(name: str, n_cells: int = REFERENCE_CELLS, n_states: int = 1):
    """``(4 E(n_cells) - E(n_cells / 2)) / 3`` from :func:`eigenstates` (energy units).

    With the jumps of ``V`` on nodes the finite-difference energies are a series in ``h^2``,
    so this removes the leading term: ``O(h^4)``, until the eigensolver's round-off
    (``~eps 4 / h^2`` absolute) takes over: 2e-10 to 3e-9 relative at :data:`REFERENCE_CELLS`.
    ``n_cells / 2`` must be a multiple of :data:`CELL_MULTIPLES`. Returns ``(n_states,)``.
    """
    if n_cells % 2:
        raise ValueError(f"n_cells={n_cells} must be even")
    fine = eigenstates(name, n_cells, n_states)[0]
    coarse = eigenstates(name, n_cells // 2, n_states)[0]
    return (4.0 * fine - coarse) / 3.0


def _root(f, lo: float, hi: float) -> float:
    return brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)


def finite_well_energies(
    depth: float, half_width: float, n_states: int, wall: float = math.inf
) -> np.ndarray:
    """Bound energies (below ``depth``) of the finite square well, ascending (energy units).

    With ``k = sqrt(E)``, ``kappa = sqrt(depth - E)``, even states solve ``k tan(k a) = R``
    and odd ones ``-k cot(k a) = R``, where ``R = kappa`` on the real line and ``R = kappa
    coth(kappa (wall - a))`` with ``psi = 0`` at ``+-wall``. State ``j`` (0-based, even for
    even ``j``) has ``k a`` in ``(j pi / 2, (j + 1) pi / 2)``, where the conditions times
    ``cos(k a)`` or ``sin(k a)`` have no poles and one root, which ``brentq`` finds.

    Parameters
    ----------
    depth : float
        ``V0``, the potential outside ``|x| < half_width`` (energy units).
    half_width : float
        ``a`` (length units).
    n_states : int
        How many of the lowest states; ``ValueError`` if they are not all bound.
    wall : float
        Dirichlet walls at ``+-wall`` (length units); ``inf`` for the real line.
    """
    gap = wall - half_width

    def condition(e: float, even: bool) -> float:
        k, kappa = math.sqrt(e), math.sqrt(max(depth - e, 0.0))
        r = kappa / math.tanh(kappa * gap) if kappa > 0 else 1.0 / gap  # -psi'/psi at x = a
        c, s = math.cos(k * half_width), math.sin(k * half_width)
        return k * s - r * c if even else k * c + r * s

    energies = []
    for j in range(n_states):
        lo, hi = (j * math.pi / 2 / half_width) ** 2, ((j + 1) * math.pi / 2 / half_width) ** 2
        top, even = min(hi, depth), j % 2 == 0
        if lo >= depth or condition(lo, even) * condition(top, even) > 0:
            raise ValueError(f"state {j} of the well (V0={depth}, a={half_width}) is not bound")
        energies.append(_root(lambda e, even=even: condition(e, even), lo, top))
    return np.array(energies)


def barrier_ground_energy(height: float, half_width: float) -> float:
    """Ground energy (energy units) of the well [-1, 1] with ``V = height`` for ``|x| < b``.

    The even ground state is ``sin(k (1 - |x|))`` outside the barrier (``k = sqrt(E)``) and
    ``cosh(kappa x)`` inside (``kappa = sqrt(height - E)``; ``cos(q x)``, ``q = sqrt(E -
    height)``, above the barrier); matching ``psi'/psi`` at ``x = b`` gives
    ``k cos(k (1 - b)) + L sin(k (1 - b)) = 0`` with ``L = kappa tanh(kappa b)`` (or
    ``-q tan(q b)``). Since ``V >= 0`` lifts every energy, the root lies between the bare
    well's ``(pi / 2)^2`` and the split wells' ``(pi / (1 - b))^2``, and for ``b < 1/3`` it
    is the only even one there (the next even state starts at ``k (1 - b) > pi``).

    Parameters
    ----------
    height : float
        ``V0 >= 0`` (energy units).
    half_width : float
        ``b`` in ``(0, 1/3)`` (length units).
    """
    if not (height >= 0 and 0 < half_width < 1 / 3):
        raise ValueError(f"need height >= 0 and 0 < half_width < 1/3, got {height}, {half_width}")
    outer = 1.0 - half_width

    def matching(e: float) -> float:
        k = math.sqrt(e)
        if e < height:
            kappa = math.sqrt(height - e)
            inner = kappa * math.tanh(kappa * half_width)
        else:
            q = math.sqrt(e - height)
            inner = -q * math.tan(q * half_width)
        return k * math.cos(k * outer) + inner * math.sin(k * outer)

    return _root(matching, (math.pi / 2) ** 2, (math.pi / outer) ** 2)
