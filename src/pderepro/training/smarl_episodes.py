"""How an LES's episode in the SMARL environment ends (:mod:`pderepro.training.smarl_env`).

An LES that blows up is terminated with :func:`blowup_penalty`, derived from the learner's
discount and the reward floor :data:`REWARD_FLOOR` (the environment clips rewards to it) so that
blowing up is never better than surviving. (Restarting ended LES one by one while the others
keep their AB2 history is the stepper's own
:meth:`~pderepro.solvers.navier_stokes.navier_stokes.NavierStokesStepper.restart`.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["REWARD_FLOOR", "Reward", "blowup_penalty"]

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
