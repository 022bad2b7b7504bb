"""Tiny forced 2-D LES (16 x 16 grid, 2 pi box) and a SMARL environment on it, shared by the
SMARL closure tests and the SMARL environment tests."""

from __future__ import annotations

import math

import numpy as np

from pderepro.models.smarl import observation_scales
from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.training.smarl_env import LesAgentsEnv

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


def make_env(starts=None, *, batch=1, episode_time=0.15, action_interval=0.05, **kwargs):
    starts = smooth_fields(3) if starts is None else starts
    return LesAgentsEnv(
        problem(), starts, enstrophy_reward, agents_per_side=4, cs_max=0.5,
        scales=observation_scales(smooth_fields(3), L), action_interval=action_interval,
        episode_time=episode_time, batch=batch, seed=0, **kwargs,
    )  # fmt: skip
