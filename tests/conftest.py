"""Shared fixtures and markers."""

from pathlib import Path

import pytest
import torch

#: Repository root (tests run from a checkout).
ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config, items):
    if any(item.path.name == "test_dryrun.py" for item in items):
        from tests.workflow import dry_runs

        dry_runs.start()  # on the second core, while the unit tests run on the first
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    from tests.workflow import dry_runs

    dry_runs.clean()


@pytest.fixture
def one_torch_thread():
    """Run a test on one torch thread: FFT rounding differs with the thread count, and the
    numerics tests compare bit patterns or tight tolerances."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """The smoke preset run end to end, locally, in a temporary copy of the workflow: the
    shipped config, so every study of the default list (all seven) in one run."""
    from tests.workflow.helpers import copy_workflow, snakemake

    workdir = copy_workflow(tmp_path_factory.mktemp("smoke"))
    result = snakemake("--cores", "2", "--config", "preset=smoke", cwd=workdir, timeout=2400)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir
