"""Multi-device training: one job launches ``devices`` processes with torchrun.

The job's own process starts ``python -m torch.distributed.run`` on this module; each
worker joins the process group (NCCL on GPUs, gloo on CPU) and runs the same training
stage, where rank 0 alone logs progress and writes checkpoints, in the same format as a
single-device run.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

import torch

log = logging.getLogger(__name__)


def world() -> tuple[int, int, int]:
    """``(rank, local_rank, world_size)`` from torchrun's environment; (0, 0, 1) without it."""
    env = os.environ
    return int(env.get("RANK", 0)), int(env.get("LOCAL_RANK", 0)), int(env.get("WORLD_SIZE", 1))


def init_process_group(device: torch.device) -> None:
    """Join the process group once (NCCL on CUDA, gloo on CPU)."""
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")


def launch(stage_kwargs: Mapping[str, Any], devices: int) -> None:
    """Run the training stage in ``devices`` processes and wait for them.

    Parameters
    ----------
    stage_kwargs : mapping
        Keyword arguments of :func:`pderepro.stages.learning.run_train` (JSON-serialisable).
    devices : int
        Number of processes (one per GPU, or CPU processes).

    Raises
    ------
    RuntimeError
        When any worker fails; its traceback is in the job's log.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(dict(stage_kwargs), handle)
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={devices}",
        "-m",
        __name__,
        handle.name,
    ]
    log.info("launching %d training processes: %s", devices, " ".join(cmd))
    try:
        sys.stderr.fileno()
        log_stream = sys.stderr  # the job's log file: workers write their output there
    except (AttributeError, OSError, ValueError):
        log_stream = None  # stderr is not a file (e.g. captured by a test runner)
    try:
        result = subprocess.run(cmd, stdout=log_stream, stderr=log_stream, check=False)
    finally:
        os.unlink(handle.name)
    if result.returncode:
        raise RuntimeError(
            f"distributed training failed (exit {result.returncode}); "
            "see the workers' tracebacks above in this log"
        )


def main(argv: list[str]) -> None:
    """torchrun worker entry point: ``python -m pderepro.training.distributed ARGS.json``."""
    from pderepro.runtime import setup_logging
    from pderepro.stages.learning import run_train

    rank, _, _ = world()
    setup_logging(None, level=logging.INFO if rank == 0 else logging.WARNING)
    with open(argv[0]) as handle:
        kwargs = json.load(handle)
    try:
        run_train(**kwargs)
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
