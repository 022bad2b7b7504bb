"""Tests for the SMARL closure (multi-agent RL Smagorinsky coefficients) and its PPO training,
on tiny forced 2-D LES (16 x 16 grid, 2 pi box)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from gymnasium.utils import env_checker as checker
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
from pderepro.solvers.les import run_les
from pderepro.solvers.les_closures import Smagorinsky
from pderepro.solvers.navier_stokes_problem import NavierStokesProblem
from pderepro.training.smarl import CURVE_COLUMNS, train_smarl
from pderepro.training.smarl_env import AgentsVecEnv, LesAgentsEnv
from pderepro.training.smarl_episodes import REWARD_FLOOR, blowup_penalty

L = 2.0 * math.pi
N = 16


def problem(time_step: float = 5e-3) -> NavierStokesProblem:
    return NavierStokesProblem(
        resolution=N, viscosity=1e-2, time_step=time_step, box_size=L, drag=0.1, beta=0.0,
        forcing_kind="kolmogorov", forcing_wavenumber=2, forcing_amplitude=2.0, t_final=1.0,
        record_interval=0.1,
    )  # fmt: skip


def smooth_fields(batch: int, seed: int = 0, n: int = N, k_max: int = 4) -> np.ndarray:
    """Random sums of a few Fourier modes ``|k| <= k_max``, ``(batch, n, n)``."""
    rng = np.random.default_rng(seed)
    x = np.arange(n) * L / n
    xx, yy = np.meshgrid(x, x, indexing="ij")
    out = np.zeros((batch, n, n))
    for b in range(batch):
        for _ in range(8):
            kx, ky = rng.integers(-k_max, k_max + 1, 2)
            out[b] += 3.0 * rng.normal() * np.cos(kx * xx + ky * yy + rng.uniform(0, 2 * np.pi))
    return out


def enstrophy_reward(w: np.ndarray) -> np.ndarray:
    """Higher for less enstrophy: maximised by strong dissipation."""
    return -np.log((w**2).mean(axis=(1, 2)))


class ConstantPolicy(nn.Module):
    """Actions ``value`` everywhere; counts its calls."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value, self.calls = value, 0

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return torch.full(obs.shape[:-1], self.value, dtype=torch.float32)


def make_env(starts=None, *, batch=1, episode_time=0.15, action_interval=0.05, **kwargs):
    starts = smooth_fields(3) if starts is None else starts
    return LesAgentsEnv(
        problem(), starts, enstrophy_reward, agents_per_side=4, cs_max=0.5,
        scales=observation_scales(smooth_fields(3), L), action_interval=action_interval,
        episode_time=episode_time, batch=batch, seed=0, **kwargs,
    )  # fmt: skip


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


# --- the environments --------------------------------------------------------------------


def test_les_agents_env_passes_the_gymnasium_checks_of_a_batched_env():
    """gymnasium's checker, less its step checks (they take ``terminated`` and ``truncated``
    for scalars; here one flag per LES: the blow-up test checks step determinism)."""
    env = make_env(batch=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checker.check_action_space(env.action_space)
        checker.check_observation_space(env.observation_space)
        checker.check_reset_return_type(env)
        checker.check_reset_seed_determinism(env)
        checker.check_reset_options(env)
        checker.env_reset_passive_checker(env)
        checker.env_step_passive_checker(env, env.action_space.sample())
    # rewards and end flags are one per LES, arrays: the checker's only complaints
    allowed = ("reward returned by `step()` must be a float", "`terminated` signal to be a",
               "`truncated` signal to be a")  # fmt: skip
    for item in caught:
        assert any(text in str(item.message) for text in allowed), str(item.message)


def test_les_agents_env_truncates_after_the_episode_time():
    env = make_env(batch=2, episode_time=0.15)  # 3 actions
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2, 16, 3) and env.observation_space.contains(obs)
    flags = []
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(np.zeros((2, 16), np.float32))
        assert reward.shape == (2,) and np.isfinite(reward).all()
        assert info["mean_cs"] == pytest.approx(0.25)
        assert info["mean_reward"] == pytest.approx(reward.mean())
        assert terminated.shape == truncated.shape == (2,) and terminated.dtype == bool
        flags.append((terminated.tolist(), truncated.tolist()))
    no, yes = [False, False], [True, True]
    assert flags == [(no, no), (no, no), (no, yes)]  # a time limit truncates, never terminates
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros((2, 16), np.float32))
    with pytest.raises(ValueError, match="action_interval"):
        make_env(action_interval=0.0123)
    with pytest.raises(ValueError, match="episode_time"):
        make_env(episode_time=0.12)


def test_blowup_penalty_is_never_better_than_surviving():
    """Worst discounted survival from any step k of any episode length H, the time limit
    bootstrapped with the worst value: the penalty stays below it by at least |r_min|."""
    assert blowup_penalty(0.95, -10.0) == pytest.approx(-210.0)
    for gamma in (0.0, 0.5, 0.9, 0.95, 0.99):
        for floor in (REWARD_FLOOR, -0.3):
            penalty = blowup_penalty(gamma, floor)
            worst_after = floor / (1 - gamma)  # bootstrap: worst value of any state
            for horizon in (1, 2, 50, 200):
                for left in range(1, horizon + 1):  # intervals left, this one included
                    rewards = sum(floor * gamma**j for j in range(left))
                    survival = rewards + gamma**left * worst_after
                    assert penalty <= survival + floor * (1 - 1e-12)
                    assert penalty <= rewards + floor  # also without the bootstrap
    # the old fixed -10 was better than surviving 50 actions of mean reward -0.6 at 0.95
    survival = sum(-0.6 * 0.95**j for j in range(50))
    assert -10.0 > survival > blowup_penalty(0.95)
    with pytest.raises(ValueError, match="gamma"):
        blowup_penalty(1.0)
    with pytest.raises(ValueError, match="reward_floor"):
        blowup_penalty(0.9, 0.0)


def test_rewards_are_clipped_to_the_floor():
    def wild(w):
        return np.array([-np.inf, np.nan, -3.0])[: len(w)]

    env = LesAgentsEnv(
        problem(), smooth_fields(3), wild, agents_per_side=4, cs_max=0.5,
        scales=observation_scales(smooth_fields(3), L), action_interval=0.05, episode_time=0.1,
        batch=3, seed=0, reward_floor=-5.0,
    )  # fmt: skip
    env.reset(seed=0)
    _, reward, *_ = env.step(np.zeros((3, 16), np.float32))
    np.testing.assert_array_equal(reward, [-5.0, -5.0, -3.0])
    assert env.blowup_reward == blowup_penalty(0.95, -5.0)


def _force_blowup(env: LesAgentsEnv, member: int) -> None:
    env._w_hat[member] = float("nan")  # the LES state, as a diverging solve leaves it


def test_blown_up_les_ends_alone_and_restarts_from_a_snapshot():
    starts = smooth_fields(3)
    actions = np.random.default_rng(1).uniform(-1, 1, (4, 3, 16)).astype(np.float32)
    envs = [make_env(starts, batch=3, episode_time=0.2) for _ in range(2)]  # 4 actions
    for env in envs:
        env.reset(seed=0)
        env.step(actions[0])
    _force_blowup(envs[0], 1)
    (obs, reward, terminated, truncated, info), ref = (e.step(actions[1]) for e in envs)
    assert terminated.tolist() == [False, True, False] and not truncated.any()
    assert info["blown_up"].tolist() == [False, True, False] and not ref[2].any()
    assert reward[1] == envs[0].blowup_reward == blowup_penalty(0.95)
    np.testing.assert_array_equal(reward[[0, 2]], ref[1][[0, 2]])
    assert np.isfinite(obs).all() and envs[0].observation_space.contains(obs)
    with pytest.raises(RuntimeError, match="reset"):
        envs[0].step(actions[2])
    obs, info = envs[0].reset(options={"reset_mask": terminated})
    index = info["start_index"]
    assert index[0] == index[2] == -1 and 0 <= index[1] < 3
    w = torch.fft.irfft2(envs[0]._w_hat, s=(N, N))
    torch.testing.assert_close(w[1], torch.as_tensor(starts[index[1]]), rtol=0, atol=1e-12)
    # the restarted LES follows a fresh LES from its snapshot (Euler start, own clock)
    fresh = make_env(starts[index[1]][None], batch=1, episode_time=0.2)
    fresh.reset(seed=0)
    for step in (2, 3):
        out, ref = envs[0].step(actions[step]), envs[1].step(actions[step])
        one = fresh.step(actions[step][1:2])
        # the others go on exactly as if nothing had blown up
        assert torch.equal(envs[0]._w_hat[[0, 2]], envs[1]._w_hat[[0, 2]])
        np.testing.assert_array_equal(out[1][[0, 2]], ref[1][[0, 2]])
        torch.testing.assert_close(envs[0]._w_hat[1:2], fresh._w_hat, rtol=1e-12, atol=1e-10)
        assert out[1][1] == pytest.approx(one[1][0], rel=1e-10)
    assert out[3].tolist() == [True, False, True] and not out[2].any()  # its clock: 2 of 4
    assert ref[3].all() and not ref[2].any()


def test_agents_vec_env_shapes_and_auto_reset():
    env = make_env(smooth_fields(1), batch=2, episode_time=0.1)  # one start, 2 actions
    venv = AgentsVecEnv(env)
    assert venv.num_envs == 32
    assert venv.observation_space.shape == (3,) and venv.action_space.shape == (1,)
    venv.seed(3)
    first = venv.reset()
    assert first.shape == (32, 3) and first.dtype == np.float32
    actions = np.linspace(-1, 1, 32, dtype=np.float32)[:, None]
    obs, rewards, dones, infos = venv.step(actions)
    assert obs.shape == (32, 3) and rewards.shape == (32,) and dones.shape == (32,)
    assert not dones.any() and "terminal_observation" not in infos[0]
    assert len(set(rewards[:16])) == 1 and len(set(rewards[16:])) == 1  # shared per LES
    assert rewards[0] != rewards[16]  # the two LES had different actions
    obs, rewards, dones, infos = venv.step(actions)
    assert dones.all()
    assert all(i["TimeLimit.truncated"] for i in infos)
    assert infos[5]["terminal_observation"].shape == (3,)
    assert not np.array_equal(np.stack([i["terminal_observation"] for i in infos]), obs)
    np.testing.assert_array_equal(obs, first)  # auto-reset to the single start
    assert infos[0]["episode"]["l"] == 2
    (episode,) = venv.episodes
    assert episode["length"] == 2 and episode["timesteps"] == 64
    assert episode["mean_cs"] == pytest.approx(0.25, abs=1e-6)
    assert venv.get_attr("batch") == [2] * 32 and venv.env_is_wrapped(AgentsVecEnv, [0]) == [False]
    assert venv.env_method("close", indices=[1, 2]) == [None, None]


def test_agents_vec_env_ends_a_blown_up_les_alone():
    env = make_env(smooth_fields(1), batch=2, episode_time=0.1)  # 2 actions
    venv = AgentsVecEnv(env)
    venv.seed(0)
    first = venv.reset()
    actions = np.zeros((32, 1), np.float32)
    _force_blowup(env, 1)
    obs, rewards, dones, infos = venv.step(actions)
    assert dones.tolist() == [False] * 16 + [True] * 16
    assert (rewards[16:] == np.float32(env.blowup_reward)).all() and (rewards[:16] > -10).all()
    assert all("terminal_observation" not in i for i in infos[:16])
    assert not any(i["TimeLimit.truncated"] for i in infos[16:])  # terminated: no bootstrap
    np.testing.assert_array_equal(obs[16:], first[16:])  # restarted from the single start
    assert venv.episodes[-1]["blowups"] == 1 and venv.episodes[-1]["episodes"] == 1
    obs, rewards, dones, infos = venv.step(actions)  # LES 0 hits its time limit
    assert dones.tolist() == [True] * 16 + [False] * 16
    assert all(i["TimeLimit.truncated"] for i in infos[:16])
    assert infos[0]["episode"]["l"] == 2 and venv.episodes[-1]["blowups"] == 0


def test_gae_bootstraps_truncations_not_terminations():
    """sb3's rollout on AgentsVecEnv, 2 actions per episode, LES 1 blown up at the first:
    advantages by hand, gamma V(final observation) added only at LES 0's time limit."""
    gamma, lam = 0.9, 0.8
    env = make_env(smooth_fields(2), batch=2, episode_time=0.1)
    venv = AgentsVecEnv(env)
    model = PPO(
        "MlpPolicy", venv, n_steps=2, batch_size=64, gamma=gamma, gae_lambda=lam, seed=0,
        device="cpu", policy_kwargs={"net_arch": [8]},
    )  # fmt: skip
    with torch.no_grad():
        model.policy.value_net.bias.fill_(0.5)  # V(0) != 0: the zeroed blown-up obs counts
    seen = []
    step = env.step

    def recording_step(action):
        if not seen:
            _force_blowup(env, 1)
        out = step(action)
        seen.append(out)
        return out

    env.step = recording_step
    _, callback = model._setup_learn(64)
    model.collect_rollouts(venv, callback, model.rollout_buffer, n_rollout_steps=2)
    buf = model.rollout_buffer
    v = buf.values  # (2, 32)

    def value(obs):
        with torch.no_grad():
            return model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]

    (obs0, r0, term0, _, _), (obs1, r1, _, trunc1, _) = seen
    assert term0.tolist() == [False, True] and trunc1.tolist() == [True, False]
    final = value(obs1[0])  # LES 0's final observation, (16,)
    last = value(venv._flat(env._observe(torch.fft.irfft2(env._w_hat, s=(N, N))))[16:])
    # LES 0: truncated at step 1, bootstrapped
    adv1 = r1[0] + gamma * final - v[1, :16]
    adv0 = r0[0] + gamma * v[1, :16] - v[0, :16] + gamma * lam * adv1
    np.testing.assert_allclose(buf.advantages[:, :16], np.stack([adv0, adv1]), rtol=1e-5)
    # LES 1: terminated at step 0 (the penalty alone), then a new episode running on
    blown = env.blowup_reward - v[0, 16:]
    running = r1[1] + gamma * last - v[1, 16:]
    np.testing.assert_allclose(buf.advantages[:, 16:], np.stack([blown, running]), rtol=1e-5)


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
