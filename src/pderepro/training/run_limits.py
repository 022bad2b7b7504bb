"""What a training run may spend, and what it did: a time limit checked from a few timed
steps, the device's peak memory, and whether an error is the GPU running out of memory.

Shared by the loops that stop a run which would not fit its budget
(:mod:`pderepro.training.pinn.loop`, :mod:`pderepro.training.spectral.loop`).
"""

from __future__ import annotations

import logging
import resource
import time

import torch

logger = logging.getLogger(__name__)

#: Steps timed (after one warm-up) to project a run against its time limit.
PROBE_ITERATIONS = 3


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (a GPU), so that wall clocks measure it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def peak_memory_mb(device: torch.device) -> float:
    """The process's peak resident set so far (CPU), or torch's peak allocation on the
    GPU since its last reset, MB."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is the GPU running out of memory (torch's own error, or cuBLAS
    failing to allocate its workspace)."""
    return isinstance(error, torch.cuda.OutOfMemoryError) or "ALLOC_FAILED" in str(error)


class TimeLimitProbe:
    """Projects a run's steps from :data:`PROBE_ITERATIONS` timed steps after a warm-up.

    Parameters
    ----------
    limit_s : float or None
        The run's budget (s); None never stops.
    iterations : int
        The steps the run would take.
    device : torch.device
        Synchronised before each reading.
    """

    def __init__(self, limit_s: float | None, iterations: int, device: torch.device) -> None:
        self.limit_s, self.iterations, self.device = limit_s, int(iterations), device
        self._start = time.perf_counter()

    def over(self, done: int) -> tuple[float, float] | None:
        """Call after step ``done`` (1-based): ``(seconds per step, projected seconds)``
        when the run would pass its limit and should stop here, else None."""
        if self.limit_s is None or done not in (1, 1 + PROBE_ITERATIONS):
            return None
        synchronize(self.device)
        if done == 1:  # the warm-up (first calls, allocations) is not timed
            self._start = time.perf_counter()
            return None
        per_step = (time.perf_counter() - self._start) / PROBE_ITERATIONS
        projected = per_step * self.iterations
        if projected <= self.limit_s or done >= self.iterations:
            return None
        logger.warning("%.3g s per step: %d steps would take %.0f s, over the run's limit of "
                       "%.0f s; stopping", per_step, self.iterations, projected,
                       self.limit_s)  # fmt: skip
        return per_step, projected
