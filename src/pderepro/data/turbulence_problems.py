"""The DNS and LES problems of a 2-D turbulence closure study, from its config sections.

The ``turbulence2d`` closure system's ``system`` section (``pderepro/data/schemas/
turbulence2d.yaml``) and a case's ``beta`` define both: the DNS on ``resolution^2`` points, the
LES on ``les_resolution^2`` with the same equation, its forcing filtered like the fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.solvers.turbulence.les_filters import filter_transfer

__all__ = ["dns_problem", "les_problem"]


def dns_problem(system: Mapping[str, Any], beta: float, **fields: Any) -> NavierStokesProblem:
    """The DNS of a study's ``system`` section at one case's ``beta``."""
    return NavierStokesProblem(
        resolution=system["resolution"], viscosity=system["viscosity"],
        time_step=system["time_step"], box_size=system["box_size"], drag=system["drag"],
        beta=beta, forcing_kind=system["forcing_kind"],
        forcing_wavenumber=system["forcing_wavenumber"],
        forcing_amplitude=system["forcing_amplitude"], **fields,
    )  # fmt: skip


def les_problem(
    system: Mapping[str, Any], beta: float, time_step: float, run_time: float,
    record_interval: float,
) -> NavierStokesProblem:  # fmt: skip
    """The LES of ``system`` on ``les_resolution^2`` points: the DNS's equation, with the
    forcing amplitude filtered like the fields (the Gaussian filter damps the modes ``k_f``).

    Raises ``ValueError`` if the filter's gain differs between the forcing's modes (an
    anisotropic filter would change the forcing's shape, not only its amplitude).
    """
    problem = NavierStokesProblem(
        resolution=system["les_resolution"], viscosity=system["viscosity"],
        time_step=time_step, box_size=system["box_size"], drag=system["drag"], beta=beta,
        forcing_kind=system["forcing_kind"], forcing_wavenumber=system["forcing_wavenumber"],
        forcing_amplitude=system["forcing_amplitude"], t_final=run_time,
        record_interval=record_interval,
    )  # fmt: skip
    gain = _forcing_gain(problem, system["filter"])
    return dataclasses.replace(problem, forcing_amplitude=gain * problem.forcing_amplitude)


def _forcing_gain(problem: NavierStokesProblem, kind: str) -> float:
    """The filter's transfer on the modes the forcing occupies on the LES grid (for the sharp
    filter 1, as ``k_f < n_les / 3``); one value, or ``ValueError`` if they differ."""
    n = problem.resolution
    shape = np.fft.rfft2(dataclasses.replace(problem, forcing_amplitude=1.0).forcing())
    modes = np.abs(shape) > 1e-9 * np.abs(shape).max()
    gains = filter_transfer(kind, n, n)[modes]
    if np.ptp(gains) > 1e-12:
        raise ValueError(
            f"the {kind!r} filter's gain differs between the modes of the "
            f"{problem.forcing_kind!r} forcing ({gains.min():.6g}..{gains.max():.6g})"
        )
    return float(gains[0])
