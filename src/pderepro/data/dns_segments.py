"""Resumable segments of a long turbulence DNS
(:func:`pderepro.data.turbulence.spin_up_and_snapshots`).

A truth run longer than a cluster job steps as several jobs. Each job but the last steps
from the previous job's saved state up to its stop step and saves a state file: where the
trajectory stands (the spectral vorticity, the AB2 stepper's last advection term, the
energy and enstrophy series so far, the DNS seconds so far) and the snapshots that fell
into its own steps, so that no file grows with the run. The last job resumes from the
latest state, gathers every earlier job's snapshots and writes the run's dataset: the same
values as one uninterrupted job, bit for bit (``tests/unit/test_dns_segments.py``).

States load with ``torch.load(weights_only=True)``: tensors, plain numbers and strings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pderepro.data.io import atomic_write

#: Version tag of a DNS segment's state file.
DNS_SEGMENT_FORMAT = "pderepro-dns-segment-v1"

__all__ = [
    "DNS_SEGMENT_FORMAT",
    "DnsSegment",
    "DnsState",
    "load_dns_state",
    "run_fingerprint",
    "save_dns_state",
]


@dataclass(frozen=True)
class DnsSegment:
    """Where a DNS job starts and stops.

    Attributes
    ----------
    resume : sequence of str or Path
        The earlier segments' state files, in order (empty: start at ``t = 0``); the job
        goes on from the last and takes the snapshots of all.
    stop : int, optional
        The step this job ends at, after its records (None: the run's last step, and the
        job returns the run's dataset).
    save : str or Path, optional
        Where a job that stops before the end saves its state (required then).
    """

    resume: Sequence[str | Path] = ()
    stop: int | None = None
    save: str | Path | None = None


@dataclass
class DnsState:
    """A DNS trajectory between two jobs.

    Attributes
    ----------
    step : int
        The last step taken, whose records are done.
    w_hat : torch.Tensor
        ``rfft2`` of the vorticity, ``(members, n, n // 2 + 1)`` complex128, on the CPU.
    advection : torch.Tensor or None
        The stepper's last advection term (:meth:`NavierStokesStepper.advection_state`).
    energy, enstrophy : numpy.ndarray
        ``(members, records)`` series of the whole run, filled up to ``step``.
    wall_s : float
        DNS seconds of all the jobs so far.
    first_snapshot : int
        Index of the first of this segment's snapshots in the run.
    snapshots : numpy.ndarray
        This segment's snapshots, ``(members, k, n, n)`` float32 (``k`` may be 0).
    """

    step: int
    w_hat: torch.Tensor
    advection: torch.Tensor | None
    energy: np.ndarray
    enstrophy: np.ndarray
    wall_s: float
    first_snapshot: int
    snapshots: np.ndarray = field(repr=False)

    def put_snapshots(self, run_snapshots: np.ndarray) -> None:
        """Copy this segment's snapshots into the run's ``(members, snapshot, n, n)`` array."""
        end = self.first_snapshot + self.snapshots.shape[1]
        run_snapshots[:, self.first_snapshot : end] = self.snapshots


def run_fingerprint(settings: Mapping[str, Any]) -> str:
    """A short hash of what defines a run (problem, members, seed, lengths): a state saved
    by another run is refused rather than continued."""
    text = json.dumps(dict(settings), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def save_dns_state(path: str | Path, state: DnsState, fingerprint: str) -> None:
    """Write ``state`` to ``path`` atomically (a killed job leaves no half file)."""
    payload = {
        "format": DNS_SEGMENT_FORMAT,
        "fingerprint": fingerprint,
        "step": int(state.step),
        "w_hat": state.w_hat.detach().cpu(),
        "advection": None if state.advection is None else state.advection.detach().cpu(),
        "energy": torch.from_numpy(np.ascontiguousarray(state.energy)),
        "enstrophy": torch.from_numpy(np.ascontiguousarray(state.enstrophy)),
        "wall_s": float(state.wall_s),
        "first_snapshot": int(state.first_snapshot),
        "snapshots": torch.from_numpy(np.ascontiguousarray(state.snapshots)),
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda tmp: torch.save(payload, tmp))


def load_dns_state(path: str | Path, fingerprint: str) -> DnsState:
    """Read :func:`save_dns_state`'s file, refusing one of another run or format.

    Raises
    ------
    ValueError
        If the file is not a DNS segment state, or was saved by a run with other settings.
    """
    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != DNS_SEGMENT_FORMAT:
        raise ValueError(f"{path}: not a {DNS_SEGMENT_FORMAT} state")
    if payload["fingerprint"] != fingerprint:
        raise ValueError(
            f"{path}: saved by a run with other settings (fingerprint {payload['fingerprint']}, "
            f"this run {fingerprint}); delete it to start the run afresh"
        )
    return DnsState(
        step=payload["step"],
        w_hat=payload["w_hat"],
        advection=payload["advection"],
        energy=payload["energy"].numpy(),
        enstrophy=payload["enstrophy"].numpy(),
        wall_s=payload["wall_s"],
        first_snapshot=payload["first_snapshot"],
        snapshots=payload["snapshots"].numpy(),
    )
