"""Tests for the SMARL closure (multi-agent RL Smagorinsky coefficients) and its PPO training,
on tiny forced 2-D LES (16 x 16 grid, 2 pi box)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from torch import nn

from pderepro.models.smarl import (
    N_FEATURES,
    SmarlClosure,
    SmarlPolicy,
    action_to_cs,
    agent_observations,
    agent_points,
    coefficient_field,
    observation_scales,
)
from pderepro.solvers.turbulence.les import run_les
from pderepro.solvers.turbulence.les_closures import Smagorinsky
from pderepro.training.smarl import CURVE_COLUMNS, train_smarl
from pderepro.training.smarl_env import AgentsVecEnv
from tests.unit.smarl_les import L, N, enstrophy_reward, make_env, problem, smooth_fields


class ConstantPolicy(nn.Module):
    """Actions ``value`` everywhere; counts its calls."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value, self.calls = value, 0

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return torch.full(obs.shape[:-1], self.value, dtype=torch.float32)


# --- agents and observations -------------------------------------------------------------


def test_agent_points_are_patch_centres_row_major():
    ix, iy = agent_points(16, 4)
    assert ix.tolist() == [2] * 4 + [6] * 4 + [10] * 4 + [14] * 4
    assert iy.tolist() == [2, 6, 10, 14] * 4
    ix, iy = agent_points(16, 1)
    assert ix.tolist() == [8] and iy.tolist() == [8]
    with pytest.raises(ValueError, match="divide"):
        agent_points(16, 3)


def test_coefficient_field_constant_exact_and_agent_values():
    field = coefficient_field(torch.full((2, 16), 0.137, dtype=torch.float64), N)
    assert field.shape == (2, N, N)
    assert torch.equal(field, torch.full_like(field, 0.137))
    cs = torch.rand(3, 16, dtype=torch.float64)
    field = coefficient_field(cs, N)
    ix, iy = agent_points(N, 4)
    assert torch.equal(field[:, ix, iy], cs)
    # bilinear: bounded by the agents' values, the domain mean is theirs
    assert field.min() >= cs.min() and field.max() <= cs.max()
    torch.testing.assert_close(field.mean(dim=(1, 2)), cs.mean(dim=1))


def test_coefficient_field_is_periodic():
    cs = torch.rand(2, 16, dtype=torch.float64)
    grid = cs.reshape(2, 4, 4)
    field = coefficient_field(cs, N)
    p = N // 4
    # moving the agents one patch along x (with wrap-around) moves the field by p points
    shifted = coefficient_field(torch.roll(grid, 1, dims=1).reshape(2, 16), N)
    torch.testing.assert_close(shifted, torch.roll(field, p, dims=1), rtol=0, atol=1e-15)
    shifted = coefficient_field(torch.roll(grid, -1, dims=2).reshape(2, 16), N)
    torch.testing.assert_close(shifted, torch.roll(field, -p, dims=2), rtol=0, atol=1e-15)
    # across the wrap the field runs from the last agent's value to the first's
    one = torch.zeros(1, 16, dtype=torch.float64)
    one[0, 0] = 1.0  # agent at index 2 along x; index 0 lies between agents 3 (x=14) and 0
    column = coefficient_field(one, N)[0, :, 2]
    assert column[0] == pytest.approx(0.5) and column[15] == pytest.approx(0.25)


def test_observations_shape_finite_and_normalised():
    w = smooth_fields(2)
    scales = observation_scales(w, L)
    assert scales.shape == (N_FEATURES,) and (scales > 0).all()
    obs = agent_observations(w, L, 4, scales)
    assert obs.shape == (2, 16, N_FEATURES) and obs.dtype == torch.float32
    assert torch.isfinite(obs).all() and obs.abs().max() <= 10
    # one agent on a single reference field sees exactly the reference: log(1) = 0
    one = agent_observations(w[:1], L, 1, observation_scales(w[:1], L))
    torch.testing.assert_close(one, torch.zeros(1, 1, 3), rtol=0, atol=1e-6)
    # clipping: a zero field hits the floor 1e-6, whose log -13.8 is clipped to -10
    zero = agent_observations(np.zeros((1, N, N)), L, 4, scales)
    torch.testing.assert_close(zero, torch.full_like(zero, -10.0))


def test_observations_invariant_under_rotation():
    w = torch.as_tensor(smooth_fields(1, seed=3))
    scales = observation_scales(w, L)

    def rows(field):
        obs = agent_observations(field, L, 4, scales)[0].double().numpy()  # (16, 3)
        return obs[np.lexsort(obs.T[::-1])]

    for k in (1, 2, 3):
        np.testing.assert_allclose(rows(torch.rot90(w, k, dims=(1, 2))), rows(w), atol=1e-5)
    # a non-trivial check: the agents do see different things
    assert np.ptp(rows(w), axis=0).min() > 0.1


def test_action_to_cs_bounds():
    a = np.array([-3.0, -1.0, 0.0, 0.5, 1.0, 7.0])
    np.testing.assert_allclose(action_to_cs(a, 0.4), [0.0, 0.0, 0.2, 0.3, 0.4, 0.4])
    t = action_to_cs(torch.tensor([-2.0, 0.0, 2.0]), 0.4)
    torch.testing.assert_close(t, torch.tensor([0.0, 0.2, 0.4]))


# --- the closure -------------------------------------------------------------------------


def test_closure_with_constant_policy_is_smagorinsky():
    w = torch.as_tensor(smooth_fields(2))
    closure = SmarlClosure(
        ConstantPolicy(0.25), agents_per_side=4, cs_max=0.5, scales=observation_scales(w, L)
    )
    expected = Smagorinsky(coefficient=0.3125)(w, L)  # (0.25 + 1) / 2 * 0.5, exact in float32
    torch.testing.assert_close(closure(w, L), expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(closure.last_cs, torch.full((2, 16), 0.3125, dtype=torch.float64))
    # and inside the LES stepper
    closure.reset()
    les = problem()
    a = run_les(w, les, closure).vorticity
    b = run_les(w, les, Smagorinsky(coefficient=0.3125)).vorticity
    torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


def test_closure_holds_its_coefficients_between_actions():
    w = torch.as_tensor(smooth_fields(1))
    scales = observation_scales(w, L)
    counting = ConstantPolicy(0.0)
    closure = SmarlClosure(
        counting, agents_per_side=4, cs_max=0.5, scales=scales, steps_per_action=3
    )
    first = closure(w, L)
    assert counting.calls == 1
    # held: the next two calls use the field of the first, whatever w is now
    closure.policy = ConstantPolicy(1.0)
    torch.testing.assert_close(closure(2.0 * w, L), Smagorinsky(0.25)(2.0 * w, L))
    closure(w, L)
    torch.testing.assert_close(closure.last_cs, torch.full((1, 16), 0.25, dtype=torch.float64))
    torch.testing.assert_close(closure(w, L), Smagorinsky(0.5)(w, L))  # 4th call acts
    assert closure.last_cs.max() == 0.5
    closure.reset()
    closure.policy = counting
    torch.testing.assert_close(closure(w, L), first)
    assert counting.calls == 2


def test_policy_from_sb3_matches_predict():
    venv = AgentsVecEnv(make_env())
    model = PPO(
        "MlpPolicy", venv, n_steps=4, batch_size=64, seed=0, device="cpu", verbose=0,
        policy_kwargs={"net_arch": {"pi": [16, 8], "vf": [16, 8]}, "activation_fn": nn.Tanh},
    )  # fmt: skip
    with torch.no_grad():  # large output weights, so that the clipping to [-1, 1] shows
        model.policy.action_net.weight.mul_(300.0)
        model.policy.action_net.bias.fill_(0.1)
    policy = SmarlPolicy.from_sb3(model.policy, (16, 8))
    assert policy.hparams == {"hidden": [16, 8]}
    obs = np.random.default_rng(0).uniform(-3, 3, (200, 3)).astype(np.float32)
    expected, _ = model.predict(obs, deterministic=True)  # (200, 1)
    with torch.no_grad():
        got = policy(torch.as_tensor(obs)).numpy()
    assert np.array_equal(got, expected[:, 0])
    assert (np.abs(got) == 1).any() and (np.abs(got) < 1).any()
    with pytest.raises(ValueError, match="does not match"):
        SmarlPolicy.from_sb3(model.policy, (16,))


# --- training ----------------------------------------------------------------------------


def train(**kwargs):
    les = problem(time_step=1e-2)
    starts = kwargs.pop("starts", smooth_fields(2))
    options = {
        "problem": les, "starts": starts, "reward": enstrophy_reward,
        "scales": observation_scales(starts, L), "agents_per_side": 2, "cs_max": 0.5,
        "action_interval": 0.1, "episode_time": 0.4, "timesteps": 256, "batch": 2,
        "hidden": (16, 16), "progress": False,
    }  # fmt: skip
    options.update(kwargs)
    return train_smarl(**options)


def test_train_smarl_runs_and_is_deterministic():
    policy, curve = train(timesteps=256, seed=1)
    assert tuple(curve.columns) == CURVE_COLUMNS
    assert len(curve) == 256 // 32  # rollout = 4 actions x 2 LES x 4 agents
    assert curve["timesteps"].tolist() == list(range(32, 257, 32))
    assert np.isfinite(curve.to_numpy()).all()
    assert isinstance(policy, SmarlPolicy) and policy.hparams == {"hidden": [16, 16]}
    with torch.no_grad():
        actions = policy(torch.randn(500, 3) * 5)
    assert actions.shape == (500,) and actions.abs().max() <= 1
    again, curve_again = train(timesteps=256, seed=1)
    assert curve.equals(curve_again)
    for a, b in zip(policy.parameters(), again.parameters(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.slow  # PPO learning: 7 s each, out of the everyday loop
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_ppo_learns_the_preferred_dissipation(sign):
    """One start, reward -sign log(enstrophy): strong (sign +1) or weak (-1) dissipation wins;
    PPO must move C_s from its start (about cs_max / 2) to the right end, in both directions."""
    start = smooth_fields(1, k_max=5)

    def reward(w):
        return sign * enstrophy_reward(w)

    policy, curve = train(
        starts=start, reward=reward, timesteps=5000, learning_rate=1e-3, seed=0, hidden=(64, 64)
    )
    scales = observation_scales(start, L)
    with torch.no_grad():
        final = action_to_cs(policy(agent_observations(start, L, 2, scales)), 0.5).mean().item()
    early, late = curve["mean_cs"].iloc[:3].mean(), curve["mean_cs"].iloc[-3:].mean()
    assert abs(early - 0.25) < 0.08  # the untrained Gaussian, centred on action 0
    if sign > 0:
        assert late > early + 0.15 and final > 0.4
    else:
        assert late < early - 0.15 and final < 0.1
