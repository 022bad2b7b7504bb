"""Minimum-compliance physics of 2-D structures: plane-stress linear elasticity on
``nelx x nely`` square bilinear (Q4) elements of unit size, the SIMP law and the cone
density filter.

Equations (the settings of Hoyer et al. 2019, after Andreassen et al. 2011): the element
stiffness is ``K_e = int B^T D B dA`` over the unit square (2 x 2 Gauss points, exact for
Q4), with the plane-stress ``D = E / (1 - nu^2) [[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu)
/ 2]]``. SIMP: ``E(x) = E_min + x^p (E_0 - E_min)`` per element density ``x`` in [0, 1]. The global
``K(x) u = f`` with the supported degrees of freedom removed is solved by a sparse direct
factorisation; compliance ``c = f . u = sum_e E(x_e) u_e^T K_e u_e`` and, by the adjoint
(the problem is self-adjoint), ``dc/dx_e = -p x_e^(p-1) (E_0 - E_min) u_e^T K_e u_e``.
The cone filter averages densities over a disc of radius ``r_min`` (element widths) with
weights ``max(0, r_min - distance)``, rows normalised to one.

Grid numbering: element ``(i, j)`` has column ``i`` (x, left to right) and row ``j``
(y, top to bottom, as an image); element index ``i * nely + j``; node ``(i, j)`` at the
element's top-left corner, index ``i * (nely + 1) + j``, degrees of freedom ``2 n`` (x)
and ``2 n + 1`` (y, positive downwards). Densities as images are ``(nely, nelx)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

#: Young's modulus of solid and void and Poisson's ratio (Hoyer et al. 2019's settings).
E_SOLID, E_VOID, POISSON = 1.0, 1e-9, 0.3
#: SIMP penalty.
PENALTY = 3.0


def element_stiffness(poisson: float = POISSON) -> np.ndarray:
    """The ``8 x 8`` stiffness of a unit square Q4 element with ``E = 1``, by 2 x 2 Gauss
    quadrature of ``B^T D B``. Local nodes: top-left, top-right, bottom-right, bottom-left
    (y downwards), each ``(u_x, u_y)``."""
    d = np.array([[1.0, poisson, 0.0], [poisson, 1.0, 0.0], [0.0, 0.0, (1.0 - poisson) / 2]])
    d /= 1.0 - poisson**2
    # natural coordinates (xi, eta) of the local nodes, eta pointing down like y
    corners = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    gauss = 1.0 / np.sqrt(3.0)
    ke = np.zeros((8, 8))
    for xi in (-gauss, gauss):
        for eta in (-gauss, gauss):
            # dN/dxi, dN/deta of the bilinear shape functions; x = (xi + 1) / 2 on a unit side
            dxi = corners[:, 0] * (1 + corners[:, 1] * eta) / 4
            deta = corners[:, 1] * (1 + corners[:, 0] * xi) / 4
            dx, dy = 2 * dxi, 2 * deta
            b = np.zeros((3, 8))
            b[0, 0::2], b[1, 1::2] = dx, dy
            b[2, 0::2], b[2, 1::2] = dy, dx
            ke += b.T @ d @ b * 0.25  # weight 1 per Gauss point, Jacobian determinant 1/4
    return ke


def element_dofs(nelx: int, nely: int) -> np.ndarray:
    """``(nelx * nely, 8)`` global degrees of freedom of each element, local node order as
    :func:`element_stiffness`."""
    i, j = np.meshgrid(np.arange(nelx), np.arange(nely), indexing="ij")
    top_left = (i * (nely + 1) + j).ravel()
    nodes = np.stack(
        [top_left, top_left + nely + 1, top_left + nely + 2, top_left + 1], axis=1
    )  # (elements, 4)
    return np.stack([2 * nodes, 2 * nodes + 1], axis=2).reshape(-1, 8)


def cone_filter(nelx: int, nely: int, radius: float) -> sp.csr_matrix:
    """The density filter as a sparse ``(elements, elements)`` matrix, rows summing to one:
    weights ``max(0, radius - distance)`` between element centres (element widths)."""
    if radius <= 0:
        raise ValueError(f"filter radius must be positive, got {radius}")
    reach = int(np.ceil(radius)) - 1
    rows, cols, weights = [], [], []
    for di in range(-reach, reach + 1):
        for dj in range(-reach, reach + 1):
            weight = radius - np.hypot(di, dj)
            if weight <= 0:
                continue
            i, j = np.meshgrid(np.arange(nelx), np.arange(nely), indexing="ij")
            ok = (i + di >= 0) & (i + di < nelx) & (j + dj >= 0) & (j + dj < nely)
            rows.append((i * nely + j)[ok])
            cols.append(((i + di) * nely + (j + dj))[ok])
            weights.append(np.full(ok.sum(), weight))
    h = sp.csr_matrix(
        (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
        shape=(nelx * nely, nelx * nely),
    )
    return sp.diags(1.0 / np.asarray(h.sum(axis=1)).ravel()) @ h


@dataclass(frozen=True)
class Structure:
    """A design domain: its grid, supported degrees of freedom and load vector (frozen:
    the degrees of freedom are cached).

    Attributes
    ----------
    nelx, nely : int
        Elements along x and y.
    fixed : numpy.ndarray
        Supported (zero-displacement) degrees of freedom.
    load : numpy.ndarray
        ``(2 (nelx + 1) (nely + 1),)`` nodal forces (y positive downwards).
    """

    nelx: int
    nely: int
    fixed: np.ndarray
    load: np.ndarray
    penalty: float = PENALTY
    ke: np.ndarray = field(default_factory=element_stiffness, repr=False)

    @cached_property
    def dofs(self) -> np.ndarray:
        return element_dofs(self.nelx, self.nely)

    @cached_property
    def free(self) -> np.ndarray:
        n = 2 * (self.nelx + 1) * (self.nely + 1)
        if self.load.shape != (n,):
            raise ValueError(f"load has shape {self.load.shape}, expected ({n},)")
        if np.any(self.load[self.fixed] != 0):
            raise ValueError("a load acts on a supported degree of freedom (it would be lost)")
        return np.setdiff1d(np.arange(n), self.fixed)

    def stiffness(self, density: np.ndarray) -> sp.csc_matrix:
        """The global stiffness ``K(x)`` of element densities ``(nely, nelx)``."""
        modulus = E_VOID + self._elements(density) ** self.penalty * (E_SOLID - E_VOID)
        values = (modulus[:, None, None] * self.ke[None]).ravel()  # (elements * 64,)
        rows = np.repeat(self.dofs, 8, axis=1).ravel()
        cols = np.tile(self.dofs, (1, 8)).ravel()
        n = self.load.size
        return sp.csc_matrix((values, (rows, cols)), shape=(n, n))

    def displacement(self, density: np.ndarray) -> np.ndarray:
        """Nodal displacements solving ``K(x) u = f`` with the supports held at zero."""
        k = self.stiffness(density)[self.free][:, self.free]
        u = np.zeros(self.load.shape)  # float64 whatever the load's dtype
        u[self.free] = splu(k.tocsc()).solve(self.load[self.free])
        return u

    def compliance(self, density: np.ndarray) -> tuple[float, np.ndarray]:
        """Compliance ``f . u`` and its gradient ``(nely, nelx)`` in the densities."""
        x = self._elements(density)
        u = self.displacement(density)
        ue = u[self.dofs]  # (elements, 8)
        energy = np.einsum("ei,ij,ej->e", ue, self.ke, ue)  # u_e^T K_e u_e at E = 1
        modulus = E_VOID + x**self.penalty * (E_SOLID - E_VOID)
        grad = -self.penalty * x ** (self.penalty - 1) * (E_SOLID - E_VOID) * energy
        return float(modulus @ energy), self._image(grad)

    def _elements(self, density: np.ndarray) -> np.ndarray:
        if density.shape != (self.nely, self.nelx):
            raise ValueError(
                f"density has shape {density.shape}, expected {(self.nely, self.nelx)}"
            )
        return np.asarray(density, dtype=np.float64).T.ravel()  # element index i * nely + j

    def _image(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(self.nelx, self.nely).T
