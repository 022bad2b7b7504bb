"""Tests for the SMARL environment under the VecEnv contract: one LES's blow-up ends it alone,
time limits truncate, the blow-up penalty is never better than surviving, and PPO's GAE
bootstraps truncations only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from gymnasium.utils import env_checker as checker
from stable_baselines3 import PPO

from pderepro.models.smarl import observation_scales
from pderepro.training.smarl_env import AgentsVecEnv, LesAgentsEnv
from pderepro.training.smarl_episodes import REWARD_FLOOR, blowup_penalty
from tests.unit.smarl_les import L, N, make_env, problem, smooth_fields


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
