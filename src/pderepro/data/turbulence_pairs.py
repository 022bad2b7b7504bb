"""LES training pairs of forced 2-D turbulence: DNS vorticity snapshots
(:func:`pderepro.data.turbulence.spin_up_and_snapshots`) filtered to the LES grid, with the
exact subgrid term of each."""

from __future__ import annotations

import numpy as np
import torch
import xarray as xr

from pderepro.data.conventions import apply_conventions
from pderepro.solvers.navier_stokes.torus import default_device
from pderepro.solvers.turbulence.les_filters import filter_width, filtered_pair, streamfunction

__all__ = ["filtered_pairs"]

#: Snapshots filtered per call in :func:`filtered_pairs` (bounds the work arrays at 1024^2).
_PAIR_CHUNK = 8


def filtered_pairs(
    ds: xr.Dataset,
    *,
    n_les: int,
    filter: str = "sharp",  # shadows the builtin inside this function only
    device: str | torch.device | None = None,
) -> xr.Dataset:
    """LES training pairs of every snapshot: ``(w_bar, psi_bar, Pi)`` on the ``n_les`` grid.

    ``w_bar`` and the exact subgrid term ``Pi = filter(u . grad w) - u_bar . grad w_bar`` come
    from :func:`~pderepro.solvers.turbulence.les_filters.filtered_pair` (filter width ``L / n_les``,
    sign convention ``w_bar_t + u_bar . grad w_bar = ... - Pi``); ``psi_bar`` solves
    ``-Lap psi_bar = w_bar`` spectrally on the LES grid of the ``L`` box.

    Parameters
    ----------
    ds : xarray.Dataset
        Output of :func:`pderepro.data.turbulence.spin_up_and_snapshots`
        (``w(member, time, x, y)``, attribute ``box_size``).
    n_les : int
        LES points per side, even, ``<= n``.
    filter : str
        ``"sharp"`` or ``"gaussian"`` (see :mod:`pderepro.solvers.turbulence.les_filters`).
    device : str or torch.device, optional
        Where to compute (float64); CUDA when available, else CPU.

    Returns
    -------
    xarray.Dataset
        ``w_bar`` (1/time), ``psi_bar`` (length^2/time) and ``Pi`` (1/time^2), each
        ``(member, time, x, y)`` float32 with ``x = y = L j / n_les``; ``member``, ``seed`` and
        ``time`` from ``ds``; attributes of ``ds`` plus ``filter``, ``n_les``, ``filter_width``.
    """
    if n_les % 2:
        raise ValueError(f"n_les must be even, got {n_les}")
    box = float(ds.attrs["box_size"])
    device = default_device(device)
    w = ds["w"].transpose("member", "time", "x", "y").to_numpy()
    members, times, n, _ = w.shape
    flat = w.reshape(members * times, n, n)
    out = np.empty((3, members * times, n_les, n_les), dtype=np.float32)
    with torch.no_grad():
        for first in range(0, flat.shape[0], _PAIR_CHUNK):
            chunk = torch.as_tensor(flat[first : first + _PAIR_CHUNK], dtype=torch.float64)
            w_bar, pi = filtered_pair(chunk.to(device), n_les, box, filter)
            psi_bar = streamfunction(w_bar, box)
            end = first + chunk.shape[0]
            for k, field in enumerate((w_bar, psi_bar, pi)):
                out[k, first:end] = field.cpu().numpy()
    dims = ("member", "time", "x", "y")
    shape = (members, times, n_les, n_les)
    grid = np.arange(n_les, dtype=np.float64) / n_les * box
    pairs = xr.Dataset(
        {name: (dims, out[k].reshape(shape)) for k, name in enumerate(("w_bar", "psi_bar", "Pi"))},
        coords={"member": ds["member"], "seed": ds["seed"], "time": ds["time"], "x": grid,
                "y": grid},
    )  # fmt: skip
    pairs.attrs.update(ds.attrs)
    pairs.attrs.update(filter=filter, n_les=int(n_les), filter_width=filter_width(box, n_les))
    return apply_conventions(pairs)
