"""Random-feature models: the least-squares read-out recovers a planted read-out exactly,
seeded draws are reproducible and nested in N, the error of a smooth fit falls with N;
the box scaling and the argument checks."""

import numpy as np
import pytest

from pderepro.models.random_features import (
    BoxScaling,
    RandomFeatureModel,
    best_constant,
    relative_l2,
)


def _points(n, dim, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, (n, dim))


def test_the_readout_recovers_a_planted_linear_map_of_the_features():
    model = RandomFeatureModel(40, 3, seed=7, weight_scale=1.5, bias_scale=1.0)
    z = _points(400, 3)
    planted = np.random.default_rng(1).standard_normal(40)
    info = model.fit(z, model.features(z) @ planted)
    assert info.rank == 40 and info.singular_ratio > 1
    np.testing.assert_allclose(model.readout, planted, rtol=1e-7, atol=1e-7)
    fresh = _points(100, 3, seed=2)
    np.testing.assert_allclose(model.predict(fresh), model.features(fresh) @ planted, atol=1e-8)


def test_seeded_draws_are_reproducible_nested_and_seed_dependent():
    a = RandomFeatureModel(64, 4, seed=[3, 1])
    b = RandomFeatureModel(64, 4, seed=[3, 1])
    small = RandomFeatureModel(16, 4, seed=[3, 1])
    other = RandomFeatureModel(64, 4, seed=[4, 1])
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.biases, b.biases)
    np.testing.assert_array_equal(small.weights, a.weights[:, :16])  # (D, N)
    np.testing.assert_array_equal(small.biases, a.biases[:16])
    assert not np.allclose(other.weights, a.weights)


def test_the_stated_laws_of_the_weights_and_biases():
    model = RandomFeatureModel(20000, 2, seed=0, weight_scale=3.0, bias_scale=0.5)
    assert model.weights.shape == (2, 20000) and model.biases.shape == (20000,)
    assert model.weights.std() == pytest.approx(3.0, rel=0.02)
    assert abs(model.weights.mean()) < 0.05
    assert model.biases.min() >= -0.5 and model.biases.max() <= 0.5
    assert model.biases.std() == pytest.approx(0.5 / np.sqrt(3), rel=0.02)  # U(-s_b, s_b)


def test_the_error_falls_as_n_grows_on_a_smooth_function():
    def target(z):
        return np.sin(2 * z[:, 0]) * np.cos(z[:, 1]) + 0.5 * z[:, 1] ** 2

    z_test = _points(4000, 2, seed=9)
    errors = []
    for n in (8, 32, 128):
        model = RandomFeatureModel(n, 2, seed=0, weight_scale=2.0, bias_scale=2.0)
        z = _points(8 * n, 2, seed=n)
        model.fit(z, target(z))
        errors.append(relative_l2(model.predict(z_test), target(z_test)))
    assert errors[0] > 3 * errors[1] > 9 * errors[2]
    assert errors[2] < 1e-3


def test_box_scaling_maps_the_box_onto_the_unit_cube_and_samples_inside():
    box = BoxScaling((-2.0, 1.0), (2.0, 3.0))
    corners = np.array([[-2.0, 1.0], [2.0, 3.0], [0.0, 2.0]])
    np.testing.assert_allclose(box(corners), [[-1, -1], [1, 1], [0, 0]])
    points = box.sample(1000, np.random.default_rng(0))
    assert points.shape == (1000, 2)
    assert np.all(np.abs(box(points)) <= 1)
    with pytest.raises(ValueError, match="lows < highs"):
        BoxScaling((0.0,), (0.0,))


def test_underdetermined_fits_bad_shapes_and_unfitted_predictions_are_refused():
    model = RandomFeatureModel(10, 2)
    with pytest.raises(RuntimeError, match="fit"):
        model.predict(_points(3, 2))
    with pytest.raises(ValueError, match="underdetermined"):
        model.fit(_points(5, 2), np.zeros(5))
    with pytest.raises(ValueError, match=r"inputs \(n, 2\)"):
        model.features(_points(5, 3))


def test_the_best_constant_is_the_mean_and_errors_are_relative():
    assert best_constant([1.0, 2.0, 6.0]) == pytest.approx(3.0)
    assert relative_l2(np.zeros(4), np.ones(4)) == pytest.approx(1.0)
    assert relative_l2(np.ones(4), np.ones(4)) == 0.0
