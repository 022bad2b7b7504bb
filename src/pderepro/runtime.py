"""Process-level settings for workflow jobs: logging, threads, device, and what a failing
job tells the console.

Every job imports this module for its logging, so it imports torch only inside the
functions that need it: a job that only reads tables never pays torch's import (1.5-3 s
of each of some 250 small jobs of the quick run).
"""

from __future__ import annotations

import atexit
import logging
import os
import platform
import resource
import sys
import time
import traceback
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: Environment variable that forces the torch device (``cpu``, ``cuda``, ``cuda:1``...).
DEVICE_ENV = "PDEREPRO_DEVICE"
#: The lines every job's log opens and ends with (``benchmarks/quick_wall.py`` reads them).
STARTUP_LINE = "job start-up (interpreter and imports): %.2f s"
FINISH_LINE = "job finished: wall %.2f s, cpu %.2f s"


def _process_age() -> float:
    """Seconds since this process started (Linux ``/proc``; 0 where unknown)."""
    try:
        start_ticks = float(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return 0.0
    return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))


def _log_finish(started: float) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
    logging.getLogger(__name__).info(FINISH_LINE, time.monotonic() - started, cpu)


#: The folders of files the workflow makes itself: a corrupt input there may be removed,
#: since the next run makes it again (never a file the user brought).
GENERATED_ROOTS = ("data", "results")


#: The files jobs removed as corrupt, one per line, until a run makes them again: the
#: Snakefile forces their re-creation (Snakemake itself ignores a deleted intermediate file
#: whose downstream outputs exist) and so the rerun of every job that reads them.
REMOVED_CORRUPT = Path(".pderepro") / "removed-corrupt.txt"


def removed_corrupt_files(root: str | Path = ".") -> list[str]:
    """The files (relative paths) jobs under ``root`` removed as corrupt, still to remake."""
    path = Path(root) / REMOVED_CORRUPT
    lines = path.read_text().splitlines() if path.exists() else []
    return sorted({line for line in lines if line and not (Path(root) / line).exists()})


def forget_remade(root: str | Path = ".") -> None:
    """Drop the files that exist again from :data:`REMOVED_CORRUPT` (after a run)."""
    path = Path(root) / REMOVED_CORRUPT
    if path.exists():
        pending = removed_corrupt_files(root)
        if pending:
            path.write_text("".join(f"{line}\n" for line in pending))
        else:
            path.unlink()


def _job_name() -> str:
    """``rule <name> (<wildcards>)`` of the Snakemake script job in this process."""
    job = getattr(sys.modules.get("__main__"), "snakemake", None)
    if job is None:
        return Path(sys.argv[0]).name or "job"
    wildcards = ", ".join(f"{k}={v}" for k, v in job.wildcards.items())
    return f"rule {job.rule}" + (f" ({wildcards})" if wildcards else "")


def _removable(path: Path) -> bool:
    relative = _relative(path)
    return relative is not None and relative.parts[:1] in ((r,) for r in GENERATED_ROOTS)


def _relative(path: Path) -> Path | None:
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return None


def failure_report(error: BaseException, log_path: str | Path | None) -> str:
    """What the console shows when a job fails: the job, the error, the log, and for a
    corrupt input (an error with a ``corrupt`` path, :class:`pderepro.data.io.DataFileError`)
    that the file was removed and what the next run does (the file is removed here)."""
    lines = [f"pderepro: {_job_name()} failed: {error}"]
    corrupt = getattr(error, "corrupt", None)
    if corrupt is not None and _removable(Path(corrupt)) and not Path(corrupt).is_dir():
        Path(corrupt).unlink(missing_ok=True)  # a job beside this one may have removed it
        REMOVED_CORRUPT.parent.mkdir(exist_ok=True)
        with REMOVED_CORRUPT.open("a") as record:  # one short line: an atomic append
            record.write(f"{_relative(Path(corrupt))}\n")
        lines.append(
            f"  {corrupt} is corrupt (truncated or damaged) and has been removed. Run the same "
            "command again: it makes the file again and reruns every job that reads it, so "
            "the tables and figures built from it are rebuilt too."
        )
    elif corrupt is not None:
        lines.append(f"  {corrupt} is corrupt; it is not a file this workflow makes: replace it.")
    if log_path is not None:
        lines.append(f"  log: {log_path}")
    return "\n".join(lines)


def _on_failure(log_path: str | Path | None):
    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        traceback.print_exception(kind, error, tb)  # the whole story, into the job's log
        print(failure_report(error, log_path), file=sys.__stderr__, flush=True)

    return hook


def setup_logging(log_path: str | Path | None, level: int = logging.INFO) -> None:
    """Send logging (and stderr, where tqdm draws its progress line) to ``log_path``, log
    the job's start-up seconds now and its wall and CPU seconds at exit
    (:data:`STARTUP_LINE`, :data:`FINISH_LINE`), and on an uncaught error print
    :func:`failure_report` to the console.

    Parameters
    ----------
    log_path : path or None
        The job's log file; ``None`` logs to stderr only.
    """
    handlers: list[logging.Handler]
    if log_path is not None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        stream = open(log_path, "a", buffering=1)  # noqa: SIM115 - lives as long as the job
        sys.stderr = stream
        handlers = [logging.StreamHandler(stream)]
    else:
        handlers = [logging.StreamHandler(sys.stderr)]
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    # what the job paid before its stage ran, and its whole cost at exit: the quick
    # preset's time budget is spent as much on start-up as on work
    age = _process_age()
    logging.getLogger(__name__).info(STARTUP_LINE, age)
    atexit.register(_log_finish, time.monotonic() - age)
    # a failing job names itself, its error and its log on the console, where Snakemake
    # would show only a CalledProcessError; a corrupt generated input is removed
    sys.excepthook = _on_failure(log_path)


def select_device(preference: str = "auto") -> torch.device:
    """The torch device for a job: CUDA when present unless told otherwise.

    Parameters
    ----------
    preference : str
        ``auto`` (CUDA if available, else CPU) or an explicit device string. The
        environment variable ``PDEREPRO_DEVICE`` overrides it.
    """
    import torch

    preference = os.environ.get(DEVICE_ENV, preference)
    if preference == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(preference)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(f"device {preference!r} requested but CUDA is not available")
    return device


def set_threads(threads: int) -> None:
    """Limit torch's and numba's threads to the job's share of the cores.

    Oversubscribed numba parallel regions were measured 20x slower (two jobs of the
    Lorenz-96 kernel, each spawning a thread per core, on 2 busy cores).
    """
    import torch

    threads = max(1, int(threads))
    torch.set_num_threads(threads)
    os.environ["NUMBA_NUM_THREADS"] = str(threads)  # read when numba is first imported
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def describe_device(device: torch.device) -> str:
    """Human-readable name of the device: GPU name or CPU model."""
    if device.type == "cuda":
        import torch

        return torch.cuda.get_device_name(device)
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"CPU: {model}"
