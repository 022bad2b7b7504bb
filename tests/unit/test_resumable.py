"""An object's attribute state survives a save and load between segments, and a run that
stops and resumes draws the same numbers as one that never stopped."""

import io
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from torch import nn

from pderepro.training.resumable import attribute_state, restore_attributes


@dataclass(frozen=True)
class _Limits:
    steps: int
    rate: float


class _Helper:
    def __init__(self):
        self.count = 0
        self.weights = torch.ones(3)


class _Sampler:
    """A stand-in with every kind of state a sampler or weighting holds."""

    def __init__(self, seed: int):
        self.generator = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.points = torch.rand(5, 2, generator=self.generator)
        self.history = []
        self.moments = {"mean": 0.0, 1: np.zeros(2)}
        self.shape = (5, 2)
        self.limits = _Limits(10, 0.5)
        self.helper = _Helper()
        self.dtype = torch.float32
        self.transform = lambda x: 2 * x  # configuration: rebuilt, not saved
        self.scalar = nn.Parameter(torch.tensor(1.0))

    def step(self):
        self.points = torch.cat([self.points, torch.rand(1, 2, generator=self.generator)])
        self.history.append(float(self.rng.random()))
        self.moments["mean"] += 1.0
        self.moments[1] = self.moments[1] + self.rng.random(2)
        self.limits = _Limits(self.limits.steps - 1, self.limits.rate)
        self.helper.count += 1
        self.helper.weights = self.helper.weights * 2
        with torch.no_grad():
            self.scalar.add_(0.5)


def _roundtrip(state):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def test_a_resumed_object_continues_as_the_uninterrupted_one():
    reference = _Sampler(3)
    for _ in range(6):
        reference.step()

    first = _Sampler(3)
    for _ in range(3):
        first.step()
    state = _roundtrip(attribute_state(first))
    second = _Sampler(3)  # rebuilt as the next segment does
    scalar = second.scalar
    restore_attributes(second, state)
    for _ in range(3):
        second.step()

    assert torch.equal(second.points, reference.points)
    assert second.history == reference.history
    assert second.moments["mean"] == reference.moments["mean"]
    np.testing.assert_array_equal(second.moments[1], reference.moments[1])
    assert second.limits == reference.limits and second.shape == reference.shape
    assert second.helper.count == 6 and torch.equal(second.helper.weights, reference.helper.weights)
    assert second.scalar is scalar and second.scalar.item() == reference.scalar.item()
    assert torch.rand(1, generator=second.generator) == torch.rand(1, generator=reference.generator)


def test_skipped_attributes_are_left_to_the_caller():
    obj = _Sampler(0)
    assert "generator" not in attribute_state(obj, skip=("generator",))
    assert "transform" not in attribute_state(obj) and "dtype" not in attribute_state(obj)


def test_state_it_cannot_keep_raises_rather_than_being_dropped():
    obj = _Helper()
    obj.handle = io.BytesIO()
    with pytest.raises(TypeError, match="_Helper.handle"):
        attribute_state(obj)
