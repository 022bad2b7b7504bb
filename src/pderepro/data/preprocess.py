"""Preprocessing with xarray + dask: subsample to a resolution, normalisation statistics.

Statistics come from the train split only; they are stored beside the data and
travel into checkpoints, so every consumer normalises the same way.
"""

from __future__ import annotations

import xarray as xr


def subsample(ds: xr.Dataset, *, resolution: int, dim: str = "x") -> xr.Dataset:
    """Strided subsampling of a periodic grid to ``resolution`` points.

    Parameters
    ----------
    ds : xarray.Dataset
        Data on the base grid along ``dim``.
    resolution : int
        Target number of points; must divide the base resolution.

    Raises
    ------
    ValueError
        When ``resolution`` does not divide the base grid size.
    """
    base = ds.sizes[dim]
    if resolution <= 0 or base % resolution:
        raise ValueError(
            f"resolution {resolution} does not divide the base grid of {base} points along {dim}"
        )
    return ds.isel({dim: slice(None, None, base // resolution)})


def normalisation_stats(
    train: xr.Dataset, *, input_var: str = "u0", target_var: str = "u"
) -> xr.Dataset:
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
