"""Dataset generation: one shard of samples of one split, as an xarray Dataset."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from pderepro.data.records import sample_coords, solver_attrs
from pderepro.data.seeds import sample_seeds
from pderepro.solvers.burgers.burgers import BurgersProblem, solve_burgers
from pderepro.solvers.common.random_fields import grf_periodic_1d

log = logging.getLogger(__name__)


def generate_burgers(
    cfg: Mapping[str, Any], *, split: str, start: int, count: int, device: str | None = None
) -> xr.Dataset:
    """Burgers samples ``start .. start+count-1`` of a split: GRF u0 and u(t_final).

    Parameters
    ----------
    cfg : mapping
        The dataset config: ``viscosity, t_final, time_step, base_resolution, seed`` and
        ``grf: {scale, shift, exponent}``.
    split : str
        ``train`` or ``test``; part of every sample's seed.
    start, count : int
        Sample range.
    device : str, optional
        Torch device for the solver; the random draws are made with numpy on the CPU,
        so the data do not depend on the device beyond round-off.

    Returns
    -------
    xarray.Dataset
        ``u0(sample, x)`` and ``u(sample, x)`` as float32 (solved in float64), with
        coordinates ``sample, x, seed(sample), viscosity(sample)``.
    """
    problem = BurgersProblem(
        viscosity=cfg["viscosity"],
        t_final=cfg["t_final"],
        time_step=cfg["time_step"],
        resolution=cfg["base_resolution"],
    )
    seeds = sample_seeds(cfg["seed"], split, start, count)
    grf = cfg["grf"]
    u0 = np.concatenate(
        [
            grf_periodic_1d(
                1,
                problem.resolution,
                rng=np.random.default_rng(int(s)),
                scale=grf["scale"],
                shift=grf["shift"],
                exponent=grf["exponent"],
            )
            for s in seeds
        ]
    )  # (count, n)
    log.info("solving %d Burgers samples at n=%d", count, problem.resolution)
    u1 = solve_burgers(u0, problem, device=device, progress=True)
    ds = xr.Dataset(
        {
            "u0": (("sample", "x"), u0.astype(np.float32)),
            "u": (("sample", "x"), u1.astype(np.float32)),
        },
        coords=sample_coords(start, seeds, {"x": problem.grid}, {"viscosity": problem.viscosity}),
    )
    solver_attrs(
        ds, "burgers", split=split, solver="burgers_etdrk4", t_final=problem.t_final,
        time_step=problem.time_step,
    )  # fmt: skip
    return ds
