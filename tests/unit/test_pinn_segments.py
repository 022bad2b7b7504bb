"""A physics-informed run trained in segments, each a fresh process's objects restored from
the last one's saved state, ends with the uninterrupted run's weights, history and
prediction, bit for bit, for every sampler and weighting."""

import numpy as np
import pytest
import torch

from pderepro.training.pinn.loop import Budget, Segment
from pderepro.training.pinn.samplers.base import SAMPLERS, WEIGHTINGS
from tests.unit.tiny_pinn import train_tiny


def _run(sampler, weighting, segment=None, schedule="step", time_limit_s=None, seed=0):
    """One job: every object built from the seed, as the stage builds them."""
    budget = Budget(iterations=40, learning_rate=1e-2, decay_every=20, decay_factor=0.5,
                    lbfgs_iterations=25, log_every=10, schedule=schedule)  # fmt: skip
    return train_tiny(sampler, weighting, budget, seed=seed, generator_seed=seed + 1,
                      snapshot_iterations=(0, 20, 40), time_limit_s=time_limit_s,
                      segment=segment)  # fmt: skip


def _segmented(tmp_path, sampler, weighting, stops=(15, 30, 40, 41, 42), **kwargs):
    """Stops inside Adam (40 iterations), at its end and after L-BFGS blocks 1 and 2."""
    resume = None
    for k, stop in enumerate(stops):
        save = tmp_path / f"segment{k}.pt"
        _run(sampler, weighting, Segment(resume=resume, stop=stop, save=save), **kwargs)
        resume = save
    return _run(sampler, weighting, Segment(resume=resume), **kwargs)


def _without_times(history):
    return [{k: v for k, v in row.items() if k != "wall_s"} for row in history]


def _assert_same_run(first, second):
    (run_a, model_a), (run_b, model_b) = first, second
    assert _without_times(run_a.history) == _without_times(run_b.history)
    np.testing.assert_array_equal(run_a.prediction, run_b.prediction)
    for (name, a), b in zip(
        model_a.state_dict().items(), model_b.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b), name
    assert [s.iteration for s in run_a.snapshots] == [s.iteration for s in run_b.snapshots]
    for a, b in zip(run_a.snapshots, run_b.snapshots, strict=True):
        np.testing.assert_array_equal(a.residual, b.residual)
        np.testing.assert_array_equal(a.points, b.points)
    assert run_a.lbfgs_iterations_taken == run_b.lbfgs_iterations_taken


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_segments_give_the_uninterrupted_run_for_every_sampler(tmp_path, sampler):
    _assert_same_run(_run(sampler, "none"), _segmented(tmp_path, sampler, "none"))


@pytest.mark.parametrize("weighting", sorted(WEIGHTINGS))
def test_segments_give_the_uninterrupted_run_for_every_weighting(tmp_path, weighting):
    _assert_same_run(_run("r3", weighting), _segmented(tmp_path, "r3", weighting))


def test_segments_keep_the_linear_schedule(tmp_path):
    kwargs = {"schedule": "linear"}
    _assert_same_run(_run("rad", "none", **kwargs), _segmented(tmp_path, "rad", "none", **kwargs))


def test_a_run_stopped_by_its_time_limit_stays_stopped_in_later_segments(tmp_path):
    run, _ = _segmented(tmp_path, "fixed", "none", time_limit_s=1e-9)
    assert run.projected_s > 1e-9 and np.isnan(run.prediction).all()
    assert run.history[-1]["iteration"] == 4  # the probe's warm-up and timed steps


def test_a_segment_that_stops_needs_somewhere_to_save():
    with pytest.raises(ValueError, match="save"):
        _run("fixed", "none", Segment(stop=10))
