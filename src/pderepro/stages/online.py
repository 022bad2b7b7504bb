"""Online evaluation of closures: climate statistics, forecasts, stability, noise floor."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from pderepro.data.io import open_netcdf, write_scores
from pderepro.evaluation.climate import climate_distances, histogram_edges
from pderepro.evaluation.predict import load_closure
from pderepro.evaluation.rollout import run_coarse_model
from pderepro.runtime import set_threads
from pderepro.solvers.lorenz96.lorenz96 import whole_steps

log = logging.getLogger(__name__)

ONLINE_COLUMNS = [
    "closure", "label", "setup", "hellinger", "kl", "wasserstein", "acf_rmse",
    "forecast_rmse_1mtu", "blowups", "members",
]  # fmt: skip


def _truth_ensembles(path: str) -> tuple[np.ndarray, np.ndarray, float]:
    """Reference and noise-floor ensembles ``(member, time, K)`` and the save interval."""
    ds = open_netcdf(path, required=("X",), expect_attrs={"role": "climate"})
    x = ds["X"].to_numpy()
    ensemble = ds["ensemble"].to_numpy()
    return x[ensemble == 0], x[ensemble == 1], float(ds.attrs["save_interval"])


def _forecast_starts(n_members: int, n_times: int, n_leads: int, starts: int, seed: int):
    """(member, time index) of each forecast start, spread over the reference ensemble."""
    candidates = n_members * (n_times - n_leads)
    if starts > candidates:
        raise ValueError(f"{starts} forecast starts need a longer truth run ({candidates} fit)")
    pick = np.random.default_rng(seed).choice(candidates, starts, replace=False)
    return pick // (n_times - n_leads), pick % (n_times - n_leads)


def _curves_dataset(setups: list[str], curves: list[dict], lags: np.ndarray, edges, leads):
    def stack(name: str, length: int) -> np.ndarray:
        return np.stack([c.get(name, np.full(length, np.nan)) for c in curves])

    centres = 0.5 * (edges[1:] + edges[:-1])
    return xr.Dataset(
        {
            "pdf": (("setup", "x_value"), stack("pdf", len(centres))),
            "pdf_truth": (("setup", "x_value"), stack("pdf_truth", len(centres))),
            "acf": (("setup", "lag"), stack("acf", len(lags))),
            "acf_truth": (("setup", "lag"), stack("acf_truth", len(lags))),
            "forecast_rmse": (("setup", "lead"), stack("forecast_rmse", len(leads))),
            "forecast_spread": (("setup", "lead"), stack("forecast_spread", len(leads))),
        },
        coords={"setup": setups, "x_value": centres, "lag": lags, "lead": leads},
    )


def run_online(
    *,
    checkpoint: str,
    climates: Mapping[str, str],
    setups: Mapping[str, float],
    closure: str,
    online: Mapping[str, Any],
    forecast: Mapping[str, Any],
    spinup_time: float,
    seed: int,
    metrics: str,
    curves: str,
    threads: int = 1,
) -> None:
    """Couple a closure into the coarse model at every setup: climate and forecasts.

    ``setups`` maps each setup to its forcing F; all setups run in one batch (the forcing
    is per trajectory). Climate runs start from
    the reference truth's first states, discard ``spinup_time`` and last as long as the
    truth; forecasts start from reference-truth states and use ``forecast.members``
    members when the closure is stochastic, one otherwise.
    """
    set_threads(threads)
    fitted, meta = load_closure(checkpoint, expect={"closure": closure})
    dt, edges = online["time_step"], histogram_edges(online["pdf"])
    names = list(climates)
    truths = {s: _truth_ensembles(climates[s]) for s in names}
    interval = truths[names[0]][2]
    save_every = whole_steps(interval, dt, what="climate save_interval")
    members, n_times, K = truths[names[0]][0].shape
    spin = whole_steps(spinup_time, interval, what="spinup_time")
    rng = np.random.default_rng(seed)
    per_stage = meta["target"] == "subgrid"  # see run_coarse_model

    x0 = np.concatenate([truths[s][0][:, 0] for s in names])  # (setups * members, K)
    forcing = np.repeat([setups[s] for s in names], members)
    log.info(
        "%s: climate runs, %d trajectories x %d steps",
        closure,
        len(x0),
        (spin + n_times) * save_every,
    )
    climate = run_coarse_model(
        fitted, x0, forcing, dt=dt, n_steps=(spin + n_times) * save_every, save_every=save_every,
        rng=rng, blowup_threshold=online["blowup_threshold"], per_stage=per_stage, progress=True,
    )  # fmt: skip
    model_x = climate.x[:, spin:].reshape(len(names), members, n_times, K)
    blowups = np.isfinite(climate.blowup_time).reshape(len(names), members).sum(axis=1)

    n_leads = whole_steps(forecast["lead_time"], interval, what="forecast lead_time")
    ens = forecast["members"] if fitted.stochastic else 1
    member_idx, time_idx = _forecast_starts(members, n_times, n_leads, forecast["starts"], seed)
    starts = np.concatenate([truths[s][0][member_idx, time_idx] for s in names])  # (S*n, K)
    log.info("%s: %d forecasts x %d members", closure, len(starts), ens)
    start_forcing = np.repeat(forcing[::members], len(member_idx) * ens)  # per setup
    run = run_coarse_model(
        fitted, np.repeat(starts, ens, axis=0), start_forcing, dt=dt,
        n_steps=n_leads * save_every, save_every=save_every, rng=rng,
        blowup_threshold=online["blowup_threshold"], per_stage=per_stage,
    )  # fmt: skip
    pred = run.x.reshape(len(names), len(member_idx), ens, n_leads, K)
    leads = interval * np.arange(1, n_leads + 1)
    lag_steps = whole_steps(online["acf_max_lag"], interval, what="acf_max_lag")
    rows, curves_list = [], []
    for i, setup in enumerate(names):
        reference = truths[setup][0]
        verifying = np.stack(
            [
                reference[m, t + 1 : t + 1 + n_leads]
                for m, t in zip(member_idx, time_idx, strict=True)
            ]
        )  # (starts, leads, K)
        mean = np.nanmean(pred[i], axis=1)  # (starts, leads, K)
        rmse = np.sqrt(np.nanmean((mean - verifying) ** 2, axis=(0, 2)))
        spread = np.sqrt(np.nanmean(np.nanvar(pred[i], axis=1), axis=(0, 2)))
        values, curves_i = climate_distances(model_x[i], reference, edges=edges, max_lag=lag_steps)
        curves_i.update(forecast_rmse=rmse, forecast_spread=spread)
        one = int(np.argmin(np.abs(leads - online["forecast_lead"])))
        rows.append(
            {"closure": closure, "label": meta["label"], "setup": setup, **values,
             "forecast_rmse_1mtu": rmse[one], "blowups": int(blowups[i]), "members": members}
        )  # fmt: skip
        curves_list.append(curves_i)
        log.info("%s %s: %s, %d/%d blew up", closure, setup, values, blowups[i], members)
    curves_ds = _curves_dataset(
        names, curves_list, interval * np.arange(lag_steps + 1), edges, leads
    )
    curves_ds.attrs.update(label=meta["label"], closure=closure)
    curves_ds["blowup_time"] = (
        ("setup", "member"),
        climate.blowup_time.reshape(len(names), members),
    )
    write_scores(rows, curves_ds, metrics=metrics, curves=curves, columns=ONLINE_COLUMNS,
                 title=f"online runs of {closure}", rule="online",
                 params={"online": dict(online), "forecast": dict(forecast)},
                 input_files=[checkpoint, *climates.values()])  # fmt: skip


def run_truth_floor(
    *,
    climates: Mapping[str, str],
    online: Mapping[str, Any],
    metrics: str,
    curves: str,
) -> None:
    """The noise floor: the second truth ensemble scored against the reference one."""
    rows, curves_list, edges = [], [], histogram_edges(online["pdf"])
    lag_steps = None
    for setup, path in climates.items():
        reference, second, interval = _truth_ensembles(path)
        lag_steps = whole_steps(online["acf_max_lag"], interval, what="acf_max_lag")
        values, curves_i = climate_distances(second, reference, edges=edges, max_lag=lag_steps)
        rows.append(
            {"closure": "truth", "label": "truth (second ensemble)", "setup": setup, **values,
             "forecast_rmse_1mtu": np.nan, "blowups": 0, "members": len(second)}
        )  # fmt: skip
        curves_list.append(curves_i)
    curves_ds = _curves_dataset(
        list(climates),
        curves_list,
        interval * np.arange(lag_steps + 1),
        edges,
        np.array([np.nan]),
    )
    curves_ds.attrs.update(label="truth (second ensemble)", closure="truth")
    write_scores(rows, curves_ds, metrics=metrics, curves=curves, columns=ONLINE_COLUMNS,
                 title="truth-vs-truth noise floor", rule="online",
                 params={"online": dict(online)}, input_files=list(climates.values()))  # fmt: skip
