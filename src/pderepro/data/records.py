"""What every generator records beside its fields: the coordinates of a shard's samples
(:func:`sample_coords`) and the attributes naming the split, the solver and the layout
(:func:`solver_attrs`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr

from pderepro.data.specs import DATASET_SPECS

#: Precision every generator solves in (its files store float32).
SOLVER_DTYPE = "float64"


def sample_coords(
    start: int,
    seeds: np.ndarray,
    grid: Mapping[str, object],
    per_sample: Mapping[str, float] | None = None,
) -> dict[str, object]:
    """Coordinates of the samples ``start .. start + len(seeds) - 1`` of a shard.

    Parameters
    ----------
    start : int
        Index of the shard's first sample within its split.
    seeds : numpy.ndarray
        Each sample's seed, shape ``(count,)`` (:func:`~pderepro.data.seeds.sample_seeds`).
    grid : mapping
        The grid's coordinates (``time``, ``x``, ...), in the order the file lists them.
    per_sample : mapping, optional
        Parameters constant over the shard, each recorded on ``sample`` (so that files of
        several values concatenate along it), in the parameter's units.

    Returns
    -------
    dict
        ``sample``, then ``grid``, then ``seed(sample)`` int64, then each
        ``name(sample)`` of ``per_sample``.
    """
    count = len(seeds)
    return {
        "sample": np.arange(start, start + count),
        **grid,
        "seed": ("sample", seeds.astype(np.int64)),
        **{name: ("sample", np.full(count, value)) for name, value in (per_sample or {}).items()},
    }


def solver_attrs(ds: xr.Dataset, spec: str, *, split: str, solver: str, **attrs: object) -> None:
    """Record in ``ds.attrs`` the split, the solver and the layout of ``spec``'s data.

    Parameters
    ----------
    ds : xarray.Dataset
        A generated shard; its attributes are updated in place.
    spec : str
        The dataset solver, a key of :data:`~pderepro.data.specs.DATASET_SPECS`, whose
        layout attributes come last.
    split : str
        ``train``, ``validation`` or ``test``.
    solver : str
        The ``solver`` attribute: the method that made the data.
    **attrs
        The run's settings (time step in time units, ...), recorded after
        ``solver_dtype``.
    """
    ds.attrs.update(
        split=split,
        solver=solver,
        solver_dtype=SOLVER_DTYPE,
        **attrs,
        **DATASET_SPECS[spec].layout.attrs(),
    )
