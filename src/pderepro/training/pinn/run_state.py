"""What one physics-informed run returns (:class:`PinnRun`, its :class:`Snapshot` s),
and the state a segment of a run longer than a cluster job saves for the next
(:class:`Segment`; :mod:`pderepro.training.pinn.loop` trains it)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from pderepro.data.io import atomic_write
from pderepro.training.pinn.samplers.base import Sampler, Weighting
from pderepro.training.resumable import attribute_state, restore_attributes
from pderepro.training.run_limits import TimeLimitProbe


@dataclass(frozen=True)
class Segment:
    """Where a run's job starts and stops: from the state in ``resume`` (None: the start)
    up to Adam iteration ``stop`` (None: the end of the run), saving the state there to
    ``save`` when it stops before the end."""

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

    def save(self, path: str | Path, iteration: int, elapsed_s: float, eval_s: float,
             finished: bool) -> None:  # fmt: skip
        """Write the state after Adam iteration ``iteration`` (``finished``: the run
        stopped there for good) atomically to ``path``."""
        state = {
            "format": SEGMENT_FORMAT, "iteration": iteration, "elapsed_s": elapsed_s,
            "eval_s": eval_s, "finished": finished, "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(), "schedule": self.schedule.state_dict(),
            "sampler": attribute_state(self.sampler, skip=("domain",)),
            "weighting": attribute_state(self.weighting, skip=("domain",)),
            "probe": attribute_state(self.probe),
            "run": attribute_state(self.run, skip=("snapshots",)),
            "snapshots": [attribute_state(s) for s in self.run.snapshots],
            "torch_rng": torch.get_rng_state(),
        }  # fmt: skip
        atomic_write(path, lambda tmp: torch.save(state, tmp))

    def restore(self, path: str | Path) -> tuple[int, float, float, bool]:
        """Load a :meth:`save`'d state into the objects; returns its iteration, elapsed
        and evaluation seconds and whether the run had finished."""
        state = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or state.get("format") != SEGMENT_FORMAT:
            raise ValueError(f"{path}: not a {SEGMENT_FORMAT} state")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        for name in ("sampler", "weighting", "probe", "run"):
            restore_attributes(getattr(self, name), state[name])
        for saved in state["snapshots"]:
            snapshot = Snapshot(0, np.empty(0), np.empty(0))
            restore_attributes(snapshot, saved)
            self.run.snapshots.append(snapshot)
        torch.set_rng_state(state["torch_rng"])
        return state["iteration"], state["elapsed_s"], state["eval_s"], state["finished"]
