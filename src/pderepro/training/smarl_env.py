"""The SMARL environment (:mod:`pderepro.models.smarl`): LES of 2-D turbulence whose agents set
local Smagorinsky coefficients.

:class:`LesAgentsEnv` runs ``batch`` independent LES on the LES grid
(:class:`~pderepro.solvers.les.LesStepper`) with a per-point Smagorinsky closure whose
coefficient field comes from the agents' actions. One environment step is one action interval:
all agents of all LES act, the LES advance ``action_interval / time_step`` steps with the
coefficients held, and each LES gets one reward, ``reward(w)`` of its new field (injected by the
caller, e.g. minus the log error of its enstrophy spectrum against the DNS one; higher is
better). :class:`AgentsVecEnv` shows every agent of every LES to stable-baselines3 as a
sub-environment sharing its LES's reward (cooperative agents, one shared policy); PPO on it is
:func:`pderepro.training.smarl.train_smarl`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
from pderepro.solvers.les import BLOWUP_FACTOR, LesStepper
from pderepro.solvers.les_closures import Smagorinsky
from pderepro.solvers.navier_stokes_problem import NavierStokesProblem

__all__ = ["BLOWUP_REWARD", "AgentsVecEnv", "LesAgentsEnv", "Reward"]

#: Reward of an LES that blows up in an interval (it ends the episode). Spectrum rewards of a
#: sane LES (minus a log-spectrum error) are of order -1 to 0, so this is a clear penalty.
BLOWUP_REWARD = -10.0

Reward = Callable[[np.ndarray], np.ndarray]


def _whole_multiple(value: float, unit: float, what: str) -> int:
    ratio = value / unit
    count = round(ratio)
    if count < 1 or abs(ratio - count) > 1e-9 * ratio:
        raise ValueError(f"{what} must be a positive whole multiple of {unit}, got {value}")
    return count


class LesAgentsEnv(gymnasium.Env):
    """``batch`` LES driven by ``agents_per_side^2`` Smagorinsky agents each (one episode each).

    Observations ``(batch, n_agents, 3)`` float32 (:func:`~pderepro.models.smarl.
    agent_observations`); actions ``(batch, n_agents)`` in ``[-1, 1]`` mapped to ``C_s`` in
    ``[0, cs_max]`` and interpolated to the grid. ``step`` returns the rewards as a ``(batch,)``
    array (one per LES, a batched multi-agent environment; gymnasium's checker warns about the
    non-scalar reward). An episode starts each LES from a start field drawn at random (with the
    environment's rng) and lasts ``episode_time``; the AB2 history is kept within it and reset
    between episodes. An LES that blows up (non-finite, or ``max |w| > blowup_threshold`` at
    the end of an interval) gets :data:`BLOWUP_REWARD` and ends the episode of the whole batch
    (``terminated``); otherwise it is ``truncated`` at ``episode_time``.

    Parameters
    ----------
    problem : NavierStokesProblem
        The LES problem (grid ``resolution``, ``time_step``, forcing...); ``t_final`` and
        ``record_interval`` are ignored.
    starts : numpy.ndarray
        ``(n_starts, n, n)`` filtered-DNS vorticity (1/time) to start episodes from.
    reward : callable
        ``reward(w) -> (batch,)`` for fields ``w`` (batch', n, n) float64 (only the LES that
        did not blow up); higher is better.
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
        Independent LES per episode.
    blowup_threshold : float, optional
        Vorticity bound (1/time); default ``BLOWUP_FACTOR * max |starts|``.
    seed : int, optional
        Seed of the rng that draws the starts (``reset(seed=...)`` reseeds it).
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(
        self, problem: NavierStokesProblem, starts: np.ndarray, reward: Reward, *,
        agents_per_side: int, cs_max: float, scales: Sequence[float], action_interval: float,
        episode_time: float, batch: int = 1, blowup_threshold: float | None = None,
        seed: int | None = None,
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
        agent_observations(starts[:1], problem.box_size, self.agents_per_side, self.scales)
        self.observation_space = spaces.Box(
            -OBS_CLIP, OBS_CLIP, (batch, self.n_agents, N_FEATURES), dtype=np.float32
        )
        self.action_space = spaces.Box(-1.0, 1.0, (batch, self.n_agents), dtype=np.float32)
        self.closure = Smagorinsky(coefficient=0.0)
        self.stepper = LesStepper(problem, self.closure, device="cpu", dtype=torch.float64)
        self._np_random, _ = seeding.np_random(seed)
        self._w_hat: torch.Tensor | None = None  # (batch, n, n // 2 + 1) during an episode
        self._t = 0

    def _observe(self, w: torch.Tensor) -> np.ndarray:
        obs = agent_observations(w, self.problem.box_size, self.agents_per_side, self.scales)
        # a blown-up LES has NaN invariants: show 0 ("as the reference"); the episode ends
        return np.nan_to_num(obs.numpy(), nan=0.0).astype(np.float32)  # (batch, n_agents, 3)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode: draw ``batch`` starts and restart the LES stepper."""
        super().reset(seed=seed)
        index = self.np_random.integers(len(self.starts), size=self.batch)
        w = torch.as_tensor(self.starts[index])  # (batch, n, n)
        self._w_hat = torch.fft.rfft2(w)
        self.stepper.reset()
        self._t = 0
        return self._observe(w), {"start_index": index}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool, bool, dict[str, Any]]:
        """Apply the agents' actions for one action interval.

        Returns
        -------
        obs : numpy.ndarray
            ``(batch, n_agents, 3)`` float32.
        reward : numpy.ndarray
            ``(batch,)`` float64, :data:`BLOWUP_REWARD` for an LES that blew up.
        terminated, truncated : bool
            Blow-up of any LES; end of the episode time.
        info : dict
            ``mean_cs`` and ``mean_reward`` (floats), ``cs`` (batch, n_agents) and
            ``blown_up`` (batch,) bool.
        """
        if self._w_hat is None:
            raise RuntimeError("call reset() before step() (and after an episode ends)")
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
        reward = np.full(self.batch, BLOWUP_REWARD)
        if not blown.all():
            values = np.asarray(self.reward_fn(w[~blown].numpy()), dtype=np.float64)
            reward[~blown] = values.reshape(-1)
        self._t += 1
        terminated = bool(blown.any())
        truncated = not terminated and self._t >= self.n_actions
        obs = self._observe(w)
        if terminated or truncated:
            self._w_hat = None
        info = {
            "mean_cs": float(cs.mean()), "mean_reward": float(reward.mean()),
            "cs": cs.numpy(), "blown_up": blown,
        }  # fmt: skip
        return obs, reward, terminated, truncated, info


class AgentsVecEnv(VecEnv):
    """Every agent of every LES of a :class:`LesAgentsEnv` as one stable-baselines3 sub-env.

    ``num_envs = batch * n_agents`` (LES-major); observations ``(3,)``, actions ``(1,)``. Every
    agent of an LES gets that LES's reward. All sub-envs finish together (the batch shares an
    episode) and are reset automatically; ``infos[i]`` then carries ``terminal_observation``,
    ``TimeLimit.truncated`` and the Monitor-style ``episode`` (``r``: return, ``l``: length).

    Attributes
    ----------
    episodes : list of dict
        One entry per finished episode: ``timesteps`` (agent transitions so far),
        ``episode_reward`` (mean over the episode's intervals of the batch-mean reward),
        ``mean_cs`` (same mean of the agents' ``C_s``), ``length`` and ``terminated``.
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
        self._new_episode()

    def _new_episode(self) -> None:
        self._rewards: list[float] = []
        self._cs: list[float] = []
        self._returns = np.zeros(self.num_envs)

    def _flat(self, obs: np.ndarray) -> np.ndarray:
        return obs.reshape(self.num_envs, N_FEATURES)

    def reset(self) -> np.ndarray:
        obs, info = self.env.reset(seed=self._seeds[0], options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [dict(info) for _ in range(self.num_envs)]
        self._new_episode()
        return self._flat(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.env.batch, self.env.n_agents)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, reward, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        self.timesteps += self.num_envs
        rewards = np.repeat(reward, self.env.n_agents).astype(np.float32)  # (num_envs,)
        self._returns += rewards
        self._rewards.append(info["mean_reward"])
        self._cs.append(info["mean_cs"])
        done = terminated or truncated
        dones = np.full(self.num_envs, done)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        flat = self._flat(obs)
        if done:
            length = len(self._rewards)
            self.episodes.append({
                "timesteps": self.timesteps, "episode_reward": float(np.mean(self._rewards)),
                "mean_cs": float(np.mean(self._cs)), "length": length, "terminated": terminated,
            })  # fmt: skip
            for i, item in enumerate(infos):
                item["terminal_observation"] = flat[i]
                item["TimeLimit.truncated"] = truncated and not terminated
                item["episode"] = {"r": float(self._returns[i]), "l": length}
            flat = self.reset()
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
