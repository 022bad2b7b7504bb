"""Autoregressive training: the curriculum, the mixed rollout/teacher-forced loss, and
that a small model learns an advection step."""

import math

import pytest
import torch

from pderepro.models.registry import build_model
from pderepro.training.autoregressive import (
    AutoregressiveConfig,
    autoregressive_steps,
    rollout_error,
    train_autoregressive,
    trajectory_loss,
)

N = 32


def _advection(n_traj=12, frames=6, shift=1, seed=0):
    """Trajectories that move one cell per frame: the next frame is a roll of the last."""
    g = torch.Generator().manual_seed(seed)
    x = torch.arange(N) / N
    k = torch.randint(1, 4, (n_traj, 1), generator=g)
    phase = 2 * math.pi * torch.rand(n_traj, 1, generator=g)
    u0 = torch.sin(2 * math.pi * k * x + phase)  # (n_traj, N)
    return torch.stack([torch.roll(u0, shift * t, dims=1) for t in range(frames)], dim=1)


def _model(arch="fno1d_step", **hparams):
    torch.manual_seed(0)
    defaults = {"modes": 6, "width": 8, "layers": 2, "projection": 16, "n_params": 0}
    if arch == "fno1d_cape":
        defaults["n_params"] = 1
    return build_model(arch, {**defaults, **hparams}, resolution=N, n_train=12, input_shape=(1, N))


def test_curriculum_runs_from_teacher_forcing_to_rollout():
    assert autoregressive_steps(0.0, 40) == 0
    assert autoregressive_steps(0.5, 40) == 20
    assert autoregressive_steps(1.0, 40) == 39  # tanh(2.5): 99.3% of the steps
    shares = [autoregressive_steps(e / 10, 40) for e in range(11)]
    assert shares == sorted(shares)
    with pytest.raises(ValueError, match="progress"):
        autoregressive_steps(1.5, 40)


def test_mixed_loss_equals_rollout_at_full_autoregression_and_forcing_at_none():
    model = _model()
    truth = _advection()
    steps = truth.shape[1] - 1
    rolled, _ = trajectory_loss(model, truth, None, steps)
    forced, _ = trajectory_loss(model, truth, None, 0)
    # one step: rollout and teacher forcing see the same (true) input
    first_rolled, _ = trajectory_loss(model, truth[:, :2], None, 1)
    first_forced, _ = trajectory_loss(model, truth[:, :2], None, 0)
    torch.testing.assert_close(first_rolled, first_forced)
    assert not torch.isclose(rolled, forced)


def test_cape_models_return_an_auxiliary_loss():
    model = _model("fno1d_cape")
    params = torch.full((12, 1), 0.5)
    loss, aux = trajectory_loss(model, _advection(), params, 2)
    assert aux is not None and aux.item() > 0
    loss.add(aux).backward()
    assert all(p.grad is not None for p in model.parameters())


def test_training_learns_the_step_and_keeps_the_best_validation_epoch():
    model = _model()
    train, val = _advection(seed=0), _advection(seed=1)
    before = rollout_error(model, val, None)
    cfg = AutoregressiveConfig(epochs=30, batch_size=4, learning_rate=1e-2, step_epochs=10)
    history = train_autoregressive(model, train, None, cfg, seed=0, validation=(val, None))
    after = rollout_error(model, val, None)
    assert after < 0.3 * before, (before, after)
    assert after == pytest.approx(min(r["val_rollout_rel_l2"] for r in history), rel=1e-5)
    assert history[0]["n_autoregressive"] == 0 and history[-1]["n_autoregressive"] > 0
