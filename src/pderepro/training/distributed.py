"""Multi-device training: one job launches ``devices`` processes with torchrun.

The job's own process starts ``python -m torch.distributed.run`` on this module, passing
the training stage to run by its importable name (``module:function``), so this module
depends on no stage; each worker joins the process group (NCCL on GPUs, gloo on CPU) and
runs that same stage, where rank 0 alone logs progress and writes checkpoints, in the same
format as a single-device run.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

import torch

from pderepro.runtime import setup_logging

log = logging.getLogger(__name__)


def world() -> tuple[int, int, int]:
    """``(rank, local_rank, world_size)`` from torchrun's environment; (0, 0, 1) without it."""
    env = os.environ
    return int(env.get("RANK", 0)), int(env.get("LOCAL_RANK", 0)), int(env.get("WORLD_SIZE", 1))


def init_process_group(device: torch.device) -> None:
    """Join the process group once (NCCL on CUDA, gloo on CPU)."""
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")


def stage_name(stage: Callable[..., Any]) -> str:
    """The importable name ``module:function`` of a module-level function.

    Parameters
    ----------
    stage : callable
        A function defined at the top level of an importable module.

    Returns
    -------
    str
        Its name, which :func:`resolve_stage` turns back into ``stage``.

    Raises
    ------
    ValueError
        If ``stage`` cannot be imported by that name in a fresh process (a lambda, a nested
        function, or a function of a script run as ``__main__``).
    """
    name = f"{getattr(stage, '__module__', None)}:{getattr(stage, '__qualname__', None)}"
    if name.startswith("__main__:") or "<" in name or resolve_stage(name) is not stage:
        raise ValueError(f"{stage!r} is not importable as {name!r} by a worker process")
    return name


def resolve_stage(name: str) -> Callable[..., Any]:
    """The function named ``module:function`` (see :func:`stage_name`).

    Raises
    ------
    ValueError
        If ``name`` does not name an attribute of an importable module.
    """
    module, _, attr = name.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise ValueError(f"cannot import the stage {name!r}: {err}") from err


def launch(stage: Callable[..., None], stage_kwargs: Mapping[str, Any], devices: int) -> None:
    """Run ``stage(**stage_kwargs)`` in ``devices`` processes and wait for them.

    Parameters
    ----------
    stage : callable
        The training stage each worker runs (e.g.
        :func:`pderepro.stages.learning.run_train`): a module-level function, passed to
        the workers by its importable name.
    stage_kwargs : mapping
        Keyword arguments of ``stage`` (JSON-serialisable).
    devices : int
        Number of processes (one per GPU, or CPU processes).

    Raises
    ------
    ValueError
        If ``stage`` is not importable by name (see :func:`stage_name`).
    RuntimeError
        When any worker fails; its traceback is in the job's log.
    """
    job = {"stage": stage_name(stage), "kwargs": dict(stage_kwargs)}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(job, handle)
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
    """torchrun worker entry point: ``python -m pderepro.training.distributed JOB.json``.

    Parameters
    ----------
    argv : list of str
        The path of the JSON file written by :func:`launch`: the stage's importable name
        (``stage``) and its keyword arguments (``kwargs``).
    """
    rank, _, _ = world()
    setup_logging(None, level=logging.INFO if rank == 0 else logging.WARNING)
    with open(argv[0]) as handle:
        job = json.load(handle)
    stage = resolve_stage(job["stage"])
    try:
        stage(**job["kwargs"])
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
