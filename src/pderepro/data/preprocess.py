"""Preprocessing with xarray + dask: subsample to a resolution, normalisation statistics.

Statistics come from the train split only; they are stored beside the data and
travel into checkpoints, so every consumer normalises the same way.
"""

from __future__ import annotations

import xarray as xr

from pderepro.data.layouts import SPATIAL_DIMS, Layout, subsample_stride


def subsample(ds: xr.Dataset, *, resolution: int, grid: str = "periodic") -> xr.Dataset:
    """Strided subsampling of every spatial dimension (``y``, ``x``) to ``resolution`` points.

    Parameters
    ----------
    ds : xarray.Dataset
        Data on the base grid.
    resolution : int
        Target number of points per spatial dimension.
    grid : str
        ``periodic`` (``resolution`` must divide the base size) or ``vertex`` (both ends
        stored: ``resolution - 1`` must divide ``base - 1``); see :class:`Layout`.

    Raises
    ------
    ValueError
        When no stride takes the base grid to ``resolution`` points.
    """
    strides = {}
    for dim in SPATIAL_DIMS:
        if dim not in ds.dims:
            continue
        base = ds.sizes[dim]
        stride = subsample_stride(base, resolution, grid)
        if stride is None:
            raise ValueError(
                f"no stride takes the {grid} grid of {base} points along {dim} to {resolution}"
            )
        strides[dim] = slice(None, None, stride)
    return ds.isel(strides)


def normalisation_stats(train: xr.Dataset, layout: Layout) -> xr.Dataset:
    """Mean and standard deviation of every variable of the layout over the train split.

    Parameters
    ----------
    train : xarray.Dataset
        The train split (eager or dask-backed); no other split may be passed.
    layout : Layout
        Its layout: the statistics cover every input field, scalar input and the target.

    Returns
    -------
    xarray.Dataset
        Variables ``<name>_mean`` and ``<name>_std`` (float64 scalars, in the units of
        the variable) for every name in ``layout.variables``: over all samples and grid
        points for a field, over the samples for a scalar input. Attributes
        ``split = "train"`` and ``n_samples``, the number of samples used.

    Raises
    ------
    ValueError
        When ``train`` is not the train split.
    """
    if train.attrs.get("split", "train") != "train":
        raise ValueError(
            f"normalisation statistics must come from the train split, got "
            f"split={train.attrs.get('split')!r}"
        )
    # The fields cannot hold NaN (the solvers reject non-finite output), so skip the
    # NaN-aware reductions, which cost 2-3x. One float64 reduction over every axis per
    # statistic, as the single-input models have always been normalised.
    stats = {}
    for name in layout.variables:
        values = train[name].astype("float64")
        units = {"units": train[name].attrs["units"]} if "units" in train[name].attrs else {}
        stats[f"{name}_mean"] = values.mean(skipna=False).assign_attrs(
            long_name=f"mean of {name} over the train split", **units
        )
        stats[f"{name}_std"] = values.std(skipna=False).assign_attrs(
            long_name=f"standard deviation of {name} over the train split", **units
        )
    out = xr.Dataset(stats).compute()
    out.attrs.update(split="train", n_samples=int(train.sizes["sample"]))
    return out
