"""Design tasks: a domain's grid, supports and loads, by family, as the structural
optimisation benchmark of Hoyer et al. 2019 describes them (a subset of its families;
which tasks a study runs, and where they differ from the paper's 116, belongs in its
study file). Forces are unit totals, y positive downwards (:mod:`.fem`'s numbering); a
"middle" node is ``n // 2``, half an element off centre on an odd grid.

Families (each a function of the grid, ``(nelx, nely) -> Structure``):

- ``mbb_beam``: the Messerschmitt-Boelkow-Blohm beam, its left half by symmetry: the left
  edge slides vertically (x held), the bottom-right corner rests on a roller (y held),
  the load pushes down at the top-left corner.
- ``cantilever``: the left edge clamped, the load down at the middle of the right edge.
- ``cantilever_corner``: clamped on the left, the load down at the bottom-right corner.
- ``bridge``: pinned at both bottom corners, a load spread evenly along the top edge (the
  deck).
- ``point_bridge``: pinned at both bottom corners, the load down at the middle of the
  bottom edge.
- ``multistory_building``: the whole bottom edge pinned (the ground), four floors: equal
  loads spread evenly along the rows at 0, 1/4, 1/2 and 3/4 of the height from the top.
- ``thin_support_bridge``: a deck load spread evenly along the top edge, carried by two
  single pinned nodes on the bottom edge at a quarter and three quarters of the span
  (thin supports; the ends overhang).

The last two carry the paper's family names; their geometries are ours (the paper's own
task definitions were not read).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pderepro.solvers.elasticity.fem import Structure


def _node(nely: int, i: int, j: int) -> int:
    return i * (nely + 1) + j


def _empty(nelx: int, nely: int) -> np.ndarray:
    return np.zeros(2 * (nelx + 1) * (nely + 1))


def mbb_beam(nelx: int, nely: int) -> Structure:
    left = [2 * _node(nely, 0, j) for j in range(nely + 1)]
    roller = [2 * _node(nely, nelx, nely) + 1]
    load = _empty(nelx, nely)
    load[2 * _node(nely, 0, 0) + 1] = 1.0
    return Structure(nelx, nely, np.array(left + roller), load)


def _clamped_left(nely: int) -> np.ndarray:
    return np.arange(2 * (nely + 1))  # node (0, j) holds dofs 2j and 2j + 1


def cantilever(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    load[2 * _node(nely, nelx, nely // 2) + 1] = 1.0
    return Structure(nelx, nely, _clamped_left(nely), load)


def cantilever_corner(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    load[2 * _node(nely, nelx, nely) + 1] = 1.0
    return Structure(nelx, nely, _clamped_left(nely), load)


def _pinned_bottom_corners(nelx: int, nely: int) -> np.ndarray:
    corners = (_node(nely, 0, nely), _node(nely, nelx, nely))
    return np.array([d for n in corners for d in (2 * n, 2 * n + 1)])


def bridge(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    for i in range(nelx + 1):  # trapezoidal weights: a uniform deck load of total 1
        load[2 * _node(nely, i, 0) + 1] = (0.5 if i in (0, nelx) else 1.0) / nelx
    return Structure(nelx, nely, _pinned_bottom_corners(nelx, nely), load)


def point_bridge(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    load[2 * _node(nely, nelx // 2, nely) + 1] = 1.0
    return Structure(nelx, nely, _pinned_bottom_corners(nelx, nely), load)


def _spread(load: np.ndarray, nelx: int, nely: int, j: int, total: float) -> None:
    """Add ``total`` spread evenly along node row ``j`` (trapezoidal weights)."""
    for i in range(nelx + 1):
        load[2 * _node(nely, i, j) + 1] += total * (0.5 if i in (0, nelx) else 1.0) / nelx


def multistory_building(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    floors = sorted({nely * k // 4 for k in range(4)})  # rows from the top, none the ground
    for j in floors:
        _spread(load, nelx, nely, j, 1.0 / len(floors))
    ground = [d for i in range(nelx + 1) for d in (2 * _node(nely, i, nely),
                                                  2 * _node(nely, i, nely) + 1)]  # fmt: skip
    return Structure(nelx, nely, np.array(ground), load)


def thin_support_bridge(nelx: int, nely: int) -> Structure:
    load = _empty(nelx, nely)
    _spread(load, nelx, nely, 0, 1.0)
    supports = (_node(nely, nelx // 4, nely), _node(nely, 3 * nelx // 4, nely))
    return Structure(nelx, nely, np.array([d for n in supports for d in (2 * n, 2 * n + 1)]),
                     load)  # fmt: skip


FAMILIES: dict[str, Callable[[int, int], Structure]] = {
    "mbb_beam": mbb_beam,
    "cantilever": cantilever,
    "cantilever_corner": cantilever_corner,
    "bridge": bridge,
    "point_bridge": point_bridge,
    "multistory_building": multistory_building,
    "thin_support_bridge": thin_support_bridge,
}


def build_task(family: str, nelx: int, nely: int) -> Structure:
    """The structure of ``family`` on a ``nelx x nely`` grid."""
    if family not in FAMILIES:
        raise ValueError(f"unknown design task family {family!r}; choose from {sorted(FAMILIES)}")
    if nelx < 2 or nely < 2:
        raise ValueError(f"a design grid needs at least 2 x 2 elements, got {nelx} x {nely}")
    return FAMILIES[family](nelx, nely)
