"""No-learning references: what a table's learned models must beat.

Each reference predicts the test targets from the test inputs (and, for the training
means, the training targets) without fitting anything to the test split. A table that
shows them tells a reader what learning added: a model worse than the training-mean
field has learned nothing about the map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pderepro.solvers.burgers.burgers import heat_solution

#: Per-sample arrays: inputs ``(sample, *grid_in)``; returns ``(sample, *grid_out)``.
Reference = Callable[..., np.ndarray]


def heat(inputs: np.ndarray, *, dataset: Mapping[str, Any], **_: Any) -> np.ndarray:
    """The linear heat equation u_t = nu u_xx from u0 to t_final (Burgers without
    advection), solved exactly in Fourier space."""
    return heat_solution(inputs, dataset["viscosity"], dataset["t_final"])


def training_mean(inputs: np.ndarray, *, train_targets: np.ndarray, **_: Any) -> np.ndarray:
    """The mean training target, the same for every test sample (Darcy: the mean pressure
    field; Navier-Stokes: the mean trajectory of the target frames)."""
    mean = train_targets.mean(axis=0)  # (*grid_out)
    return np.broadcast_to(mean, (len(inputs), *mean.shape)).copy()


def persistence(inputs: np.ndarray, *, target_times: np.ndarray, **_: Any) -> np.ndarray:
    """The last input frame held for every target frame: ``(sample, frames_in, ny, nx)
    -> (sample, frames_out, ny, nx)``."""
    last = inputs[:, -1:]  # (sample, 1, ny, nx)
    return np.repeat(last, len(target_times), axis=1)


def linear_extrapolation(
    inputs: np.ndarray, *, input_times: np.ndarray, target_times: np.ndarray, **_: Any
) -> np.ndarray:
    """The last two input frames extrapolated linearly in time to every target frame."""
    slope = (inputs[:, -1] - inputs[:, -2]) / (input_times[-1] - input_times[-2])  # (S, ny, nx)
    lead = (target_times - input_times[-1])[None, :, None, None]  # (1, frames_out, 1, 1)
    return inputs[:, -1:] + lead * slope[:, None]


#: Every reference by name (``baselines.<name>`` in a study file).
BASELINES: dict[str, Reference] = {
    "heat": heat,
    "training_mean": training_mean,
    "persistence": persistence,
    "linear_extrapolation": linear_extrapolation,
}
