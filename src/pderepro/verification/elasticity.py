"""Verification of the plane-stress Q4 elasticity solver of the design kind
(:mod:`pderepro.solvers.elasticity`): beam theory, the patch test, the adjoint gradient and
the half-MBB beam's symmetry condition.

Units: E0 = 1, unit thickness, element width 1, unit loads; displacements and compliances
are then dimensionless.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pderepro.solvers.elasticity.fem import POISSON, Structure
from pderepro.solvers.elasticity.tasks import build_task, cantilever
from pderepro.verification.table import convergence_rows, log_table, row

logger = logging.getLogger(__name__)

SOLVER = "q4_elasticity"
#: Timoshenko's shear coefficient of a rectangular section.
SHEAR_COEFFICIENT = 5 / 6


def timoshenko_tip_deflection(length: float, depth: float, poisson: float = POISSON) -> float:
    """Tip deflection of a clamped beam under a unit tip load (E = 1, unit thickness):
    bending ``4 L^3 / h^3`` plus shear ``L / (kappa G h)``, ``G = 1 / (2 (1 + nu))``."""
    shear_modulus = 1 / (2 * (1 + poisson))
    return 4 * length**3 / depth**3 + length / (SHEAR_COEFFICIENT * shear_modulus * depth)


def _tip_deflection(nelx: int, nely: int) -> float:
    """The solid cantilever's deflection at the loaded node (mid-depth of the free end)."""
    u = cantilever(nelx, nely).displacement(np.ones((nely, nelx)))
    return float(u[2 * (nelx * (nely + 1) + nely // 2) + 1])


def _patch_error(nelx: int = 6, nely: int = 4, strain: float = 1e-2) -> float:
    """Largest error of the interior displacements when the boundary nodes carry the
    linear field of a uniform strain ``(eps_x, eps_y, gamma) = (eps, -nu eps, eps / 2)``:
    the Q4 element reproduces it exactly, so only round-off is left."""
    structure = cantilever(nelx, nely)
    stiffness = structure.stiffness(np.ones((nely, nelx))).tocsr()
    x, y = np.meshgrid(np.arange(nelx + 1.0), np.arange(nely + 1.0), indexing="ij")
    exact = np.stack([strain * x + strain / 2 * y, -POISSON * strain * y], -1).ravel()
    boundary = (x == 0) | (x == nelx) | (y == 0) | (y == nely)  # (nelx + 1, nely + 1) nodes
    fixed = np.repeat(boundary.ravel(), 2)
    interior = ~fixed
    rhs = -stiffness[interior][:, fixed] @ exact[fixed]
    solved = np.linalg.solve(stiffness[interior][:, interior].toarray(), rhs)
    return float(np.abs(solved - exact[interior]).max() / (strain * max(nelx, nely)))


def _adjoint_error(seed: int = 0, step: float = 1e-6) -> float:
    """Largest difference of the adjoint gradient from central differences over every
    element of a small MBB beam at random densities, over the largest gradient."""
    structure = build_task("mbb_beam", 6, 4)
    density = np.random.default_rng(seed).uniform(0.2, 0.9, (4, 6))
    _, gradient = structure.compliance(density)
    fd = np.empty_like(gradient)
    for j, i in np.ndindex(density.shape):
        up, down = density.copy(), density.copy()
        up[j, i] += step
        down[j, i] -= step
        fd[j, i] = (structure.compliance(up)[0] - structure.compliance(down)[0]) / (2 * step)
    return float(np.abs(gradient - fd).max() / np.abs(fd).max())


def _full_mbb_beam(nelx: int, nely: int) -> Structure:
    """The whole MBB beam, ``2 nelx`` long: a load of 2 at the top middle, a pin at the
    bottom-left corner and a roller at the bottom-right one."""
    nodes_y = nely + 1
    load = np.zeros(2 * (2 * nelx + 1) * nodes_y)
    load[2 * (nelx * nodes_y) + 1] = 2.0  # node (nelx, 0): the top middle, y downwards
    pin = [2 * nely, 2 * nely + 1]  # node (0, nely)
    roller = [2 * (2 * nelx * nodes_y + nely) + 1]  # node (2 nelx, nely), y only
    return Structure(2 * nelx, nely, np.array(pin + roller), load)


def _half_mbb_error(nelx: int = 12, nely: int = 6, seed: int = 1) -> float:
    """Relative gap between twice the half beam's compliance (symmetry: no x-displacement
    on its cut) and the whole beam's, at a random design mirrored about the cut. The pin
    adds only a rigid translation, which does no work."""
    half = np.random.default_rng(seed).uniform(0.3, 1.0, (nely, nelx))
    whole = np.concatenate([half[:, ::-1], half], axis=1)  # the half is the right part
    c_half = build_task("mbb_beam", nelx, nely).compliance(half)[0]
    c_whole = _full_mbb_beam(nelx, nely).compliance(whole)[0]
    return abs(c_whole - 2 * c_half) / c_whole


def elasticity_verification(grids: Sequence[tuple[int, int]] = ((40, 4), (80, 8), (160, 16))
                            ) -> pd.DataFrame:  # fmt: skip
    """The solver's verification rows (:data:`~pderepro.verification.table.COLUMNS`).

    Rows: the solid cantilever's tip deflection (length ``10 x`` its depth) against
    Timoshenko beam theory at each of ``grids``, with the observed order (Q4 is a little
    too stiff and converges from below); the patch test; the adjoint gradient against
    central differences; the half-MBB beam against the whole one. ``resolution`` counts
    elements; ``dt`` is NaN (steady).
    """
    errors = [
        abs(1 - _tip_deflection(nx, ny) / timoshenko_tip_deflection(nx, ny)) for nx, ny in grids
    ]
    rows = convergence_rows(
        SOLVER,
        "solid cantilever (L = 10 h) tip deflection vs Timoshenko beam theory, relative",
        [nx * ny for nx, ny in grids],
        np.nan,
        errors,
        [ny for _, ny in grids],
    )
    rows += [
        row(SOLVER, "patch test: uniform strain on the boundary, interior error / (eps L)",
            24, np.nan, _patch_error()),
        row(SOLVER, "adjoint compliance gradient vs central differences, max error / max gradient",
            24, np.nan, _adjoint_error()),
        row(SOLVER, "half-MBB beam with symmetry vs the whole beam, compliance relative gap",
            72, np.nan, _half_mbb_error()),
    ]  # fmt: skip
    return log_table(rows, "Q4 elasticity verification", logger)
