"""Stages of a generative-surrogate study (:mod:`pderepro.studies.generative`): the solver
samples, one training job per (method, seed) that trains, samples and scores, the
no-learning rows, the samples table and figure.

The system is Darcy flow: permeability ``K`` and pressure ``p`` generated jointly as two
channels on the solver's vertex grid, and the residual of a sample is the solver's own
5-point residual of ``-div(K grad p) = f`` (:mod:`pderepro.training.flow_matching.
residuals`). Every distance is to the test split (:mod:`pderepro.evaluation.
generative_metrics`); the validation split against the test split is the noise floor.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from pderepro.data.io import atomic_write, open_netcdf, write_netcdf
from pderepro.data.provenance import provenance_attrs
from pderepro.evaluation.generative_metrics import distribution_metrics
from pderepro.evaluation.generative_structure import statistics_distance, structure_distance
from pderepro.evaluation.tables import write_table
from pderepro.runtime import select_device, set_threads

log = logging.getLogger(__name__)

#: The splits of the solver samples, in file order, each from its own stream.
SPLITS = ("train", "validation", "test")
CHANNELS = ("K", "p")
#: Floor of a generated permeability inside the residual (ours): the harmonic face mean
#: divides by K1 + K2, which an early, still noisy sample can bring near zero; the law's
#: values are 3 and 12.
K_FLOOR = 0.1
#: Per-field distribution metrics copied from :func:`distribution_metrics`.
FIELD_METRICS = ("w1_K", "w1_p", "mean_error_K", "mean_error_p", "std_error_K", "std_error_p")
#: The table's columns besides the method, its label and seed count: ``<name>_mean`` over
#: seeds for each, and ``_low``/``_high`` (the seeds' range) for the claims' four.
SUMMARY = ("residual", "structure", "statistics", "energy", "mmd", "sample_s", *FIELD_METRICS)
RANGED = ("residual", "structure", "statistics", "energy")


def run_generative_data(*, output: str, data: Mapping[str, Any], seed: int, title: str,
                        threads: int = 1) -> None:  # fmt: skip
    """Draw the train, validation and test splits of Darcy pairs with our solver.

    The output holds ``K(sample, x, y)`` and ``p(sample, x, y)`` (float64, vertex values,
    boundary included) with a ``split`` coordinate; each split from its own seed.
    """
    from pderepro.solvers.elliptic.darcy import DarcyProblem, generate_darcy_samples

    set_threads(threads)
    problem = DarcyProblem(resolution=data["resolution"], forcing=data.get("forcing", 1.0))
    streams = np.random.SeedSequence([seed, 49]).generate_state(len(SPLITS))
    ks, ps, splits = [], [], []
    start = time.perf_counter()
    for split, stream in zip(SPLITS, streams, strict=True):
        n = data[f"n_{split}"]
        k, p = generate_darcy_samples(n, problem, seed=int(stream))
        ks.append(k)
        ps.append(p)
        splits += [split] * n
    grid = problem.grid
    ds = xr.Dataset(
        {"K": (("sample", "x", "y"), np.concatenate(ks)),
         "p": (("sample", "x", "y"), np.concatenate(ps))},
        coords={"sample": np.arange(len(splits)), "split": ("sample", splits), "x": grid,
                "y": grid},
    )  # fmt: skip
    ds.attrs.update(forcing=float(problem.forcing), resolution=int(problem.resolution),
                    solver_s_per_sample=(time.perf_counter() - start) / len(splits))  # fmt: skip
    ds.attrs.update(provenance_attrs(title=f"{title}: Darcy solver samples",
                                     rule="generative_data", params={"data": dict(data)},
                                     seed=seed))  # fmt: skip
    write_netcdf(ds, output)


def _split(ds: xr.Dataset, split: str) -> np.ndarray:
    """A split's samples as ``(n, 2, s, s)`` float64 (channels K, p)."""
    part = ds.where(ds["split"] == split, drop=True)
    return np.stack([part["K"].to_numpy(), part["p"].to_numpy()], axis=1)


def _open(data: str) -> tuple[xr.Dataset, float, float]:
    ds = open_netcdf(data, required=CHANNELS)
    return ds.load(), 1.0 / (ds.attrs["resolution"] - 1), float(ds.attrs["forcing"])


def residual_mean_abs(samples: np.ndarray, h: float, forcing: float) -> float:
    """Mean absolute Darcy residual over samples and interior vertices of ``(n, 2, s, s)``
    physical samples, over ``f`` (dimensionless; our solver's samples: round-off): the
    5-point scheme's ``|-div(K grad p) - f|`` (our definition: the paper's is not in our
    references)."""
    import torch

    from pderepro.training.flow_matching.residuals import darcy_residual

    x = torch.as_tensor(samples, dtype=torch.float64)
    r = darcy_residual(x[:, 0].clamp(min=K_FLOOR), x[:, 1], h, forcing)
    return float(r.abs().mean()) / forcing


def _scores(samples: np.ndarray, test: np.ndarray, h: float, forcing: float) -> dict[str, float]:
    """The table's metrics of one set of samples against the test split."""
    metrics = distribution_metrics(samples, test, CHANNELS)
    # spectrum shells [1, 2), [2, 4), ... up to four, each holding modes on this grid
    bins = min(4, int(np.log2(test.shape[-1] // 2 * np.sqrt(2))) + 1)
    statistics = statistics_distance(samples, test, CHANNELS, bins=bins)
    return {"residual": residual_mean_abs(samples, h, forcing),
            "structure": structure_distance(samples, test),
            "statistics": statistics["statistics_w1"],
            "energy": metrics["normalised_energy_distance"], "mmd": metrics["mmd"],
            **{k: metrics[k] for k in FIELD_METRICS}}  # fmt: skip


def run_train_generative(
    *, data: str, outputs: Mapping[str, str], method_key: str, seed: int,
    method: Mapping[str, Any], network: Mapping[str, Any], training: Mapping[str, Any],
    sampling: Mapping[str, Any], sigma_min: float, forcing: float, gpu: bool = False,
    threads: int = 1,
) -> None:  # fmt: skip
    """Train one method's network on the training split, draw its samples and score them.

    Writes the metrics (one row: method, seed, the table's metrics, seconds), the history,
    the samples (``K, p(sample, x, y)`` float32, physical units) and the checkpoint.
    """
    import torch

    from pderepro.models.unet_time import TimeUNet
    from pderepro.training.checkpoint import save_checkpoint
    from pderepro.training.flow_matching import (
        ChannelNormaliser,
        darcy_residual_loss,
        sample,
        train_flow_matching,
    )

    set_threads(threads)
    ds, h, f = _open(data)
    train = torch.as_tensor(_split(ds, "train"), dtype=torch.float32)
    normaliser = ChannelNormaliser.fit(train)
    model = TimeUNet(channels=len(CHANNELS), width=network["width"], levels=network["levels"],
                     time_features=network.get("time_features", 64), seed=seed)  # fmt: skip

    def residual(x: torch.Tensor) -> torch.Tensor:  # (B, 2, s, s) physical -> (B,)
        return darcy_residual_loss(x[:, 0].clamp(min=K_FLOOR), x[:, 1], h, f)

    run = train_flow_matching(
        model, normaliser.normalise(train), method=method, sigma_min=sigma_min,
        iterations=training["iterations"], batch_size=training["batch_size"],
        learning_rate=training["learning_rate"], seed=seed, residual=residual,
        normaliser=normaliser, log_every=training.get("log_every", 50),
        device=select_device("auto" if gpu else "cpu"),
    )  # fmt: skip
    generator = torch.Generator().manual_seed(10_000 + seed)
    start = time.perf_counter()
    with torch.no_grad():
        drawn = sample(
            model,
            sampling["n_samples"],
            tuple(train.shape[1:]),
            sampling["steps"],
            sigma_min,
            generator,
            stochastic=sampling.get("stochastic", 0.0),
        )
        drawn = normaliser.denormalise(drawn).double().numpy()  # (n, 2, s, s) physical
    sample_s = (time.perf_counter() - start) / len(drawn)
    scores = _scores(drawn, _split(ds, "test"), h, f)
    log.info("%s seed %d: residual %.4g, structure distance %.4g (%.3f s an iteration)",
             method_key, seed, scores["residual"], scores["structure"],
             run.seconds_per_iteration)  # fmt: skip
    row = {"method": method_key, "seed": seed, **scores, "sample_s": sample_s,
           "s_per_iteration": run.seconds_per_iteration}  # fmt: skip
    table = pd.DataFrame([row])
    atomic_write(
        outputs["metrics"], lambda tmp: table.to_csv(tmp, index=False, float_format="%.10g")
    )
    history = pd.DataFrame(run.history)
    atomic_write(outputs["history"], lambda tmp: history.to_csv(tmp, index=False))
    out = xr.Dataset({c: (("sample", "x", "y"), drawn[:, i].astype(np.float32))
                      for i, c in enumerate(CHANNELS)},
                     coords={"x": ds["x"].values, "y": ds["y"].values})  # fmt: skip
    out.attrs.update(provenance_attrs(
        title=f"generated samples of {method_key}, seed {seed}", rule="train_generative",
        params={"method": dict(method), "sigma_min": sigma_min}, seed=seed))  # fmt: skip
    write_netcdf(out, outputs["samples"])
    save_checkpoint(outputs["checkpoint"],
                    metadata={"model": "TimeUNet", "hparams": model.hparams(),
                              "normaliser": normaliser.to_dict(), "method": dict(method)},
                    model=model.state_dict())  # fmt: skip


def gaussian_fit(train: np.ndarray, rank: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` draws of a Gaussian fitted to ``(m, C, H, W)`` training fields: their mean and
    covariance of rank ``rank`` (the leading principal directions) plus the per-pixel
    variance left over (diagonal), so each pixel keeps its variance."""
    flat = train.reshape(len(train), -1)  # (m, D)
    mean = flat.mean(axis=0)
    _, values, directions = np.linalg.svd(flat - mean, full_matrices=False)
    rank = min(rank, len(values))
    scale = values[:rank] / np.sqrt(max(len(flat) - 1, 1))  # (r,) std along each direction
    kept = (scale[:, None] * directions[:rank]) ** 2  # (r, D)
    rest = np.clip(flat.var(axis=0, ddof=1) - kept.sum(axis=0), 0.0, None)  # (D,)
    draws = mean + (rng.standard_normal((n, rank)) * scale) @ directions[:rank]
    draws += np.sqrt(rest) * rng.standard_normal((n, flat.shape[1]))
    return draws.reshape(n, *train.shape[1:])


#: Principal directions of the no-learning Gaussian's covariance.
GAUSSIAN_RANK = 32


def run_generative_references(*, data: str, output: str, n_samples: int, seed: int,
                              forcing: float) -> None:  # fmt: skip
    """The no-learning rows: a Gaussian fitted to the training split (its mean and a
    covariance of rank :data:`GAUSSIAN_RANK` plus the leftover pixel variances), and the
    validation split itself (the noise floor of every distance: independent solver
    samples), each scored against the test split; the validation row's ``sample_s`` is
    our solver's seconds per sample."""
    ds, h, f = _open(data)
    train, test = _split(ds, "train"), _split(ds, "test")
    rng = np.random.default_rng([seed, 49, 1])
    gaussian = gaussian_fit(train, GAUSSIAN_RANK, rng, n_samples)
    rows = [{"method": "gaussian", "seed": 0, **_scores(gaussian, test, h, f),
             "sample_s": np.nan},
            {"method": "solver", "seed": 0, **_scores(_split(ds, "validation"), test, h, f),
             "sample_s": float(ds.attrs["solver_s_per_sample"])}]  # fmt: skip
    table = pd.DataFrame(rows)
    atomic_write(output, lambda tmp: table.to_csv(tmp, index=False, float_format="%.10g"))


def samples_table(runs: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """One row per method (in ``labels``' order): the seeds' mean of every metric, and the
    range of the residual and the energy distance."""
    rows = []
    for method, label in labels.items():
        of = runs[runs["method"] == method]
        if of.empty:
            continue
        row: dict[str, Any] = {"method": method, "label": label, "n_seeds": len(of)}
        for name in SUMMARY:
            row[f"{name}_mean"] = float(of[name].mean())
            if name in RANGED:
                row[f"{name}_low"], row[f"{name}_high"] = (
                    float(of[name].min()),
                    float(of[name].max()),
                )
        rows.append(row)
    return pd.DataFrame(rows)


def run_generative_tables(
    *, metrics: Sequence[str], outputs: Mapping[str, str], labels: Mapping[str, str],
    captions: Mapping[str, str],
) -> None:  # fmt: skip
    """The samples table (CSV and Markdown) from every run's and the references' metrics."""
    runs = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    table = samples_table(runs, labels)
    write_table(table, outputs["samples_csv"], outputs["samples_md"], caption=captions["samples"])
    for _, row in table.iterrows():
        log.info("%s: residual %.4g, structure distance %.4g", row["method"],
                 row["residual_mean"], row["structure_mean"])  # fmt: skip


def run_plot_generative(*, data: str, samples: Sequence[str], table: str,
                        outputs: Mapping[str, str], title: str,
                        labels: Mapping[str, str]) -> None:  # fmt: skip
    """Three samples (K over p) of the test split and of every method's first seed."""
    from pderepro.plotting.generative import plot_samples

    ds, _, _ = _open(data)
    sets = {"solver": _split(ds, "test")[:3]}
    for path in samples:  # results/<study>/runs/<method>/seed0/samples.nc
        method = Path(path).parent.parent.name
        with xr.open_dataset(path) as drawn:
            sets[method] = np.stack([drawn[c].values[:3] for c in CHANNELS], axis=1)
    scores = pd.read_csv(table).set_index("method")["residual_mean"].to_dict()
    plot_samples(
        sets,
        {k: labels.get(k, k) for k in sets},
        scores,
        title=title,
        paths=[outputs["png"], outputs["pdf"]],
    )
