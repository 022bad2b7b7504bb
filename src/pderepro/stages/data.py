"""Data stages: generate a split (whole, or shard by shard and merged), preprocess it to
each resolution."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from pderepro.data.io import (
    DataFileError,
    ensure_free_space,
    open_layout_netcdf,
    open_netcdf,
    write_netcdf,
)
from pderepro.data.preprocess import normalisation_stats, subsample
from pderepro.data.provenance import dataset_params, derived_provenance, provenance_attrs

# re-exported: workflow/rules/common.smk reads it from here
from pderepro.data.scheduler import dask_scheduler
from pderepro.data.specs import dataset_spec
from pderepro.runtime import select_device, set_threads

log = logging.getLogger(__name__)

#: Bytes per stored value (float32 fields).
_FLOAT32 = 4


def run_generate(
    *, dataset: Mapping[str, Any], split: str, start: int, count: int, output: str, threads: int = 1
) -> None:
    """Generate samples ``start .. start+count-1`` of one split of a dataset (one shard).

    ``dataset`` is the dataset's science (solver parameters, seed); the samples do not
    depend on how the split is sharded, because each has its own derived seed.
    """
    _generate(dataset, split, start, count, output, threads, rule="generate_shard",
              title=f"{dataset['name']} {split} samples {start}-{start + count - 1}",
              part={"start": start, "count": count})  # fmt: skip


def run_assemble_split(
    *,
    dataset: Mapping[str, Any],
    split: str,
    n_samples: int,
    shards: Sequence[str],
    output: str,
    threads: int = 1,
) -> None:
    """Make one split's file: generate it whole when it is one shard (``shards`` empty),
    else merge its shards.

    A one-shard split used to be generated, then "merged" by a second job that only copied
    it (91 of the quick preset's 633 jobs); generating it here gives the same samples,
    since each sample has its own derived seed.
    """
    if shards:
        run_merge(inputs=shards, output=output)
        return
    _generate(dataset, split, 0, n_samples, output, threads, rule="assemble_split",
              title=f"{dataset['name']} {split}", part={"n_samples": n_samples})  # fmt: skip


def _generate(
    dataset: Mapping[str, Any],
    split: str,
    start: int,
    count: int,
    output: str,
    threads: int,
    *,
    rule: str,
    title: str,
    part: Mapping[str, int],
) -> None:
    set_threads(threads)
    spec = dataset_spec(dataset["solver"])
    fields = count * spec.values_per_sample(dataset) * _FLOAT32
    ensure_free_space(output, 1.2 * fields + 1e6, what=f"{count} samples")
    generate = spec.load_generator()
    ds = generate(dataset, split=split, start=start, count=count, device=select_device())
    ds.attrs.update(
        provenance_attrs(
            title=title, rule=rule, params={**dataset, "split": split, **part},
            seed=dataset["seed"],
        )
    )  # fmt: skip
    write_netcdf(ds, output)


def run_merge(*, inputs: Sequence[str], output: str) -> None:
    """Concatenate the shards of a split along ``sample``, checking they belong together."""
    parts = [open_layout_netcdf(p, chunks={"sample": 256})[0] for p in inputs]
    first = parts[0].attrs
    for path, part in zip(inputs, parts, strict=True):
        if part.attrs.get("split") != first.get("split"):
            raise DataFileError(
                f"{path}: split {part.attrs.get('split')!r}, expected "
                f"{first.get('split')!r} like {inputs[0]}"
            )
        if dataset_params(part.attrs) != dataset_params(first):
            raise DataFileError(f"{path}: made with other dataset parameters than {inputs[0]}")
    merged = xr.concat(parts, dim="sample", combine_attrs="drop_conflicts")
    samples = merged["sample"].to_numpy()
    if not np.array_equal(samples, np.arange(len(samples))):
        raise DataFileError(f"shards {list(inputs)} do not hold samples 0..{len(samples) - 1}")
    merged.attrs = {k: first[k] for k in first if k not in ("title", "history")}
    merged.attrs.update(
        derived_provenance(
            first,
            title=first["title"].rsplit(" samples", 1)[0],
            rule="assemble_split",
            params={**dataset_params(first), "split": first["split"], "n_samples": len(samples)},
            input_files=inputs,
        )
    )
    _write_computed(merged, output, inputs)


def _write_computed(ds: xr.Dataset, output: str, inputs: Sequence[str]) -> None:
    """Write a dask-backed dataset, naming the inputs if reading them fails midway."""
    try:
        write_netcdf(ds, output)
    except (OSError, RuntimeError) as err:
        if isinstance(err, DataFileError):
            raise
        raise DataFileError(f"writing {output} from {list(inputs)} failed: {err}") from err


def run_preprocess(
    *,
    raw: Mapping[str, str],
    processed: Mapping[str, str],
    resolution: int,
    out_stats: str,
    threads: int = 1,
    chunk: int = 128,
) -> None:
    """Subsample every split to ``resolution`` with dask; statistics from train only.

    Parameters
    ----------
    raw, processed : mapping
        ``{split: path}`` of the merged raw splits and of their processed outputs (the
        same splits, ``train`` among them).
    """
    if set(raw) != set(processed) or "train" not in raw:
        raise ValueError(f"raw splits {sorted(raw)} and outputs {sorted(processed)} differ")
    with dask_scheduler(threads):
        splits = {}
        for split, path in raw.items():
            ds, layout = open_layout_netcdf(
                path, chunks={"sample": chunk}, expect_attrs={"split": split}
            )
            try:
                splits[split] = subsample(ds, resolution=resolution, grid=layout.grid)
            except ValueError as err:
                raise DataFileError(f"{path}: {err}") from None
        train_params = dataset_params(splits["train"].attrs)
        for split, ds in splits.items():
            if dataset_params(ds.attrs) != train_params:
                raise DataFileError(f"{raw['train']} and {raw[split]} come from different datasets")
        for split, ds in splits.items():
            params = {**json.loads(ds.attrs["params"]), "resolution": resolution}
            ds.attrs.update(
                derived_provenance(
                    ds.attrs,
                    title=f"{ds.attrs.get('title', split)} at resolution {resolution}",
                    rule="preprocess",
                    params=params,
                    input_files=[raw[split]],
                )
            )
            _write_computed(ds, processed[split], [raw[split]])
        train = open_netcdf(processed["train"], chunks={"sample": chunk})
        stats = normalisation_stats(train, layout)
        stats.attrs.update(
            provenance_attrs(
                title=f"normalisation statistics, train split, resolution {resolution}",
                rule="preprocess",
                params={"resolution": resolution},
                input_files=[processed["train"]],
            )
        )
        # ties the statistics to the very data they were computed from
        stats.attrs.update(split="train", data_params=train.attrs["params"])
        write_netcdf(stats, out_stats)
