"""Shared fixtures and markers."""

from pathlib import Path

import pytest
import torch

#: Repository root (tests run from a checkout).
ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def root() -> Path:
    return ROOT
