"""The inputs of a layout as arrays a model takes: fields stacked as channels, scalars
side by side, each with its own normalisation statistics.

For layouts with several input fields and per-sample scalar PDE parameters (e.g. an
advection speed): every field and every scalar has its own mean and standard deviation
in stats.nc (:func:`~pderepro.data.preprocess.normalisation_stats`), so a channel of
small values is not drowned by one of large values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from pderepro.data.layouts import Layout


@dataclass(frozen=True)
class ModelInputs:
    """Input fields and scalars of a split, in the layout's order, with their statistics.

    Attributes
    ----------
    fields : numpy.ndarray
        ``(sample, channel, *grid)`` float32: channel ``c`` is ``layout.inputs[c]``.
    scalars : numpy.ndarray
        ``(sample, n_scalars)`` float32: column ``k`` is ``layout.scalars[k]``
        (``n_scalars = 0`` for a layout without scalars).
    field_mean, field_std : numpy.ndarray
        ``(channel,)`` float64: train-split mean and standard deviation of each field.
    scalar_mean, scalar_std : numpy.ndarray
        ``(n_scalars,)`` float64: the same for each scalar.
    """

    fields: np.ndarray
    scalars: np.ndarray
    field_mean: np.ndarray
    field_std: np.ndarray
    scalar_mean: np.ndarray
    scalar_std: np.ndarray

    def normalised(self) -> tuple[np.ndarray, np.ndarray]:
        """Fields and scalars, each standardised by its own statistics.

        Returns
        -------
        fields : numpy.ndarray
            ``(sample, channel, *grid)`` float32.
        scalars : numpy.ndarray
            ``(sample, n_scalars)`` float32.
        """
        # (channel,) -> (1, channel, 1, ...) to broadcast over samples and grid points
        shape = (1, -1) + (1,) * (self.fields.ndim - 2)
        fields = (self.fields - self.field_mean.reshape(shape)) / self.field_std.reshape(shape)
        scalars = (self.scalars - self.scalar_mean) / self.scalar_std  # (sample, n_scalars)
        return fields.astype(np.float32), scalars.astype(np.float32)


def _stat_arrays(stats: xr.Dataset, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(len(names),)`` float64 means and standard deviations of ``names``."""
    if stats.attrs.get("split", "train") != "train":
        raise ValueError(
            f"normalisation statistics must come from the train split, got "
            f"split={stats.attrs.get('split')!r}"
        )
    wanted = [f"{name}_{stat}" for name in names for stat in ("mean", "std")]
    missing = [v for v in wanted if v not in stats.data_vars]
    if missing:
        raise ValueError(f"normalisation statistics lack {missing}")
    mean = np.array([float(stats[f"{name}_mean"]) for name in names], dtype=np.float64)
    std = np.array([float(stats[f"{name}_std"]) for name in names], dtype=np.float64)
    return mean, std


def model_inputs(ds: xr.Dataset, layout: Layout, stats: xr.Dataset) -> ModelInputs:
    """Stack the input fields of ``ds`` as channels and its scalars as columns.

    Parameters
    ----------
    ds : xarray.Dataset
        A split with the variables of ``layout`` (eager or dask-backed; loaded here).
        Every input field has the dimensions ``(sample, *grid)`` in the same order and
        sizes; every scalar has the single dimension ``sample``.
    layout : Layout
        Its layout (:func:`~pderepro.data.layouts.layout_of` of its attributes).
    stats : xarray.Dataset
        Per-variable train-split statistics (``<name>_mean``, ``<name>_std``).

    Returns
    -------
    ModelInputs
        Fields ``(sample, channel, *grid)`` and scalars ``(sample, n_scalars)``, float32,
        with their float64 statistics in the same order.

    Raises
    ------
    ValueError
        When the input fields differ in dimensions, a scalar is not per sample, or a
        statistic is missing or not from the train split.
    """
    dims = ds[layout.inputs[0]].dims
    if dims[0] != "sample":
        raise ValueError(f"input field {layout.inputs[0]} has dims {dims}; expected sample first")
    for name in layout.inputs[1:]:
        if ds[name].dims != dims or ds[name].shape != ds[layout.inputs[0]].shape:
            raise ValueError(
                f"input fields {layout.inputs[0]} {dict(ds[layout.inputs[0]].sizes)} and "
                f"{name} {dict(ds[name].sizes)} cannot be stacked as channels"
            )
    for name in layout.scalars:
        if ds[name].dims != ("sample",):
            raise ValueError(f"scalar input {name} has dims {ds[name].dims}; expected (sample,)")
    # (sample, channel, *grid): one float32 copy, the channel axis right after sample
    fields = np.stack(
        [ds[name].to_numpy().astype(np.float32, copy=False) for name in layout.inputs], axis=1
    )
    # (sample, n_scalars); (sample, 0) without scalars, so models need no special case
    scalars = np.zeros((ds.sizes["sample"], len(layout.scalars)), dtype=np.float32)
    for k, name in enumerate(layout.scalars):
        scalars[:, k] = ds[name].to_numpy()
    field_mean, field_std = _stat_arrays(stats, layout.inputs)
    scalar_mean, scalar_std = _stat_arrays(stats, layout.scalars)
    return ModelInputs(fields, scalars, field_mean, field_std, scalar_mean, scalar_std)
