"""The DNS and LES problems of a 2-D turbulence closure study, from its config sections.

The ``turbulence2d`` closure system's ``system`` section (``pderepro/data/schemas/
turbulence2d.yaml``) and a case's ``beta`` define both: the DNS on ``resolution^2`` points, the
LES on ``les_resolution^2`` with the same equation, its forcing filtered like the fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pderepro.solvers.les_filters import filter_transfer
from pderepro.solvers.navier_stokes_problem import NavierStokesProblem

__all__ = ["dns_problem", "les_problem"]


def dns_problem(system: Mapping[str, Any], beta: float, **fields: Any) -> NavierStokesProblem:
    """The DNS of a study's ``system`` section at one case's ``beta``."""
    return NavierStokesProblem(
        resolution=system["resolution"], viscosity=system["viscosity"],
        time_step=system["time_step"], box_size=system["box_size"], drag=system["drag"],
        beta=beta, forcing_kind="kolmogorov", forcing_wavenumber=system["forcing_wavenumber"],
        forcing_amplitude=system["forcing_amplitude"], **fields,
    )  # fmt: skip


def les_problem(
    system: Mapping[str, Any], beta: float, time_step: float, run_time: float,
    record_interval: float,
) -> NavierStokesProblem:  # fmt: skip
    """The LES of ``system`` on ``les_resolution^2`` points: the DNS's equation, with the
    forcing amplitude filtered like the fields (the Gaussian filter damps mode ``k_f``)."""
    n_les, k_f = system["les_resolution"], system["forcing_wavenumber"]
    # the filter's transfer at (k_f, 0): 1 for the sharp filter (k_f < n_les / 3)
    gain = float(filter_transfer(system["filter"], n_les, n_les)[k_f, 0])
    return NavierStokesProblem(
        resolution=n_les, viscosity=system["viscosity"], time_step=time_step,
        box_size=system["box_size"], drag=system["drag"], beta=beta,
        forcing_kind="kolmogorov", forcing_wavenumber=k_f,
        forcing_amplitude=gain * system["forcing_amplitude"], t_final=run_time,
        record_interval=record_interval,
    )  # fmt: skip
