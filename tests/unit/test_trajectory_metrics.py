"""PDEBench metrics over predicted frames: nRMSE, per step, Fourier bands."""

import numpy as np
import pytest

from pderepro.evaluation.trajectory_metrics import BANDS, band_rmse, nrmse, nrmse_per_step

X = np.arange(64) / 64


def _field(mode, amplitude=1.0):
    return amplitude * np.sin(2 * np.pi * mode * X)


def test_nrmse_over_time_and_space_and_per_step():
    true = np.stack([np.stack([_field(1), 2 * _field(1)])])  # (1, 2, 64)
    pred = true.copy()
    pred[0, 1] += _field(1)  # error only in the second frame, half its norm
    assert nrmse(pred, true)[0] == pytest.approx(np.sqrt(1 / 5))
    np.testing.assert_allclose(nrmse_per_step(pred, true)[0], [0.0, 0.5])


def test_band_rmse_puts_each_mode_in_its_band_and_keeps_parseval():
    true = np.zeros((1, 3, 64))
    error = _field(2, 0.3) + _field(8, 0.2) + _field(20, 0.1)  # low, mid, high
    pred = true + error[None, None, :]
    bands = band_rmse(pred, true)
    # a sine of amplitude A has RMS A / sqrt(2)
    assert bands["low"][0] == pytest.approx(0.3 / np.sqrt(2))
    assert bands["mid"][0] == pytest.approx(0.2 / np.sqrt(2))
    assert bands["high"][0] == pytest.approx(0.1 / np.sqrt(2))
    total = np.sqrt(sum(b[0] ** 2 for b in bands.values()))
    assert total == pytest.approx(np.sqrt(np.mean(error**2)))
    assert set(bands) == set(BANDS)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="sample, time, x"):
        nrmse(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="no predicted frames"):
        nrmse(np.zeros((2, 0, 4)), np.zeros((2, 0, 4)))
