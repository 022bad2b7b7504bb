"""Preprocessing with xarray + dask: subsample to a resolution, normalisation statistics.

Statistics come from the train split only; they are stored beside the data and
travel into checkpoints, so every consumer normalises the same way.
"""

from __future__ import annotations

import xarray as xr

from pderepro.data.layouts import SPATIAL_DIMS, subsample_stride


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


def normalisation_stats(train: xr.Dataset, *, input_var: str, target_var: str) -> xr.Dataset:
    """Scalar mean and standard deviation of inputs and targets over the train split.

    Parameters
    ----------
    train : xarray.Dataset
        The train split (eager or dask-backed); no other split may be passed.

    Returns
    -------
    xarray.Dataset
        Variables ``input_mean, input_std, target_mean, target_std`` (float64 scalars),
        with attribute ``split = "train"`` and the number of samples used.
    """
    if train.attrs.get("split", "train") != "train":
        raise ValueError(
            f"normalisation statistics must come from the train split, got "
            f"split={train.attrs.get('split')!r}"
        )
    # The fields cannot hold NaN (the solvers reject non-finite output), so skip the
    # NaN-aware reductions, which cost 2-3x.
    stats = {}
    for prefix, var in (("input", input_var), ("target", target_var)):
        field = train[var].astype("float64")
        stats[f"{prefix}_mean"] = field.mean(skipna=False)
        stats[f"{prefix}_std"] = field.std(skipna=False)
    out = xr.Dataset(stats).compute()
    out.attrs.update(split="train", n_samples=int(train.sizes["sample"]))
    return out
