"""What one physics-informed run returns (:class:`PinnRun`, its :class:`Snapshot` s),
and the state a segment of a run longer than a cluster job saves for the next
(:class:`Segment`; :mod:`pderepro.training.pinn.loop` trains it)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from pderepro.training.pinn.samplers.base import Sampler, Weighting
from pderepro.training.resumable import (
    attribute_state,
    load_training_state,
    restore_attributes,
    save_training_state,
)
from pderepro.training.run_limits import TimeLimitProbe


@dataclass(frozen=True)
class Segment:
    """Where a run's job starts and stops: from the state in ``resume`` (None: the start)
    up to run step ``stop`` (None: the end of the run), saving the state to ``save``.

    Run steps count the Adam iterations, then the L-BFGS blocks (each ``log_every``
    iterations, one history row): ``stop = iterations + b`` stops after ``b`` blocks. A
    job with ``save`` saves the state at its end, whether it stopped there or the run
    finished (then the next job only returns the finished run)."""

    resume: str | Path | None = None
    stop: int | None = None
    save: str | Path | None = None


#: Version tag of a segment's saved state.
SEGMENT_FORMAT = "pderepro-pinn-segment-v1"


@dataclass
class Snapshot:
    """The residual field on a grid and the collocation points at one iteration."""

    iteration: int
    residual: np.ndarray  # (nt, nx) absolute residual on the snapshot grid
    points: np.ndarray  # (n, 2) collocation points (x, t)


@dataclass
class PinnRun:
    """What :func:`train_pinn` returns: the history (one row per log), snapshots, the
    final prediction on the reference grid and timings (seconds)."""

    history: list[dict[str, float]]
    snapshots: list[Snapshot] = field(default_factory=list)
    prediction: np.ndarray | None = None
    rel_l2: float = math.nan  # of the final (kept) network on the reference grid
    quantity: float = math.nan  # the problem's trainable scalar at the end, if any
    adam_s_per_iteration: float = math.nan
    lbfgs_s_per_iteration: float = math.nan
    lbfgs_iterations_taken: int = 0
    train_s: float = math.nan
    peak_memory_mb: float = math.nan  # see :func:`train_pinn`
    projected_s: float = math.nan  # where the run stopped over its time limit


@dataclass
class SegmentState:
    """Where a saved run stands: its phase (``adam``, ``lbfgs``, or ``done`` when it
    finished or stopped for good), Adam iterations and L-BFGS blocks done, its wall and
    evaluation seconds so far, and the L-BFGS phase's own state (:func:`_lbfgs`'s)."""

    phase: str = "adam"
    iteration: int = 0
    blocks: int = 0
    elapsed_s: float = 0.0
    eval_s: float = 0.0
    lbfgs: dict[str, Any] = field(default_factory=dict)


@dataclass
class SegmentParts:
    """The objects a segment saves and the next restores. The loss objective's points are
    rebuilt from the seed, and the problem's trainable scalars are the model's parameters
    (:class:`PinnField`), so neither is saved apart."""

    model: nn.Module
    sampler: Sampler
    weighting: Weighting
    optimizer: torch.optim.Optimizer
    schedule: torch.optim.lr_scheduler.LRScheduler
    run: PinnRun
    probe: TimeLimitProbe

    def _parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        stateful = {"model": self.model, "optimizer": self.optimizer, "schedule": self.schedule}
        return stateful, {"sampler": self.sampler, "weighting": self.weighting,
                          "probe": self.probe, "run": self.run}  # fmt: skip

    def save(self, path: str | Path, where: SegmentState) -> None:
        """Write the run's state at ``where`` atomically to ``path``."""
        stateful, objects = self._parts()
        snapshots = {"snapshots": [attribute_state(s) for s in self.run.snapshots]}
        save_training_state(path, format=SEGMENT_FORMAT,
                            where={**dataclasses.asdict(where), **snapshots},
                            stateful=stateful, objects=objects,
                            skip={"run": ("snapshots",), "sampler": ("domain",),
                                  "weighting": ("domain",)})  # fmt: skip

    def restore(self, path: str | Path, to_float64: Callable[[], None]) -> SegmentState:
        """Load a :meth:`save`'d state into the objects and return where it stood;
        ``to_float64`` converts the run for its L-BFGS phase first, where it had begun."""

        def before_load(where: dict[str, Any]) -> None:
            if where["phase"] == "lbfgs" or where["lbfgs"]:
                to_float64()  # before the weights load, or they would be cast to float32

        stateful, objects = self._parts()
        where = load_training_state(path, format=SEGMENT_FORMAT, stateful=stateful,
                                    objects=objects, before_load=before_load)  # fmt: skip
        self.run.snapshots = []
        for saved in where.pop("snapshots"):
            snapshot = Snapshot(0, np.empty(0), np.empty(0))
            restore_attributes(snapshot, saved)
            self.run.snapshots.append(snapshot)
        return SegmentState(**where)
