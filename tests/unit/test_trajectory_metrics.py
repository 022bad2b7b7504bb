"""PDEBench's metrics over predicted frames: per-frame nRMSE, RMSE, bRMSE, cRMSE, max
error and fRMSE bands, on cases where the definitions part from their alternatives."""

import numpy as np
import pytest

from pderepro.evaluation import trajectory_metrics as tm

X = np.arange(64) / 64


def _field(mode, amplitude=1.0):
    return amplitude * np.sin(2 * np.pi * mode * X)


def test_nrmse_is_a_mean_of_per_frame_ratios_not_a_pooled_ratio():
    true = np.stack([np.stack([_field(1), 2 * _field(1)])])  # (1, 2, 64)
    pred = true.copy()
    pred[0, 1] += _field(1)  # error only in the second frame, half its norm
    np.testing.assert_allclose(tm.nrmse_per_step(pred, true)[0], [0.0, 0.5])
    assert tm.nrmse(pred, true)[0] == pytest.approx(0.25)
    assert tm.pooled_rel_l2(pred, true)[0] == pytest.approx(np.sqrt(1 / 5))


def test_on_a_decaying_truth_per_frame_and_pooled_ratios_part_by_orders_of_magnitude():
    # heat-like decay of one mode, 1e-4 of its start by the last frame; persistence of
    # the first frame as the prediction
    decay = np.exp(-np.linspace(0, np.log(1e4), 20))
    true = decay[None, :, None] * _field(2)[None, None, :]  # (1, 20, 64)
    pred = np.repeat(true[:, :1], 20, axis=1)
    pooled, per_frame = tm.pooled_rel_l2(pred, true)[0], tm.nrmse(pred, true)[0]
    assert 1.0 < pooled < 10.0  # dominated by the early, large frames
    assert per_frame > 100 * pooled  # each late frame's ratio is about 1 / decay
    np.testing.assert_allclose(per_frame, np.mean(np.abs(1 - decay) / decay), rtol=1e-12)


def test_rmse_and_boundary_rmse():
    true = np.zeros((2, 3, 64))
    pred = true.copy()
    pred[0] += 2.0  # constant error 2 everywhere in sample 0
    pred[1, :, 0], pred[1, :, -1] = 3.0, 4.0  # sample 1: error only at the two ends
    np.testing.assert_allclose(tm.rmse(pred, true), [2.0, np.sqrt(25 / 64)])
    np.testing.assert_allclose(tm.boundary_rmse(pred, true), [2.0, np.sqrt(12.5)])


def test_split_metrics_conserved_max_and_fourier_bands_with_pdebench_edges():
    true = np.zeros((2, 3, 64))
    error = 0.5 + _field(2, 0.3) + _field(11, 0.2) + _field(12, 0.1)
    pred = true.copy()
    pred[0] += error  # sample 1 has no error
    out = tm.split_metrics(pred, true)
    assert set(out) == set(tm.SPLIT_METRICS)
    # cRMSE: RMS over the two samples of the mean error (0.5 and 0)
    assert out["crmse"] == pytest.approx(np.sqrt(0.5 * 0.5**2))
    assert out["max_error"] == pytest.approx(np.abs(error).max())
    # |rfft| of a sine of amplitude A at its mode is A N / 2, of the constant c N; the RMS
    # over the two samples divides by sqrt(2); each band averages over its modes
    s = 1 / np.sqrt(2)
    assert out["frmse_low"] == pytest.approx(s * (0.5 + 0.3 / 2) / 4)
    assert out["frmse_mid"] == pytest.approx(s * (0.2 / 2) / 8)  # modes 4..11: 11 is mid
    high_modes = 33 - 12  # modes 12..32 of the 33 rfft modes
    assert out["frmse_high"] == pytest.approx(s * (0.1 / 2) / high_modes)  # 12 is high
    assert tm.BANDS["high"][0] == 12


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="sample, time, x"):
        tm.nrmse(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="no predicted frames"):
        tm.nrmse(np.zeros((2, 0, 4)), np.zeros((2, 0, 4)))
    with pytest.raises(ValueError, match="sample, time, x"):
        tm.split_metrics(np.zeros((2, 3, 4)), np.zeros((2, 3, 5)))
