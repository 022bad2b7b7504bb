"""Where dask computes: the job's threads, or a dask.distributed cluster.

dask is imported on first use, so the workflow can read :data:`DASK_SCHEDULER_ENV` when it
builds the DAG without importing dask.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

__all__ = ["DASK_SCHEDULER_ENV", "dask_scheduler"]

log = logging.getLogger(__name__)

#: Environment variable with the address of a dask.distributed scheduler to use.
DASK_SCHEDULER_ENV = "PDEREPRO_DASK_SCHEDULER"


@contextlib.contextmanager
def dask_scheduler(threads: int) -> Iterator[None]:
    """Run dask work on the cluster named by ``PDEREPRO_DASK_SCHEDULER``, else on threads.

    The threaded scheduler with the job's ``threads`` is the default: it needs nothing
    running. With an address (``tcp://host:8786``) the same computation is sent to that
    dask.distributed cluster.

    Parameters
    ----------
    threads : int
        Worker threads of the threaded scheduler (ignored with a cluster).

    Yields
    ------
    None
        Within the block, dask computations use the chosen scheduler.
    """
    address = os.environ.get(DASK_SCHEDULER_ENV)
    if not address:
        import dask

        with dask.config.set(scheduler="threads", num_workers=threads):
            yield
        return
    from distributed import Client  # only needed with a cluster

    log.info("using the dask.distributed scheduler at %s", address)
    with Client(address):
        yield
