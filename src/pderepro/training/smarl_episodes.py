"""How an LES's episode in the SMARL environment ends and restarts
(:mod:`pderepro.training.smarl_env`).

An LES that blows up is terminated with :func:`blowup_penalty`, derived from the learner's
discount and the reward floor :data:`REWARD_FLOOR` (the environment clips rewards to it) so that
blowing up is never better than surviving; :class:`RestartableLesStepper` lets the environment
restart ended LES of a batch one by one while the others keep their AB2 history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from pderepro.solvers.les import LesStepper

__all__ = ["REWARD_FLOOR", "Reward", "RestartableLesStepper", "blowup_penalty"]

#: Lowest per-step reward (the rewards are clipped to it). The spectrum reward, minus the mean
#: over shells of ``|ln(E / E_ref)|``, is unbounded below (``-inf`` for an empty shell); -10
#: means a spectrum off by a factor ``e^10 = 2.2e4`` on average, far below a sane LES's (quick:
#: about -0.25), so the clip only bounds the penalty's derivation.
REWARD_FLOOR = -10.0

#: ``reward(w) -> (batch',)`` of LES fields ``w`` (batch', n, n); higher is better.
Reward = Callable[[np.ndarray], np.ndarray]


def blowup_penalty(gamma: float, reward_floor: float = REWARD_FLOOR) -> float:
    """Reward of the interval in which an LES blows up: never better than surviving.

    A blown-up LES is terminated (value 0 afterwards). Had it survived the interval, it would
    have got at least ``reward_floor`` now and, from then on, at least ``reward_floor`` per
    interval discounted by ``gamma``. Within an episode of ``H`` actions that is at least
    ``r_min (1 - gamma^k) / (1 - gamma) >= r_min / (1 - gamma)`` for the ``k <= H`` intervals
    left (``r_min < 0``), and since a time limit is a truncation the learner adds
    ``gamma^k V(s_H)``, itself at least ``gamma^k r_min / (1 - gamma)``: the worst value of
    surviving is exactly ``r_min / (1 - gamma)`` whatever the step and ``H`` (the episode
    length drops out because truncation bootstraps). The penalty is that bound plus one more
    worst interval, ``r_min (2 - gamma) / (1 - gamma)``, so blowing up is worse than the worst
    survival by at least ``|r_min|``.

    Parameters
    ----------
    gamma : float
        Discount per action interval, ``0 <= gamma < 1``.
    reward_floor : float
        Lowest per-interval reward ``r_min < 0`` (the environment clips rewards to it).

    Returns
    -------
    float
        The penalty (reward units); -210 at ``gamma = 0.95``, ``r_min = -10``.
    """
    if not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma must lie in [0, 1), got {gamma}")
    if not reward_floor < 0.0:
        raise ValueError(f"reward_floor must be negative, got {reward_floor}")
    return reward_floor / (1.0 - gamma) + reward_floor


class RestartableLesStepper(LesStepper):
    """:class:`LesStepper` whose batch members can restart one by one.

    :meth:`restart` marks members whose state the caller has replaced; the next step starts them
    as a fresh trajectory does (Euler start: the previous advection term taken equal to the
    current one), leaving the AB2 history of the others as it is. It relies on the parent's
    history layout (``_history = (k_new, k_old)`` while stepping); the environment's tests check
    that a restarted member follows a fresh LES exactly.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._restart: np.ndarray | None = None  # (batch,) bool, until the next step

    def reset(self) -> None:
        super().reset()
        self._restart = None

    def restart(self, mask: np.ndarray) -> None:
        """Start the members ``mask`` (batch,) bool afresh at the next step."""
        if self._history is None:
            return  # not started: every member gets the Euler start anyway
        self._restart = mask.copy() if self._restart is None else self._restart | mask

    def _advection(
        self, w_hat: torch.Tensor, k_new: torch.Tensor, *, forcing: bool = True
    ) -> torch.Tensor:
        super()._advection(w_hat, k_new, forcing=forcing)
        if self._restart is not None and forcing and self._history is not None:
            # called by step_ on the whole batch (LesStepper has one chunk): K^{n-1} <- K^n
            index = torch.as_tensor(np.flatnonzero(self._restart))
            self._history[1][index] = k_new[index]
            self._restart = None
        return k_new
