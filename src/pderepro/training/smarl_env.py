"""The SMARL environment (:mod:`pderepro.models.smarl`): LES of 2-D turbulence whose agents set
local Smagorinsky coefficients.

:class:`LesAgentsEnv` runs ``batch`` independent LES on the LES grid with a per-point
Smagorinsky closure whose coefficient field comes from the agents' actions. One environment step
is one action interval: all agents of all LES act, the LES advance ``action_interval /
time_step`` steps with the coefficients held, and each LES gets one reward, ``reward(w)`` of its
new field (injected by the caller, e.g. minus the log error of its enstrophy spectrum against
the DNS one; higher is better), clipped below at ``reward_floor``.

Each LES has its own episode, as the sub-environments of a vector environment:

- an LES that blows up ends alone, ``terminated`` (nothing to bootstrap), with the reward
  :func:`~pderepro.training.smarl_episodes.blowup_penalty`, which is never better than
  surviving;
- an LES that reaches ``episode_time`` is ``truncated`` (a time limit: the learner bootstraps
  from the value of its final observation);
- an ended LES is restarted from a reference snapshot drawn from ``starts`` by
  ``reset(options={"reset_mask": ended})`` (gymnasium's partial-reset convention) while the
  others go on, their trajectories unchanged (the stepper's per-member restart,
  :meth:`~pderepro.solvers.navier_stokes.navier_stokes.NavierStokesStepper.restart`).

:class:`AgentsVecEnv` shows every agent of every LES to stable-baselines3 as a sub-environment
sharing its LES's reward and episode (cooperative agents, one shared policy), and restarts ended
LES automatically in the same step (sb3's convention: ``terminal_observation`` and
``TimeLimit.truncated`` in the infos, from which sb3's PPO bootstraps truncated episodes only);
PPO on it is :func:`pderepro.training.smarl.train_smarl`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.utils import seeding
from stable_baselines3.common.vec_env import VecEnv

from pderepro.models.smarl import (
    N_FEATURES,
    OBS_CLIP,
    action_to_cs,
    agent_observations,
    coefficient_field,
)
from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.solvers.turbulence.les import BLOWUP_FACTOR, LesStepper
from pderepro.solvers.turbulence.les_closures import Smagorinsky
from pderepro.training.smarl_episodes import REWARD_FLOOR, Reward, blowup_penalty

__all__ = ["AgentsVecEnv", "LesAgentsEnv"]


def _whole_multiple(value: float, unit: float, what: str) -> int:
    ratio = value / unit
    count = round(ratio)
    if count < 1 or abs(ratio - count) > 1e-9 * ratio:
        raise ValueError(f"{what} must be a positive whole multiple of {unit}, got {value}")
    return count


class LesAgentsEnv(gymnasium.Env):
    """``batch`` LES driven by ``agents_per_side^2`` Smagorinsky agents each, each LES with its
    own episode.

    Observations ``(batch, n_agents, 3)`` float32 (:func:`~pderepro.models.smarl.
    agent_observations`); actions ``(batch, n_agents)`` in ``[-1, 1]`` mapped to ``C_s`` in
    ``[0, cs_max]`` and interpolated to the grid. ``step`` returns the rewards, ``terminated``
    and ``truncated`` as ``(batch,)`` arrays, one per LES (a batched multi-agent environment;
    gymnasium's checker warns about the non-scalar values). An episode starts an LES from a
    reference snapshot of ``starts`` drawn at random (with the environment's rng) and lasts
    ``episode_time``; the AB2 history is kept within it. An LES that blows up (non-finite, or
    ``max |w| > blowup_threshold`` at the end of an interval) gets
    :func:`~pderepro.training.smarl_episodes.blowup_penalty` and is ``terminated``; one that
    reaches ``episode_time`` is ``truncated``. An ended LES waits for
    ``reset(options={"reset_mask": mask})``, which restarts the members ``mask`` from new
    snapshots (``reset()`` restarts all); ``step`` refuses to run before.

    Parameters
    ----------
    problem : NavierStokesProblem
        The LES problem (grid ``resolution``, ``time_step``, forcing...); ``t_final`` and
        ``record_interval`` are ignored.
    starts : numpy.ndarray
        ``(n_starts, n, n)`` filtered-DNS vorticity (1/time): the reference snapshots episodes
        start from.
    reward : callable
        ``reward(w) -> (batch',)`` for fields ``w`` (batch', n, n) float64 (only the LES that
        did not blow up); higher is better. Values below ``reward_floor`` (and NaN) become
        ``reward_floor``.
    agents_per_side : int
        Agents per side ``a`` (divides ``n``).
    cs_max : float
        ``C_s`` of the action ``+1``.
    scales : sequence of float
        ``(3,)`` observation scales (:func:`~pderepro.models.smarl.observation_scales`).
    action_interval : float
        Time between actions (time units), a whole number of ``problem.time_step``.
    episode_time : float
        Episode length (time units), a whole number of action intervals.
    batch : int
        Independent LES.
    blowup_threshold : float, optional
        Vorticity bound (1/time); default ``BLOWUP_FACTOR * max |starts|``.
    gamma : float
        The learner's discount per action interval, for :func:`blowup_penalty`.
    reward_floor : float
        Lowest reward per interval (:data:`~pderepro.training.smarl_episodes.REWARD_FLOOR`).
    seed : int, optional
        Seed of the rng that draws the starts (``reset(seed=...)`` reseeds it).

    Attributes
    ----------
    blowup_reward : float
        ``blowup_penalty(gamma, reward_floor)``.
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(
        self, problem: NavierStokesProblem, starts: np.ndarray, reward: Reward, *,
        agents_per_side: int, cs_max: float, scales: Sequence[float], action_interval: float,
        episode_time: float, batch: int = 1, blowup_threshold: float | None = None,
        gamma: float = 0.95, reward_floor: float = REWARD_FLOOR, seed: int | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        n = problem.resolution
        starts = np.asarray(starts, dtype=np.float64)
        if starts.ndim != 3 or starts.shape[1:] != (n, n) or len(starts) == 0:
            raise ValueError(f"starts must have shape (n_starts, {n}, {n}), got {starts.shape}")
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        self.problem, self.starts, self.reward_fn = problem, starts, reward
        self.agents_per_side, self.cs_max, self.batch = int(agents_per_side), float(cs_max), batch
        self.n_agents = self.agents_per_side**2
        self.scales = np.asarray(scales, dtype=np.float64)
        self.steps_per_action = _whole_multiple(
            action_interval, problem.time_step, "action_interval"
        )
        self.n_actions = _whole_multiple(episode_time, action_interval, "episode_time")
        if blowup_threshold is None:
            blowup_threshold = BLOWUP_FACTOR * float(np.abs(starts).max()) or math.inf
        self.blowup_threshold = float(blowup_threshold)
        self.reward_floor = float(reward_floor)
        self.blowup_reward = blowup_penalty(gamma, self.reward_floor)
        agent_observations(starts[:1], problem.box_size, self.agents_per_side, self.scales)
        self.observation_space = spaces.Box(
            -OBS_CLIP, OBS_CLIP, (batch, self.n_agents, N_FEATURES), dtype=np.float32
        )
        self.action_space = spaces.Box(-1.0, 1.0, (batch, self.n_agents), dtype=np.float32)
        self.closure = Smagorinsky(coefficient=0.0)
        self.stepper = LesStepper(problem, self.closure, device="cpu", dtype=torch.float64)
        self._np_random, _ = seeding.np_random(seed)
        self._w_hat: torch.Tensor | None = None  # (batch, n, n // 2 + 1) after a reset
        self._t = np.zeros(batch, dtype=np.int64)  # actions into each LES's episode
        self._ended = np.ones(batch, dtype=bool)  # episodes ended and not yet restarted

    def _observe(self, w: torch.Tensor) -> np.ndarray:
        obs = agent_observations(w, self.problem.box_size, self.agents_per_side, self.scales)
        # a blown-up LES has NaN invariants: show 0 ("as the reference"); its episode ends
        return np.nan_to_num(obs.numpy(), nan=0.0).astype(np.float32)  # (batch, n_agents, 3)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes from snapshots drawn from ``starts``: of every LES, or of those in
        ``options["reset_mask"]`` ((batch,) bool), the others going on unchanged.

        Returns the observations of all LES and ``info["start_index"]`` ((batch,) int, the
        snapshot of each restarted LES, -1 for the others).
        """
        super().reset(seed=seed)
        mask = (options or {}).get("reset_mask")
        mask = np.ones(self.batch, bool) if mask is None else np.asarray(mask, bool)
        if mask.shape != (self.batch,):
            raise ValueError(f"reset_mask must have shape ({self.batch},), got {mask.shape}")
        index = np.full(self.batch, -1)
        index[mask] = self.np_random.integers(len(self.starts), size=int(mask.sum()))
        fresh = torch.fft.rfft2(torch.as_tensor(self.starts[index[mask]]))  # (restarted, n, kc)
        if self._w_hat is None or mask.all():
            self._w_hat = torch.empty((self.batch, *fresh.shape[1:]), dtype=fresh.dtype)
            self.stepper.reset()
        elif mask.any():
            self.stepper.restart(mask)
        self._w_hat[torch.as_tensor(mask)] = fresh
        self._t[mask] = 0
        self._ended[mask] = False
        w = torch.fft.irfft2(self._w_hat, s=(self.problem.resolution,) * 2)  # (batch, n, n)
        return self._observe(w), {"start_index": index}

    def step(
        self, action: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply the agents' actions for one action interval.

        Returns
        -------
        obs : numpy.ndarray
            ``(batch, n_agents, 3)`` float32 (an ended LES's final observation).
        reward : numpy.ndarray
            ``(batch,)`` float64 in ``[reward_floor, inf)``, ``blowup_reward`` for an LES that
            blew up.
        terminated, truncated : numpy.ndarray
            ``(batch,)`` bool: blown up; reached the episode time (and did not blow up).
        info : dict
            ``mean_cs`` and ``mean_reward`` (floats), ``cs`` (batch, n_agents) and
            ``blown_up`` (batch,) bool.
        """
        if self._w_hat is None or self._ended.any():
            raise RuntimeError("call reset() before step() (and reset the LES that ended)")
        action = np.asarray(action, dtype=np.float64).reshape(self.batch, self.n_agents)
        n = self.problem.resolution
        cs = torch.as_tensor(action_to_cs(action, self.cs_max))  # (batch, n_agents)
        self.closure.coefficient = coefficient_field(cs, n)  # (batch, n, n)
        with torch.no_grad():
            for _ in range(self.steps_per_action):
                self.stepper.step_(self._w_hat)
            w = torch.fft.irfft2(self._w_hat, s=(n, n))  # (batch, n, n)
        peak = w.abs().amax(dim=(1, 2)).numpy()
        blown = ~np.isfinite(peak) | (peak > self.blowup_threshold)
        reward = np.full(self.batch, self.blowup_reward)
        if not blown.all():
            values = np.asarray(self.reward_fn(w[~blown].numpy()), dtype=np.float64).reshape(-1)
            values = np.nan_to_num(values, nan=self.reward_floor)
            reward[~blown] = np.maximum(values, self.reward_floor)
        self._t += 1
        terminated = blown
        truncated = ~blown & (self._t >= self.n_actions)
        self._ended = terminated | truncated
        info = {
            "mean_cs": float(cs.mean()), "mean_reward": float(reward.mean()),
            "cs": cs.numpy(), "blown_up": blown,
        }  # fmt: skip
        return self._observe(w), reward, terminated, truncated, info


class AgentsVecEnv(VecEnv):
    """Every agent of every LES of a :class:`LesAgentsEnv` as one stable-baselines3 sub-env.

    ``num_envs = batch * n_agents`` (LES-major); observations ``(3,)``, actions ``(1,)``. Every
    agent of an LES gets that LES's reward and shares its episode. An LES whose episode ends is
    restarted in the same step (``reset(options={"reset_mask": ...})``, the others go on); its
    agents' ``infos[i]`` then carry ``terminal_observation``, ``TimeLimit.truncated`` (true for
    a time limit, false for a blow-up: sb3's PPO adds ``gamma V(terminal_observation)`` to the
    reward of truncated transitions only) and the Monitor-style ``episode`` (``r``: return,
    ``l``: length).

    Attributes
    ----------
    episodes : list of dict
        One entry per step at which LES episodes ended, averaged over those LES:
        ``timesteps`` (agent transitions so far), ``episode_reward`` (mean over an episode's
        intervals of its LES's reward), ``mean_cs`` (same mean of the agents' ``C_s``),
        ``length`` (actions), ``episodes`` (LES episodes that ended) and ``blowups`` (those of
        them that blew up).
    """

    def __init__(self, env: LesAgentsEnv) -> None:
        self.env = env
        self.render_mode = None
        observation = spaces.Box(-OBS_CLIP, OBS_CLIP, (N_FEATURES,), dtype=np.float32)
        action = spaces.Box(-1.0, 1.0, (1,), dtype=np.float32)
        super().__init__(env.batch * env.n_agents, observation, action)
        self.episodes: list[dict[str, Any]] = []
        self.timesteps = 0
        self._actions: np.ndarray | None = None
        self._reward_sum = np.zeros(env.batch)  # per LES, over its current episode
        self._cs_sum = np.zeros(env.batch)
        self._length = np.zeros(env.batch, dtype=np.int64)

    def _new_episodes(self, mask: np.ndarray) -> None:
        """Zero the running sums of the LES ``mask`` (batch,) bool."""
        for array in (self._reward_sum, self._cs_sum, self._length):
            array[mask] = 0

    def _flat(self, obs: np.ndarray) -> np.ndarray:
        return obs.reshape(self.num_envs, N_FEATURES)

    def reset(self) -> np.ndarray:
        obs, info = self.env.reset(seed=self._seeds[0], options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [dict(info) for _ in range(self.num_envs)]
        self._new_episodes(np.ones(self.env.batch, bool))
        return self._flat(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.env.batch, self.env.n_agents)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, reward, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        self.timesteps += self.num_envs
        per_agent = self.env.n_agents
        rewards = np.repeat(reward, per_agent).astype(np.float32)  # (num_envs,)
        self._reward_sum += reward
        self._cs_sum += info["cs"].mean(axis=1)
        self._length += 1
        ended = terminated | truncated  # (batch,)
        dones = np.repeat(ended, per_agent)  # (num_envs,)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        flat = self._flat(obs)
        if ended.any():
            length = self._length[ended]
            self.episodes.append({
                "timesteps": self.timesteps,
                "episode_reward": float(np.mean(self._reward_sum[ended] / length)),
                "mean_cs": float(np.mean(self._cs_sum[ended] / length)),
                "length": float(length.mean()), "episodes": int(ended.sum()),
                "blowups": int(terminated.sum()),
            })  # fmt: skip
            for i in np.flatnonzero(dones):
                les = i // per_agent
                infos[i]["terminal_observation"] = flat[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(truncated[les])
                infos[i]["episode"] = {
                    "r": float(self._reward_sum[les]), "l": int(self._length[les])
                }  # fmt: skip
            obs, _ = self.env.reset(options={"reset_mask": ended})
            flat = self._flat(obs)
            self._new_episodes(ended)
        return flat, rewards, dones, infos

    def close(self) -> None:
        self.env.close()

    def _count(self, indices) -> int:
        if indices is None:
            return self.num_envs
        return 1 if isinstance(indices, int) else len(list(indices))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.env, attr_name)] * self._count(indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)  # the sub-envs share one LesAgentsEnv

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)  # called once
        return [result] * self._count(indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [isinstance(self.env, wrapper_class)] * self._count(indices)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset; the sub-envs share one rng, so they get ``seed`` alike."""
        self._seeds = [seed] * self.num_envs
        return self._seeds
