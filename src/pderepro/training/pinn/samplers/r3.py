"""Retain-Resample-Release sampling (``r3``) and its causal extension (``causal_r3``).

Daw, Bu, Wang, Perdikaris, Karpatne, "Mitigating Propagation Failures in
Physics-informed Neural Networks using Retain-Resample-Release (R3) Sampling", ICML 2023,
arXiv 2207.02338 (docs/references.md). Only the paper's abstract could be read here, so the
formulas and defaults below are those of the authors' code, arkadaw9/r3_sampling_icml2023
at commit a1c24f39 (``Convection/sampler.py``, ``pinn_model.py`` and ``train.py``;
Allen-Cahn's are the same), reimplemented from that description:

- R3: the population keeps ``n_points`` points. After every step, with the residuals
  ``r (n,)`` the step's loss already computed (no extra forward pass), the points of
  fitness ``|r| > mean(|r|)`` (strictly) are *retained* and every other point is
  *released* and *resampled* uniformly over the whole domain.
- Causal R3: a causal gate over normalised time ``s = (t - t0) / (t1 - t0)``,
  ``g(s) = (1 - tanh(alpha (s - gamma))) / 2``, multiplies the fitness
  (``|r| g(t) > mean(|r| g(t))`` is retained) and the residual loss, whose weights are
  ``g^power`` (the code's loss is ``mean((r g)^2)``: ``power = 2``). After every step the
  gate opens further in time:
  ``gamma <- gamma + eta * min(exp(-epsilon * L_g), clip)``, with
  ``L_g = mean(g^power r^2)`` over the population the step used, at the gate before the
  update. Defaults are the code's ``train.py``: ``alpha = 5``, ``gamma0 = -0.5``,
  ``eta = 1e-3``, ``epsilon = 20``, ``clip = 0.1``. Since ``exp(-epsilon L_g) <= 1``, the
  clip caps the advance at ``eta * clip = 1e-4`` per step: the gate needs at least 20,000
  steps to go from ``gamma = -0.5`` to ``1.5`` (where ``g(1) = 0.993``). ``gamma`` is not
  capped.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from pderepro.training.pinn.samplers.base import ResidualAt, register_sampler
from pderepro.training.pinn.samplers.basic import PointSetSampler


@register_sampler
class R3(PointSetSampler):
    """Retain the points of above-mean fitness, redraw the rest uniformly (keeps ``n_points``).

    The initial population is a uniform draw with the run's generator. No options.
    """

    name = "r3"

    def configure(self) -> None:
        super().configure()  # the uniform initial population
        self.retained_fraction = 0.0

    def retain_release_resample(self, fitness: Tensor) -> None:
        """Keep the points of fitness strictly above the population's mean, redraw the rest."""
        fitness = fitness.double()  # float64 mean: n equal float32 values sit at it, not above
        keep = fitness > fitness.mean()  # (n,) bool; all False when the mean is NaN
        kept = self._points[keep]  # (k, 2)
        self.retained_fraction = kept.shape[0] / self._points.shape[0]
        fresh = self.uniform(self.n_points - kept.shape[0]).to(kept)  # (n - k, 2)
        self._points = torch.cat([kept, fresh])  # (n, 2)

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Retain, release and resample with the step's own residuals (``residual_at`` unused)."""
        residual = self.residual_of_points(residual).abs()  # (n,)
        self.retain_release_resample(residual)

    def state(self) -> dict[str, float]:
        return {**super().state(), "retained_fraction": float(self.retained_fraction)}


@register_sampler
class CausalR3(R3):
    """R3 with a causal gate that opens in time as the gated residual loss falls.

    Options
    -------
    alpha : float, default 5
        Steepness of the gate (per unit of normalised time).
    gamma : float, default -0.5
        Initial position of the gate in normalised time (``g(gamma) = 1/2``).
    eta : float, default 1e-3
        Gate learning rate (normalised time per step, before the clip).
    epsilon : float, default 20
        Tolerance: the gate advances fast only while ``L_g << 1 / epsilon``.
    clip : float, default 0.1
        Upper bound on ``exp(-epsilon L_g)`` (the code's ``grad_clip``); ``clip = 1``
        gives the unclipped rule ``gamma += eta exp(-epsilon L_g)``.
    power : float, default 2
        The loss weights are ``g^power``: 2 is the authors' ``mean((r g)^2)``, 1 weights
        each squared residual by the gate itself.
    """

    name = "causal_r3"

    def configure(
        self,
        *,
        alpha: float = 5.0,
        gamma: float = -0.5,
        eta: float = 1e-3,
        epsilon: float = 20.0,
        clip: float = 0.1,
        power: float = 2.0,
    ) -> None:
        super().configure()
        if alpha <= 0 or eta < 0 or epsilon < 0 or clip <= 0 or power <= 0:
            raise ValueError(
                "causal_r3 needs alpha > 0, eta >= 0, epsilon >= 0, clip > 0 and power > 0; got "
                f"alpha={alpha}, eta={eta}, epsilon={epsilon}, clip={clip}, power={power}"
            )
        self.alpha = float(alpha)
        self.gamma = float(gamma)
        self.eta = float(eta)
        self.epsilon = float(epsilon)
        self.clip = float(clip)
        self.power = float(power)
        self.gated_loss = math.nan
        self._weights: Tensor | None = None

    def gate(self, t: Tensor) -> Tensor:
        """Gate values ``(n,)`` in ``[0, 1]`` at times ``t (n,)``, non-increasing in ``t``."""
        s = self.domain.normalised_time(t)  # (n,)
        return 0.5 * (1.0 - torch.tanh(self.alpha * (s - self.gamma)))

    def point_weights(self) -> Tensor:
        """Loss weights ``g(t)^power (n,)`` of the current points (no gradient; cached until
        the points or the gate move)."""
        if self._weights is None:
            with torch.no_grad():
                self._weights = self.gate(self._points[:, 1]) ** self.power  # (n,)
        return self._weights

    def to(self, dtype: torch.dtype) -> None:
        super().to(dtype)
        self._weights = None

    def advance(self, gated_loss: float) -> None:
        """Move the gate: ``gamma += eta * min(exp(-epsilon * L_g), clip)`` (not on a NaN loss)."""
        self.gated_loss = gated_loss
        if math.isnan(gated_loss):
            return
        self.gamma += self.eta * min(math.exp(-self.epsilon * gated_loss), self.clip)

    def update(self, iteration: int, residual: Tensor, residual_at: ResidualAt) -> None:
        """Retain by gated fitness, then advance the gate on the step's gated loss."""
        residual = self.residual_of_points(residual).abs()  # (n,)
        gate = self.gate(self._points[:, 1])  # (n,) before the move
        gated = float((gate**self.power * residual**2).mean())
        self.retain_release_resample(residual * gate)
        self.advance(gated)
        self._weights = None

    def state(self) -> dict[str, float]:
        return {**super().state(), "gamma": self.gamma, "gated_loss": float(self.gated_loss)}
