"""No-learning references are exact where they should be: persistence on frozen fields,
linear extrapolation on fields linear in time, the training mean on the training mean."""

import numpy as np

from pderepro.evaluation.baselines import BASELINES

RNG = np.random.default_rng(0)
INPUT_TIMES = np.arange(1.0, 11.0)  # w(t = 1 .. 10), one frame per time unit
TARGET_TIMES = np.arange(10.5, 15.01, 0.5)  # two frames per unit after them


def _linear_in_time(times, a, b):
    """``a + t b`` for each time: (sample, len(times), ny, nx)."""
    return a[:, None] + times[None, :, None, None] * b[:, None]


def test_persistence_holds_the_last_frame():
    frames = RNG.normal(size=(3, 10, 4, 4))
    pred = BASELINES["persistence"](frames, target_times=TARGET_TIMES)
    assert pred.shape == (3, len(TARGET_TIMES), 4, 4)
    np.testing.assert_array_equal(pred, np.repeat(frames[:, -1:], len(TARGET_TIMES), axis=1))


def test_linear_extrapolation_is_exact_for_fields_linear_in_time():
    a, b = RNG.normal(size=(2, 3, 4, 4))
    pred = BASELINES["linear_extrapolation"](
        _linear_in_time(INPUT_TIMES, a, b), input_times=INPUT_TIMES, target_times=TARGET_TIMES
    )
    np.testing.assert_allclose(pred, _linear_in_time(TARGET_TIMES, a, b), rtol=1e-12, atol=1e-12)


def test_training_mean_is_the_mean_training_target_for_every_sample():
    train_targets = RNG.normal(size=(5, 6, 4, 4))
    pred = BASELINES["training_mean"](np.zeros((2, 10, 4, 4)), train_targets=train_targets)
    assert pred.shape == (2, 6, 4, 4)
    np.testing.assert_allclose(pred[1], train_targets.mean(axis=0))
