"""Truth statistics of forced 2-D turbulence from DNS snapshots (and their filtered pairs).

The targets every LES closure of issue 17 is scored against: mean energy and enstrophy spectra
of the DNS and of the filtered DNS on the LES grid, the vorticity PDF, its standard deviation
and the tail mass beyond ``n_sigma`` standard deviations. Spectra, PDF and tails follow the
conventions of :mod:`pderepro.evaluation.turbulence` (integer shells ``K = round(|k|)``,
per-shell sums that add up to the domain means, probability mass per bin).

Every statistic pools all members and snapshot times: the snapshots are samples of one
statistically steady state, and pooling is what an a posteriori comparison averages over too.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from pderepro.evaluation.turbulence import (
    energy_spectrum,
    enstrophy_spectrum,
    tail_mass,
    vorticity_pdf,
)

__all__ = ["truth_statistics"]


def _fields(da: xr.DataArray) -> np.ndarray:
    """``(member * time, n, n)`` float64 in the ``(x, y)`` layout the spectra expect."""
    values = da.transpose(..., "x", "y").to_numpy().astype(np.float64)
    return values.reshape(-1, *values.shape[-2:])


def _moments(w: np.ndarray, n_sigma: float) -> tuple[float, float, float]:
    mean, sigma = float(w.mean()), float(w.std())
    return mean, sigma, tail_mass(w, mean=mean, sigma=sigma, n_sigma=n_sigma)


def truth_statistics(
    snapshots: xr.Dataset,
    *,
    edges: np.ndarray,
    pairs: xr.Dataset | None = None,
    n_sigma: float = 3.0,
) -> xr.Dataset:
    """Mean spectra, vorticity PDF and tail statistics of DNS snapshots.

    Parameters
    ----------
    snapshots : xarray.Dataset
        ``w(member, time, x, y)`` (1/time) and attribute ``box_size``, as written by
        :func:`pderepro.data.turbulence.spin_up_and_snapshots`.
    edges : numpy.ndarray
        Vorticity bin edges ``(n_bins + 1,)`` (1/time) of the PDF; values outside count in the
        total but in no bin (see :func:`~pderepro.evaluation.climate.histogram_pdf`).
    pairs : xarray.Dataset, optional
        Output of :func:`pderepro.data.turbulence_pairs.filtered_pairs`; adds the statistics of the
        filtered DNS ``w_bar`` on the LES grid (the reference of an LES's resolved scales).
    n_sigma : float
        Tail threshold in standard deviations.

    Returns
    -------
    xarray.Dataset
        ``enstrophy_spectrum(shell)`` (1/time^2), ``energy_spectrum(shell)``
        (length^2/time^2), ``pdf(bin)`` (probability mass) with ``bin_lower(bin)`` and
        ``bin_upper(bin)``; scalars ``mean``, ``sigma`` (1/time) and ``tail_mass`` (fraction
        beyond ``n_sigma sigma`` from the mean). With ``pairs`` also the same for ``w_bar``
        with suffix ``_filtered`` on ``shell_les`` (spectra) and ``bin``. Attributes:
        ``box_size``, ``n_sigma``, ``n_fields`` (snapshots pooled) and, with ``pairs``,
        ``filter`` and ``n_les``.
    """
    edges = np.asarray(edges, dtype=np.float64)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must be a strictly increasing 1-D array of >= 2 values")
    box = float(snapshots.attrs["box_size"])
    w = _fields(snapshots["w"])
    mean, sigma, tails = _moments(w, n_sigma)
    data = {
        "enstrophy_spectrum": ("shell", enstrophy_spectrum(w).mean(axis=0)),
        "energy_spectrum": ("shell", energy_spectrum(w, box).mean(axis=0)),
        "pdf": ("bin", vorticity_pdf(w, edges)),
        "mean": ((), mean),
        "sigma": ((), sigma),
        "tail_mass": ((), tails),
    }
    attrs = {"box_size": box, "n_sigma": float(n_sigma), "n_fields": int(w.shape[0])}
    if pairs is not None:
        w_bar = _fields(pairs["w_bar"])
        mean_f, sigma_f, tails_f = _moments(w_bar, n_sigma)
        data |= {
            "enstrophy_spectrum_filtered": ("shell_les", enstrophy_spectrum(w_bar).mean(axis=0)),
            "energy_spectrum_filtered": ("shell_les", energy_spectrum(w_bar, box).mean(axis=0)),
            "pdf_filtered": ("bin", vorticity_pdf(w_bar, edges)),
            "mean_filtered": ((), mean_f),
            "sigma_filtered": ((), sigma_f),
            "tail_mass_filtered": ((), tails_f),
        }
        attrs |= {"filter": str(pairs.attrs["filter"]), "n_les": int(pairs.attrs["n_les"])}
    out = xr.Dataset(data, coords={"bin_lower": ("bin", edges[:-1]),
                                   "bin_upper": ("bin", edges[1:])})  # fmt: skip
    out = out.assign_coords(shell=np.arange(out.sizes["shell"]))
    if "shell_les" in out.dims:
        out = out.assign_coords(shell_les=np.arange(out.sizes["shell_les"]))
    out.attrs.update(attrs)
    for name, (long_name, units) in _ATTRS.items():
        for var in (name, f"{name}_filtered"):
            if var in out:
                out[var].attrs.update(long_name=long_name, units=units)
    return out


#: Long names and units of the statistics (dimensionless model units, as the truth files).
_ATTRS = {
    "enstrophy_spectrum": ("mean enstrophy 1/2 sum |c_k|^2 per integer shell round(|k|)", "1"),
    "energy_spectrum": ("mean kinetic energy per integer shell round(|k|)", "1"),
    "pdf": ("probability mass of vorticity per bin [bin_lower, bin_upper) (last one closed)", "1"),
    "mean": ("mean vorticity over all snapshots", "1"),
    "sigma": ("standard deviation of vorticity over all snapshots", "1"),
    "tail_mass": ("fraction of vorticity values beyond n_sigma sigma from the mean", "1"),
}
