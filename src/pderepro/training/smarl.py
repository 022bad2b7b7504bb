"""Training of the SMARL closure (:mod:`pderepro.models.smarl`) by PPO on LES of 2-D turbulence.

:func:`train_smarl` runs stable-baselines3's PPO on the agents of
:class:`~pderepro.training.smarl_env.LesAgentsEnv` (through
:class:`~pderepro.training.smarl_env.AgentsVecEnv`) and exports the deterministic actor.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from torch import nn

from pderepro.models.smarl import SmarlPolicy
from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.training.smarl_env import AgentsVecEnv, LesAgentsEnv
from pderepro.training.smarl_episodes import Reward

logger = logging.getLogger(__name__)

__all__ = ["CURVE_COLUMNS", "train_smarl"]

#: Columns of the training curve returned by :func:`train_smarl`.
CURVE_COLUMNS = ("timesteps", "episode_reward", "mean_cs", "blowups")


def _minibatch_size(rollout: int) -> int:
    """Up to 8 minibatches of at least 32 transitions (or the whole rollout), dividing it."""
    fits = [d for d in range(1, 9) if rollout % d == 0 and rollout // d >= min(32, rollout)]
    return rollout // max(fits)


class _Progress(BaseCallback):
    """Logs one line per ~10% of the training (timesteps, episode reward, mean C_s)."""

    def __init__(self, venv: AgentsVecEnv, total: int, enabled: bool) -> None:
        super().__init__(verbose=0)
        self.venv, self.total, self.enabled = venv, total, enabled
        self._next = 0.1 * total

    def _on_step(self) -> bool:
        if self.venv.episodes and self.num_timesteps >= self._next:
            last = self.venv.episodes[-1]
            level = logging.INFO if self.enabled else logging.DEBUG
            logger.log(
                level, "SMARL PPO: %d/%d timesteps, episode reward %.4g, mean C_s %.4f",
                self.num_timesteps, self.total, last["episode_reward"], last["mean_cs"],
            )  # fmt: skip
            while self._next <= self.num_timesteps:
                self._next += 0.1 * self.total
        return True


def train_smarl(
    *, problem: NavierStokesProblem, starts: np.ndarray, reward: Reward, scales: Sequence[float],
    agents_per_side: int, cs_max: float, action_interval: float, episode_time: float,
    timesteps: int, batch: int = 1, seed: int = 0, hidden: Sequence[int] = (64, 64),
    blowup_threshold: float | None = None, learning_rate: float = 3e-4, n_epochs: int = 10,
    gamma: float = 0.95, action_std: float = 1.0, progress: bool = True,
) -> tuple[SmarlPolicy, pd.DataFrame]:  # fmt: skip
    """Train the SMARL closure by PPO (stable-baselines3) on :class:`LesAgentsEnv`.

    One PPO rollout is ``n_actions`` steps of every LES (one episode when none blows up, so a
    rollout holds ``n_actions * batch * n_agents`` agent transitions), split into up to 8
    minibatches; the actor and critic are separate Tanh MLPs of widths ``hidden``. An LES that
    blows up ends alone with :func:`~pderepro.training.smarl_episodes.blowup_penalty` of ``gamma``
    (terminal: no bootstrap) and restarts from a snapshot; the time limit is a truncation, from
    which sb3's GAE bootstraps with ``gamma V(final observation)`` (the ``TimeLimit.truncated``
    info of :class:`AgentsVecEnv`). Training runs on the CPU, seeded by ``seed`` (sb3, the
    environment's rng, torch).

    Parameters
    ----------
    problem, starts, reward, scales, agents_per_side, cs_max, action_interval, episode_time,
    batch, blowup_threshold
        The environment (:class:`LesAgentsEnv`).
    timesteps : int
        Agent transitions to train for (rounded up to whole rollouts, at least one).
    seed : int
        Seed of everything random.
    hidden : sequence of int
        Hidden widths of the actor and of the critic.
    learning_rate, n_epochs, gamma
        PPO's Adam step, epochs per rollout and discount per action interval (which also sets
        the blow-up penalty).
    action_std : float
        Initial standard deviation of the Gaussian actions (action units: [-1, 1] maps to
        ``[0, cs_max]``); sb3's default is 1, which clips a large share of the samples.
    progress : bool
        Log one INFO line per ~10% of training (DEBUG otherwise).

    Returns
    -------
    (SmarlPolicy, pandas.DataFrame)
        The deterministic actor, and the training curve: one row per environment step at which
        LES episodes ended (all of them at once while none blows up), columns ``timesteps``
        (agent transitions), ``episode_reward`` (mean over those episodes of their mean reward
        per interval), ``mean_cs`` (same mean of the agents' ``C_s``, as sampled in training)
        and ``blowups`` (how many of those episodes ended in a blow-up).
    """
    torch.manual_seed(seed)
    env = LesAgentsEnv(
        problem, starts, reward, agents_per_side=agents_per_side, cs_max=cs_max, scales=scales,
        action_interval=action_interval, episode_time=episode_time, batch=batch,
        blowup_threshold=blowup_threshold, gamma=gamma, seed=seed,
    )  # fmt: skip
    venv = AgentsVecEnv(env)
    rollout = env.n_actions * venv.num_envs
    hidden = [int(h) for h in hidden]
    model = PPO(
        "MlpPolicy", venv, learning_rate=learning_rate, n_steps=env.n_actions,
        batch_size=_minibatch_size(rollout), n_epochs=n_epochs, gamma=gamma,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": nn.Tanh,
                       "log_std_init": math.log(action_std)},
        seed=seed, device="cpu", verbose=0,
    )  # fmt: skip
    logger.info(
        "SMARL PPO: %d agents x %d LES on %d^2, %d actions per episode (%d steps each), "
        "rollout %d transitions, minibatch %d, %d timesteps",
        env.n_agents, batch, problem.resolution, env.n_actions, env.steps_per_action, rollout,
        model.batch_size, timesteps,
    )  # fmt: skip
    model.learn(total_timesteps=int(timesteps), callback=_Progress(venv, int(timesteps), progress))
    policy = SmarlPolicy.from_sb3(model.policy, hidden)
    curve = pd.DataFrame(
        [{k: e[k] for k in CURVE_COLUMNS} for e in venv.episodes], columns=list(CURVE_COLUMNS)
    )
    venv.close()
    return policy, curve
