"""Writing a closure system's truth runs, and its coarse-grained pairs as contiguous time blocks
(train, validation, test).

The truth runs are every closure system's; the pair blocks are shared by those whose pairs fit
in memory (2-D turbulence, shallow water): Lorenz-96's long pairs runs stream through dask in
:mod:`pderepro.stages.closures`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import xarray as xr

from pderepro.data.closure_systems import SPLITS
from pderepro.data.io import write_netcdf
from pderepro.data.lorenz96_truth import time_blocks
from pderepro.data.provenance import derived_provenance, provenance_attrs

log = logging.getLogger(__name__)


def write_truth_run(
    ds: xr.Dataset, output: str, *, title: str, system: Mapping[str, Any],
    setting: Mapping[str, float], role: str, truth: Mapping[str, Any], seed: int,
    attrs: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """Write one truth run of a closure system with its role and provenance.

    Parameters
    ----------
    ds : xarray.Dataset
        The run.
    output : str
        Its NetCDF path.
    title : str
        Its title.
    system, setting, role, truth : mapping, mapping, str, mapping
        What made it, its ``params``: the system's settings, the setup's parameter (e.g.
        ``{"forcing": F}``), ``pairs`` or ``climate``, and the study's ``truth`` section.
    seed : int
        The run's seed.
    attrs : mapping, optional
        Further attributes of the run.
    """
    ds.attrs.update(role=role, **dict(attrs or {}))
    params = {"system": dict(system), **setting, "role": role, "truth": dict(truth)}
    ds.attrs.update(provenance_attrs(title=title, rule="generate_truth", params=params, seed=seed))
    write_netcdf(ds, output)


def write_pair_blocks(
    pairs: xr.Dataset, outputs: Mapping[str, str], *, split: Mapping[str, float],
    source: xr.Dataset, raw: str, title: str, params: Mapping[str, Any],
    attrs: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """Split ``pairs`` (dims ``member``, ``time``, ...) into contiguous time blocks and write
    each to ``outputs[split]`` with its provenance.

    Parameters
    ----------
    pairs : xarray.Dataset
        The pairs of one truth run, saved every ``source.attrs["save_interval"]``.
    outputs : mapping
        ``{split: path}`` for every split of :data:`~pderepro.data.closure_systems.SPLITS`.
    split : mapping
        Fractions of each split (in time order) and ``gap_time``, the time units left out
        between neighbouring blocks.
    source : xarray.Dataset
        The truth run the pairs come from (its ``params``, ``seed`` and ``history``).
    raw : str
        Its path (the provenance's input file).
    title : str
        Title of the blocks (``", <split> block"`` is appended).
    params : mapping
        Coarse-graining settings added to the source's parameters.
    attrs : mapping, optional
        Further attributes of every block.
    """
    gap = round(split["gap_time"] / float(source.attrs["save_interval"]))
    blocks = time_blocks(pairs.sizes["time"], {s: split[s] for s in SPLITS}, gap=gap)
    for name, block in blocks.items():
        part = pairs.isel(time=block)
        part.attrs.update(split=name, **dict(attrs or {}))
        merged = {**json.loads(source.attrs["params"]), **params, "split": dict(split)}
        part.attrs.update(
            derived_provenance(source.attrs, title=f"{title}, {name} block", rule="coarse_grain",
                               params=merged, input_files=[raw])
        )  # fmt: skip
        log.info("%s block: %d times x %d members", name, part.sizes["time"],
                 part.sizes["member"])  # fmt: skip
        write_netcdf(part, outputs[name])
