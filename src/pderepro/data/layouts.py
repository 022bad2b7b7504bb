"""Which variables of a dataset are the model's inputs and target, and what grid they sit on.

Every generator records its layout (its :class:`~pderepro.data.specs.DatasetSpec`'s) in
the files it writes (global attributes ``input_variable``, ``target_variable``,
``grid`` and, when there are any, ``scalar_inputs``; for trajectories ``trajectory_dim``),
so the stages downstream read the data without knowing the equation. Kept free of heavy
imports: the workflow's config check uses :func:`subsample_stride` before any job runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Spatial dimensions, in storage order (docs/design.md: ``sample, time, y, x``).
SPATIAL_DIMS = ("y", "x")
#: Global attributes every layout writes (``scalar_inputs`` only when it has scalars).
LAYOUT_ATTRS = ("input_variable", "target_variable", "grid")


def _names(value: str) -> tuple[str, ...]:
    """Names from a comma-separated attribute (how a file stores several)."""
    return tuple(str(value).split(","))


@dataclass(frozen=True)
class Layout:
    """Input and target variables of a dataset and the kind of grid they sit on.

    Attributes
    ----------
    inputs : tuple of str
        Variable names of the model's input fields (one or more), each
        ``(sample, *grid)``.
    target : str
        Variable name of the model's target.
    grid : str
        ``periodic`` (``x_j = j / n``, or the cell centres ``(j + 1/2) / n`` of the PDEBench
        data; coarser grids keep every ``n / s``-th point, at its recorded ``x``) or
        ``vertex`` (closed domain with both ends stored, ``x_j = j / (n - 1)``; coarser
        grids keep every ``(n - 1) / (s - 1)``-th point, so 421 -> 211, 141, 106, 85).
    scalars : tuple of str
        Per-sample scalar inputs (e.g. a PDE parameter such as the viscosity): names of
        coordinates or data variables with the single dimension ``sample``.
    trajectory_dim : str, optional
        Set when the data are trajectories along this dimension (``"time"``) and the model
        is autoregressive: it reads frames of the target and predicts later frames of the
        same variable, so the target is also one of the ``inputs`` (named once in
        :attr:`variables`). Which frames condition and which are predicted is the study's
        protocol, not the data's. ``None`` (the default): the inputs and the target are
        different variables of one map, as in every layout before trajectories.

    Raises
    ------
    ValueError
        With no input, a name given twice (the target may be an input only of a
        trajectory layout, and must be one there), or a name that is empty or holds a
        comma (the files store the names comma-separated).
    """

    inputs: tuple[str, ...]
    target: str
    grid: str
    scalars: tuple[str, ...] = ()
    trajectory_dim: str | None = None

    def __post_init__(self) -> None:
        for field in ("inputs", "scalars"):
            value = getattr(self, field)
            if isinstance(value, str):  # a bare name would split into characters
                raise TypeError(f"Layout.{field} must be a tuple of names, got {value!r}")
            object.__setattr__(self, field, tuple(value))
        if not self.inputs:
            raise ValueError(f"{self}: a layout needs at least one input field")
        names = (*self.inputs, *self.scalars, self.target)
        if self.trajectory_dim is not None:
            names += (self.trajectory_dim,)
        bad = [n for n in names if not n or "," in n]
        if bad:
            raise ValueError(f"{self}: variable names must be non-empty, without commas: {bad}")
        if self.trajectory_dim is not None:
            if self.trajectory_dim in ("sample", *SPATIAL_DIMS):
                raise ValueError(
                    f"{self}: trajectory_dim must be a time dimension, not sample or space"
                )
            if self.target not in self.inputs:
                raise ValueError(
                    f"{self}: a trajectory layout reads frames of its target "
                    f"{self.target!r}, so the target must be one of its inputs"
                )
            names = (*self.inputs, *self.scalars)  # the target is counted as an input
        else:
            names = (*self.inputs, *self.scalars, self.target)
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            hint = (
                " (only a trajectory layout, with trajectory_dim set, reads its target as input)"
                if self.trajectory_dim is None and self.target in self.inputs
                else ""
            )
            raise ValueError(f"{self}: variable(s) {twice} named more than once{hint}")

    @property
    def input(self) -> str:
        """The single input field; for consumers that take one input.

        Raises
        ------
        ValueError
            When the layout has several input fields (naming the layout).
        """
        if self.trajectory_dim is not None:
            # A consumer of one input and one target would pair u with itself and learn
            # the identity: trajectories need a consumer that splits frames along time.
            raise ValueError(
                f"{self} holds trajectories of {self.target!r} along "
                f"{self.trajectory_dim!r}; this consumer takes an input -> target map"
            )
        if len(self.inputs) != 1:
            raise ValueError(
                f"{self} has {len(self.inputs)} input fields {list(self.inputs)}; this "
                "consumer takes a single input field"
            )
        return self.inputs[0]

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable of the layout, once each: the input fields, the scalars, the
        target (already among the inputs of a trajectory layout)."""
        if self.target in self.inputs:  # only a trajectory layout, checked on creation
            return (*self.inputs, *self.scalars)
        return (*self.inputs, *self.scalars, self.target)

    def attrs(self) -> dict[str, str]:
        """Global attributes that record this layout in a file."""
        out = {
            "input_variable": ",".join(self.inputs),
            "target_variable": self.target,
            "grid": self.grid,
        }
        if self.scalars:  # files without scalars keep the attributes they always had
            out["scalar_inputs"] = ",".join(self.scalars)
        if self.trajectory_dim is not None:  # likewise files of input -> target maps
            out["trajectory_dim"] = self.trajectory_dim
        return out


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
        or one written before layouts were recorded) or an invalid one, naming ``source``.
    """
    missing = [k for k in LAYOUT_ATTRS if k not in attrs]
    if missing:
        raise ValueError(
            f"{source}: no layout attributes {missing}; it was not written by a pderepro "
            "generator (or by an old one): regenerate it"
        )
    scalars = attrs.get("scalar_inputs", "")
    trajectory_dim = attrs.get("trajectory_dim")
    try:
        return Layout(
            inputs=_names(attrs["input_variable"]),
            target=str(attrs["target_variable"]),
            grid=str(attrs["grid"]),
            scalars=_names(scalars) if scalars else (),
            trajectory_dim=None if trajectory_dim is None else str(trajectory_dim),
        )
    except ValueError as err:
        raise ValueError(f"{source}: invalid layout attributes: {err}") from None


def subsample_stride(base: int, resolution: int, grid: str) -> int | None:
    """Stride that takes a ``base``-point grid to ``resolution`` points, or None if none does."""
    if resolution < 2 or resolution > base:
        return None
    if grid == "periodic":
        return base // resolution if base % resolution == 0 else None
    if grid == "vertex":
        return (base - 1) // (resolution - 1) if (base - 1) % (resolution - 1) == 0 else None
    raise ValueError(f"unknown grid kind {grid!r}; expected periodic or vertex")
