"""NetCDF reading and atomic writing."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import xarray as xr

from pderepro.data.conventions import apply_conventions
from pderepro.data.layouts import Layout, layout_of
from pderepro.data.provenance import provenance_attrs

log = logging.getLogger(__name__)


class DataFileError(RuntimeError):
    """An input file is missing, unreadable or not what the consumer expects.

    Parameters
    ----------
    message : str
        What is wrong, naming the file.
    corrupt : path, optional
        The file, where it cannot be read at all (truncated or damaged): the job's
        failure handler (:func:`pderepro.runtime.setup_logging`) removes such a file
        under ``data/`` or ``results/`` so that the next run makes it again.
    """

    def __init__(self, message: str, *, corrupt: str | Path | None = None) -> None:
        super().__init__(message)
        self.corrupt = None if corrupt is None else Path(corrupt)


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (threads that
    create files meanwhile would otherwise see the umask briefly cleared)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Write a file under a temporary name and rename it into place.

    A job killed mid-write therefore never leaves a file that looks complete. The file
    gets the usual permissions of a new file (0666 less the umask), not mkstemp's 0600.

    Parameters
    ----------
    path : path
        Final location; its parent directory is created.
    write : callable
        Called with the temporary path (same directory, so the rename is atomic).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        # mkstemp creates the file readable by its owner only; give results the
        # permissions any other new file gets (0666 less the umask)
        tmp.chmod(0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_netcdf(ds: xr.Dataset, path: str | Path, *, compress: bool = False) -> Path:
    """Write ``ds`` to NetCDF4 atomically, with conventions applied.

    Parameters
    ----------
    ds : xarray.Dataset
        Dataset to write (dask-backed is fine: it is computed while writing).
    path : path
        Destination file.
    compress : bool
        zlib level 4 on float variables; off by default because turbulent float32
        fields shrink only about 17% at 11-13x the write time.
    """
    ds = apply_conventions(ds)
    encoding = {}
    for name, var in ds.data_vars.items():
        enc: dict[str, object] = {}
        if compress and var.dtype.kind == "f":
            enc.update(zlib=True, complevel=4)
        if "sample" in var.dims:
            # one chunk per block of samples so readers can stream along samples
            n = ds.sizes["sample"]
            enc["chunksizes"] = tuple(
                min(n, 64) if d == "sample" else ds.sizes[d] for d in var.dims
            )
        encoding[name] = enc
    for name in ds.coords:
        # CF: a coordinate variable must not have a fill value (xarray adds NaN to floats)
        encoding[name] = {**encoding.get(name, {}), "_FillValue": None}
    log.info("writing %s", path)
    return atomic_write(
        path, lambda tmp: ds.to_netcdf(tmp, engine="netcdf4", format="NETCDF4", encoding=encoding)
    )


def write_scores(
    rows: Sequence[Mapping[str, Any]],
    curves_ds: xr.Dataset,
    *,
    metrics: str | Path,
    curves: str | Path,
    title: str,
    rule: str,
    params: Mapping[str, Any],
    input_files: Iterable[str | Path],
    columns: Sequence[str] | None = None,
) -> None:
    """Write an evaluation's scores, one row each, and its curves with their provenance.

    Parameters
    ----------
    rows : sequence of mapping
        The scores, written to the CSV ``metrics`` (``%.6g``; only ``columns`` if given).
    curves_ds : xarray.Dataset
        The curves, written to the NetCDF ``curves`` with :func:`provenance_attrs` of
        ``title``, ``rule``, ``params`` and ``input_files`` added to its attributes.
    """
    frame = pd.DataFrame(rows)
    frame = frame if columns is None else frame[list(columns)]
    atomic_write(metrics, lambda tmp: frame.to_csv(tmp, index=False, float_format="%.6g"))
    curves_ds.attrs.update(
        provenance_attrs(title=title, rule=rule, params=params, input_files=input_files)
    )
    write_netcdf(curves_ds, curves)


def open_netcdf(
    path: str | Path,
    *,
    chunks: dict[str, int] | None = None,
    required: tuple[str, ...] = (),
    expect_attrs: Mapping[str, object] | None = None,
) -> xr.Dataset:
    """Open a NetCDF file written by pderepro, failing clearly when it is unusable.

    Parameters
    ----------
    path : path
        File to open.
    chunks : dict, optional
        Dask chunks (e.g. ``{"sample": 50}``); ``None`` loads eagerly.
    required : tuple of str
        Variables that must be present.
    expect_attrs : mapping, optional
        Global (provenance) attributes the file must carry with these values, e.g.
        ``{"split": "train"}``; a file made for another purpose is refused.

    Raises
    ------
    DataFileError
        The file is missing, truncated or corrupt, lacks a required variable, or its
        attributes say it was made for something else.
    """
    path = Path(path)
    if not path.exists():
        raise DataFileError(f"{path}: file does not exist")
    try:
        ds = xr.open_dataset(path, engine="netcdf4", chunks=chunks)
    except (OSError, ValueError) as err:
        raise DataFileError(f"{path}: cannot be read as NetCDF ({err})", corrupt=path) from err
    missing = [v for v in required if v not in ds.variables]
    if missing:
        ds.close()
        raise DataFileError(f"{path}: missing variable(s) {missing}; has {sorted(ds.variables)}")
    for key, value in (expect_attrs or {}).items():
        if ds.attrs.get(key) != value:
            ds.close()
            raise DataFileError(
                f"{path}: attribute {key}={ds.attrs.get(key)!r}, expected {value!r}; "
                "was it made for another split, resolution or dataset?"
            )
    if chunks is None:
        try:
            ds = ds.load()
        except (OSError, RuntimeError, ValueError) as err:
            raise DataFileError(
                f"{path}: data cannot be read, file corrupt? ({err})", corrupt=path
            ) from err
        finally:
            ds.close()
    return ds


def open_layout_netcdf(path: str | Path, **kwargs: object) -> tuple[xr.Dataset, Layout]:
    """:func:`open_netcdf`, plus the file's :class:`Layout`, checked against its variables.

    Raises
    ------
    DataFileError
        As :func:`open_netcdf`, when the file records no (or an invalid) layout, when a
        recorded input field or the target is not a data variable, when a recorded
        scalar input is neither a data variable nor a coordinate of dimension ``sample``,
        or when the target of a trajectory layout lacks its trajectory dimension.
    """
    ds = open_netcdf(path, **kwargs)  # type: ignore[arg-type]
    try:
        layout = layout_of(ds.attrs, source=str(path))
    except ValueError as err:
        ds.close()
        raise DataFileError(str(err)) from None
    missing = [v for v in (*layout.inputs, layout.target) if v not in ds.data_vars]
    # scalars may be stored either way: a PDE parameter is often a coordinate on sample
    missing += [v for v in layout.scalars if v not in ds.variables]
    if missing:
        ds.close()
        raise DataFileError(f"{path}: lacks its layout variable(s) {missing}")
    not_scalar = [v for v in layout.scalars if ds[v].dims != ("sample",)]
    if not_scalar:
        ds.close()
        raise DataFileError(
            f"{path}: scalar input(s) {not_scalar} must have the single dimension sample"
        )
    if layout.trajectory_dim is not None and layout.trajectory_dim not in ds[layout.target].dims:
        ds.close()
        raise DataFileError(
            f"{path}: trajectory target {layout.target} {dict(ds[layout.target].sizes)} lacks "
            f"its trajectory dimension {layout.trajectory_dim!r}"
        )
    return ds, layout


def ensure_free_space(path: str | Path, needed_bytes: float, *, what: str) -> None:
    """Fail early when the file system of ``path`` lacks room for an output.

    Parameters
    ----------
    path : path
        The output about to be written (its nearest existing parent is checked).
    needed_bytes : float
        Expected size of what will be written, in bytes (with any margin included).
    what : str
        Description for the message.

    Raises
    ------
    OSError
        With the needed and available sizes in MB.
    """
    parent = Path(path).resolve().parent
    while not parent.exists():
        parent = parent.parent
    free = shutil.disk_usage(parent).free
    if free < needed_bytes:
        raise OSError(
            f"not enough disk space for {what} at {path}: need {needed_bytes / 1e6:.1f} MB, "
            f"{free / 1e6:.1f} MB free on {parent}"
        )
