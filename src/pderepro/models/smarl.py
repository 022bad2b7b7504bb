"""SMARL: a multi-agent reinforcement-learning Smagorinsky closure for 2-D LES.

Agents sit at the centres of the ``a x a`` square patches (side ``p = n / a`` grid points) of
the ``n x n`` LES grid (:func:`agent_points`). Every action interval each agent observes three
local resolved invariants of its patch (:func:`agent_observations`) and sets a local
Smagorinsky coefficient ``C_s`` (:func:`action_to_cs`); one policy (:class:`SmarlPolicy`) is
shared by all agents, so the closure is local and the same everywhere. The agents' ``C_s`` are
interpolated bilinearly and periodically to the whole grid (:func:`coefficient_field`) and the
subgrid term is the Smagorinsky one with that per-point coefficient,
``Pi = -div((C_s Delta)^2 |S| grad w)``
(:class:`~pderepro.solvers.turbulence.les_closures.Smagorinsky`). :class:`SmarlClosure` is the
trained closure in the protocol of :mod:`pderepro.solvers.turbulence.les_closures`; the environment
and the PPO training are in :mod:`pderepro.training.smarl_env` and :mod:`pderepro.training.smarl`.

Observations are the patch means of ``w^2`` (1/time^2), ``|grad w|^2`` (1/(length^2 time^2))
and ``|S|^2`` (1/time^2), each divided by its domain mean over a reference set of fields
(:func:`observation_scales`, the filtered DNS) and log-transformed. All three are invariant
under rotations and reflections of the flow (``w`` is a pseudo-scalar, so ``w^2`` is a scalar;
``|grad w|`` and the strain magnitude ``|S| = sqrt(2 S_ij S_ij)`` are norms of a vector and a
tensor), so the policy acts the same on a rotated flow: on the grid, a rotation by 90 degrees
permutes the patches and leaves the set of observations unchanged. On the periodic domain
``<|S|^2> = <w^2>`` (Parseval), so the two scales coincide, but locally the invariants differ:
strain- against vorticity-dominated regions (the Okubo-Weiss distinction).

Fields follow the solvers' layout ``w[..., i, j] = w(x_i, y_j)``; agents are ordered row-major
over (x patch, y patch), agent ``k = a * I + J`` sits at ``(x_{c_I}, y_{c_J})``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.solvers.turbulence.les_closures import Smagorinsky, resolved_gradients

logger = logging.getLogger(__name__)

__all__ = [
    "N_FEATURES",
    "SmarlClosure",
    "SmarlPolicy",
    "action_to_cs",
    "agent_observations",
    "agent_points",
    "coefficient_field",
    "observation_scales",
]

#: Observed invariants per agent: ``w^2``, ``|grad w|^2``, ``|S|^2`` (normalised, log).
N_FEATURES = 3
#: Bounds of the log-normalised observations.
OBS_CLIP = 10.0
#: Smallest normalised invariant before the log.
_RATIO_FLOOR = 1e-6


def _patch_side(n: int, agents_per_side: int) -> int:
    if agents_per_side < 1 or n % agents_per_side:
        raise ValueError(
            f"agents_per_side={agents_per_side} must be >= 1 and divide the grid size n={n}"
        )
    return n // agents_per_side


def _patch_centres(n: int, agents_per_side: int) -> np.ndarray:
    p = _patch_side(n, agents_per_side)
    return p * np.arange(agents_per_side) + p // 2  # (a,)


def agent_points(n: int, agents_per_side: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid indices of the agents: the centres of the ``agents_per_side^2`` square patches.

    Parameters
    ----------
    n : int
        Grid points per side.
    agents_per_side : int
        Agents (patches) per side ``a``; must divide ``n``. Patch ``I`` spans the indices
        ``[I p, (I + 1) p)``, ``p = n / a``, with centre ``I p + p // 2``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``ix, iy`` of shape ``(a^2,)``, row-major over (x patch, y patch).

    Raises
    ------
    ValueError
        If ``agents_per_side`` does not divide ``n``.
    """
    centres = _patch_centres(n, agents_per_side)
    return np.repeat(centres, agents_per_side), np.tile(centres, agents_per_side)


def _invariants(w: Tensor, box_size: float) -> Tensor:
    """``w^2, |grad w|^2, |S|^2`` of ``w`` (batch, n, n) -> (3, batch, n, n)."""
    grad_w, strain = resolved_gradients(w, box_size)  # (2, batch, n, n), (batch, n, n)
    return torch.stack([w * w, (grad_w * grad_w).sum(dim=0), strain * strain])


def _as_field(w: Tensor | np.ndarray) -> Tensor:
    w = torch.as_tensor(w)
    if w.dtype != torch.float64:
        w = w.to(torch.float64)
    if w.ndim == 2:
        w = w.unsqueeze(0)
    if w.ndim != 3 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"fields must have shape (batch, n, n), got {tuple(w.shape)}")
    return w


def observation_scales(w: Tensor | np.ndarray, box_size: float) -> np.ndarray:
    """Normalising scales of the observations: domain means over a reference set of fields.

    Parameters
    ----------
    w : torch.Tensor or numpy.ndarray
        Reference resolved vorticity (1/time), ``(batch, n, n)`` (the filtered DNS on the LES
        grid).
    box_size : float
        Box side ``L`` (length).

    Returns
    -------
    numpy.ndarray
        ``(3,)``: means of ``w^2`` (1/time^2), ``|grad w|^2`` (1/(length^2 time^2)) and
        ``|S|^2`` (1/time^2), all positive for a non-zero reference.
    """
    with torch.no_grad():
        invariants = _invariants(_as_field(w), box_size)  # (3, batch, n, n)
        return invariants.mean(dim=(1, 2, 3)).cpu().numpy()


def agent_observations(
    w: Tensor | np.ndarray, box_size: float, agents_per_side: int, scales: Sequence[float]
) -> Tensor:
    """Observations of the agents: log-normalised patch means of the local invariants.

    For agent ``k`` with patch ``P_k``: ``log(clip(mean_{P_k}(q) / scale_q, 1e-6))`` clipped to
    ``[-10, 10]`` for ``q = w^2, |grad w|^2, |S|^2``; all three are rotation-invariant (module
    docstring), and ``0`` means "as in the reference".

    Parameters
    ----------
    w : torch.Tensor or numpy.ndarray
        Resolved vorticity (1/time), ``(batch, n, n)``.
    box_size : float
        Box side ``L`` (length).
    agents_per_side : int
        Agents per side ``a`` (divides ``n``).
    scales : sequence of float
        ``(3,)`` from :func:`observation_scales`.

    Returns
    -------
    torch.Tensor
        ``(batch, a^2, 3)`` float32, on the device of ``w``.
    """
    w = _as_field(w)
    batch, n = w.shape[0], w.shape[-1]
    a = agents_per_side
    p = _patch_side(n, a)
    scale = torch.as_tensor(np.asarray(scales, dtype=np.float64), device=w.device)
    if scale.shape != (N_FEATURES,):
        raise ValueError(f"scales must have shape ({N_FEATURES},), got {tuple(scale.shape)}")
    with torch.no_grad():
        invariants = _invariants(w, box_size)  # (3, batch, n, n)
        patches = invariants.reshape(N_FEATURES, batch, a, p, a, p).mean(dim=(3, 5))
        # (3, batch, a, a) -> (batch, a^2, 3), row-major over (x patch, y patch)
        means = patches.reshape(N_FEATURES, batch, a * a).permute(1, 2, 0)
        ratio = (means / scale).clamp(min=_RATIO_FLOOR)
        return torch.log(ratio).clamp(-OBS_CLIP, OBS_CLIP).to(torch.float32)


def _periodic_lerp_weights(n: int, a: int, device: torch.device) -> tuple[Tensor, Tensor, Tensor]:
    """For each grid index: the agent index at or below it, the next one (periodic) and the
    fraction of the way, ``(n,)`` each."""
    p = n // a
    s = (torch.arange(n, dtype=torch.float64, device=device) - p // 2) / p  # agent units
    lower = torch.floor(s)
    frac = s - lower  # in [0, 1); 0 at the agent points
    i0 = lower.to(torch.long) % a
    return i0, (i0 + 1) % a, frac


def coefficient_field(cs: Tensor, n: int) -> Tensor:
    """Bilinear periodic interpolation of the agents' ``C_s`` to the whole grid.

    A smooth eddy-viscosity field: a piecewise-constant one would ring under the spectral
    derivatives of the closure. The interpolant is written as ``c_0 + f (c_1 - c_0)`` along each
    axis, so a constant is reproduced exactly and the field equals the agents' values at their
    points; its domain mean is the agents' mean.

    Parameters
    ----------
    cs : torch.Tensor
        ``(batch, a^2)`` coefficients of the agents, row-major over (x patch, y patch).
    n : int
        Grid points per side (``a`` divides ``n``).

    Returns
    -------
    torch.Tensor
        ``(batch, n, n)``, dtype and device of ``cs``.
    """
    cs = torch.as_tensor(cs)
    if cs.ndim != 2:
        raise ValueError(f"cs must have shape (batch, n_agents), got {tuple(cs.shape)}")
    a = round(cs.shape[1] ** 0.5)
    if a * a != cs.shape[1]:
        raise ValueError(f"the number of agents {cs.shape[1]} is not a square")
    _patch_side(n, a)
    grid = cs.reshape(cs.shape[0], a, a)  # (batch, a, a): [x patch, y patch]
    i0, i1, frac = _periodic_lerp_weights(n, a, cs.device)
    frac = frac.to(cs.dtype)
    lo, hi = grid[:, i0, :], grid[:, i1, :]  # (batch, n, a)
    along_x = lo + frac[:, None] * (hi - lo)  # (batch, n, a)
    lo, hi = along_x[:, :, i0], along_x[:, :, i1]  # (batch, n, n)
    return lo + frac * (hi - lo)


def action_to_cs(action: Tensor | np.ndarray, cs_max: float) -> Tensor | np.ndarray:
    """Map actions in ``[-1, 1]`` (clipped first) to ``C_s = (a + 1) / 2 * cs_max``.

    Works on tensors and arrays alike; ``C_s`` is in ``[0, cs_max]`` (dimensionless).
    """
    if isinstance(action, Tensor):
        return (action.clamp(-1.0, 1.0) + 1.0) * (0.5 * cs_max)
    return (np.clip(action, -1.0, 1.0) + 1.0) * (0.5 * cs_max)


class SmarlPolicy(nn.Module):
    """The deterministic actor shared by all agents: observations ``(..., 3)`` -> actions ``(...)``.

    An MLP ``3 -> hidden... -> 1`` with Tanh after each hidden layer (the architecture of a
    stable-baselines3 ``MlpPolicy`` actor: ``mlp_extractor.policy_net`` then ``action_net``);
    the output, the mean of PPO's Gaussian, is clamped to the action box ``[-1, 1]``.

    Parameters
    ----------
    hidden : sequence of int
        Hidden layer widths; empty for a linear policy.
    """

    def __init__(self, hidden: Sequence[int] = (64, 64)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        if any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden widths must be positive, got {self.hidden}")
        modules: list[nn.Module] = []
        width = N_FEATURES
        for h in self.hidden:
            modules += [nn.Linear(width, h), nn.Tanh()]
            width = h
        modules.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*modules)

    @property
    def hparams(self) -> dict[str, Any]:
        """Constructor arguments, JSON-serialisable."""
        return {"hidden": list(self.hidden)}

    def forward(self, obs: Tensor) -> Tensor:
        return self.net(obs).squeeze(-1).clamp(-1.0, 1.0)  # (..., 3) -> (...)

    @classmethod
    def from_sb3(cls, policy: Any, hidden: Sequence[int] | None = None) -> SmarlPolicy:
        """The deterministic actor of a stable-baselines3 ``ActorCriticPolicy``.

        Parameters
        ----------
        policy : stable_baselines3.common.policies.ActorCriticPolicy
            An ``MlpPolicy`` with ``net_arch=dict(pi=list(hidden), vf=...)``, Tanh activations
            and the default Flatten features extractor, on observations of shape ``(3,)``
            and actions of shape ``(1,)``.
        hidden : sequence of int, optional
            The actor's hidden widths; read from the policy when omitted.

        Returns
        -------
        SmarlPolicy
            On the CPU in float32, in eval mode, with copies of the actor's weights; its output
            is ``model.predict(obs, deterministic=True)`` (which clips to the action box).
        """
        layers = list(policy.mlp_extractor.policy_net)
        linears = [m for m in layers if isinstance(m, nn.Linear)]
        others = [m for m in layers if not isinstance(m, nn.Linear | nn.Tanh)]
        if others or sum(isinstance(m, nn.Tanh) for m in layers) != len(linears):
            raise ValueError("the policy network must alternate Linear layers and Tanh")
        widths = tuple(m.out_features for m in linears)
        if hidden is not None and tuple(int(h) for h in hidden) != widths:
            raise ValueError(f"hidden={tuple(hidden)} does not match the policy's {widths}")
        out = cls(widths)
        source = [*linears, policy.action_net]
        targets = [m for m in out.net if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for dst, src in zip(targets, source, strict=True):
                if dst.weight.shape != src.weight.shape:
                    raise ValueError(
                        f"layer shapes differ: {tuple(src.weight.shape)} in the policy, "
                        f"{tuple(dst.weight.shape)} expected"
                    )
                dst.weight.copy_(src.weight.detach().cpu())
                dst.bias.copy_(src.bias.detach().cpu())
        return out.eval()


class SmarlClosure:
    """The SMARL closure ``closure(w, box_size) -> Pi`` (protocol of
    :class:`~pderepro.solvers.turbulence.les_closures.Closure`).

    Every ``steps_per_action`` calls, starting with the first, the agents observe ``w`` and set
    their ``C_s``, which are interpolated to a coefficient field; in between the field is held,
    as the agents act once per action interval in training. ``Pi`` is the Smagorinsky term with
    that field. Fields are float64; the policy runs in float32 under ``torch.no_grad``. The
    counter counts calls, one per LES step with :class:`~pderepro.solvers.turbulence.les.LesStepper`
    (:func:`~pderepro.solvers.turbulence.les.run_les` calls it only there); :meth:`reset` restarts
    it for a new trajectory.

    Parameters
    ----------
    policy : torch.nn.Module
        Observations ``(batch, n_agents, 3)`` float32 to actions ``(batch, n_agents)`` in
        ``[-1, 1]`` (a :class:`SmarlPolicy`).
    agents_per_side : int
        Agents per side ``a``.
    cs_max : float
        Largest ``C_s`` (action ``+1``).
    scales : sequence of float
        Observation scales ``(3,)`` (:func:`observation_scales`).
    steps_per_action : int
        LES steps per action interval.

    Attributes
    ----------
    last_cs : torch.Tensor or None
        ``(batch, n_agents)`` float64, the agents' latest coefficients.
    """

    def __init__(
        self, policy: nn.Module, *, agents_per_side: int, cs_max: float, scales: Sequence[float],
        steps_per_action: int = 1,
    ) -> None:  # fmt: skip
        if steps_per_action < 1:
            raise ValueError(f"steps_per_action must be >= 1, got {steps_per_action}")
        self.policy = policy
        self.agents_per_side = int(agents_per_side)
        self.cs_max = float(cs_max)
        self.scales = np.asarray(scales, dtype=np.float64)
        self.steps_per_action = int(steps_per_action)
        self.last_cs: Tensor | None = None
        self._field: Tensor | None = None
        self._calls = 0

    def reset(self) -> None:
        """Restart the action counter (the next call acts) and forget the held field."""
        self._calls = 0
        self._field = None
        self.last_cs = None

    def _policy_device(self) -> torch.device:
        parameter = next(iter(self.policy.parameters()), None)
        return parameter.device if parameter is not None else torch.device("cpu")

    def act(self, w: Tensor, box_size: float) -> Tensor:
        """The agents' coefficient field ``(batch, n, n)`` for ``w`` (batch, n, n), float64."""
        with torch.no_grad():
            obs = agent_observations(w, box_size, self.agents_per_side, self.scales)
            action = self.policy(obs.to(self._policy_device()))  # (batch, n_agents) float32
            cs = action_to_cs(action.to(device=w.device, dtype=torch.float64), self.cs_max)
            self.last_cs = cs
            return coefficient_field(cs, w.shape[-1])

    def __call__(self, w: Tensor, box_size: float) -> Tensor:
        if self._calls % self.steps_per_action == 0:
            self._field = self.act(w, box_size)
        elif self._field is None or self._field.shape != w.shape:
            raise ValueError("the held coefficient field does not fit w; call reset() first")
        self._calls += 1
        with torch.no_grad():
            return Smagorinsky(coefficient=self._field)(w, box_size)
