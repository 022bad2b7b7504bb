"""A neural spectral operator run trained in segments, each job's objects rebuilt and
restored from the last one's saved state, ends with the uninterrupted run's weights,
history and errors, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pderepro.training.pinn.loop import Budget
from pderepro.training.pinn.run_state import Segment
from pderepro.training.spectral import build_operator_network, train_operator
from tests.unit.test_nsm_training import METHODS, TINY, _setup


def _run(kind, segment=None, time_limit_s=None):
    method = METHODS[kind]
    problem, grid, test_inputs, test_reference, train_data = _setup("poisson_periodic", method)
    net = build_operator_network(TINY, problem, seed=0)
    run = train_operator(
        problem, net, method=method, seed=0, batch_size=2, test_inputs=test_inputs,
        budget=Budget(iterations=12, learning_rate=1e-3, decay_every=5, decay_factor=0.5,
                      log_every=4),
        test_reference=test_reference, grid_sizes=grid, train_data=train_data,
        time_limit_s=time_limit_s, segment=segment,
    )  # fmt: skip
    return run, net


def _segmented(tmp_path, kind, stops=(3, 8), **kwargs):
    resume = None
    for k, stop in enumerate(stops):
        save = tmp_path / f"segment{k}.pt"
        _run(kind, Segment(resume=resume, stop=stop, save=save), **kwargs)
        resume = save
    return _run(kind, Segment(resume=resume), **kwargs)


@pytest.mark.parametrize("kind", sorted(METHODS))
def test_segments_give_the_uninterrupted_run(tmp_path, kind):
    (run_a, net_a), (run_b, net_b) = _run(kind), _segmented(tmp_path, kind)
    times = ("wall_s",)
    assert [{k: v for k, v in r.items() if k not in times} for r in run_a.history] == [
        {k: v for k, v in r.items() if k not in times} for r in run_b.history
    ]
    for (name, a), b in zip(net_a.state_dict().items(), net_b.state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    assert run_a.rel_l2 == run_b.rel_l2
    np.testing.assert_array_equal(run_a.prediction, run_b.prediction)


def test_a_run_stopped_by_its_time_limit_stays_stopped(tmp_path):
    run, _ = _segmented(tmp_path, "grid", time_limit_s=1e-9)
    assert run.projected_s > 1e-9 and np.isnan(run.rel_l2_per_instance).all()
