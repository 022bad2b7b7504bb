"""Which variables of a dataset are the model's input and target, and what grid they sit on.

Every generator records its layout (its :class:`~pderepro.data.specs.DatasetSpec`'s) in
the files it writes (global attributes ``input_variable``, ``target_variable``,
``grid``), so the stages downstream read the data without knowing the equation. Kept
free of heavy imports: the workflow's config check uses :func:`subsample_stride` before
any job runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Spatial dimensions, in storage order (DESIGN.md: ``sample, time, y, x``).
SPATIAL_DIMS = ("y", "x")


@dataclass(frozen=True)
class Layout:
    """Input and target variables of a dataset and the kind of grid they sit on.

    Attributes
    ----------
    input, target : str
        Variable names of the model's input and target.
    grid : str
        ``periodic`` (``x_j = j / n``; coarser grids keep every ``n / s``-th point) or
        ``vertex`` (closed domain with both ends stored, ``x_j = j / (n - 1)``; coarser
        grids keep every ``(n - 1) / (s - 1)``-th point, so 421 -> 211, 141, 106, 85).
    """

    input: str
    target: str
    grid: str

    def attrs(self) -> dict[str, str]:
        """Global attributes that record this layout in a file."""
        return {"input_variable": self.input, "target_variable": self.target, "grid": self.grid}


def layout_of(attrs: Mapping[str, Any], source: str = "the dataset") -> Layout:
    """The layout recorded in a file's global attributes.

    Parameters
    ----------
    attrs : mapping
        The file's global attributes.
    source : str
        The file's name, for the error message.

    Raises
    ------
    ValueError
        When the attributes hold no layout (a file not written by a pderepro generator,
        or one written before layouts were recorded), naming ``source``.
    """
    missing = [k for k in ("input_variable", "target_variable", "grid") if k not in attrs]
    if missing:
        raise ValueError(
            f"{source}: no layout attributes {missing}; it was not written by a pderepro "
            "generator (or by an old one): regenerate it"
        )
    return Layout(
        input=attrs["input_variable"], target=attrs["target_variable"], grid=attrs["grid"]
    )


def subsample_stride(base: int, resolution: int, grid: str) -> int | None:
    """Stride that takes a ``base``-point grid to ``resolution`` points, or None if none does."""
    if resolution < 2 or resolution > base:
        return None
    if grid == "periodic":
        return base // resolution if base % resolution == 0 else None
    if grid == "vertex":
        return (base - 1) // (resolution - 1) if (base - 1) % (resolution - 1) == 0 else None
    raise ValueError(f"unknown grid kind {grid!r}; expected periodic or vertex")
