"""Subgrid closures for the coarse Lorenz-96 model: X (batch, K) -> U (batch, K).

Kinds, selected by ``kind`` in the study config:

- ``none``: the X-only model, ``U = 0``.
- ``polynomial``: ``U_k = sum_i b_i X_k^i`` (cubic in the papers), least squares.
- ``mlp``: a local network ``X_k -> U_k`` shared by all k (2 hidden layers).
- ``fno``: a non-local Fourier neural operator over the K ring, ``X -> U``, without a
  coordinate channel so that it is equivariant under cyclic shifts like the system.

Any kind may add AR(1) noise (``noise: ar1``): ``e_t = phi e_{t-dt} + sigma sqrt(1 -
phi^2) z_t`` per k, with ``phi`` and ``sigma`` estimated from the residual series of the
deterministic part on the train block (Arnold et al. 2013).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.models.fno import FNO1d
from pderepro.models.mlp import mlp
from pderepro.models.normalised import NormalisedModel

logger = logging.getLogger(__name__)

__all__ = [
    "AR1Noise",
    "CLOSURE_KINDS",
    "Closure",
    "LocalMLP",
    "build_network",
    "fit_ar1",
    "fit_polynomial",
]

#: Closure kinds; the networks among them are trained with the project's training loop.
CLOSURE_KINDS = ("none", "polynomial", "mlp", "fno")
NETWORK_KINDS = ("mlp", "fno")


class LocalMLP(nn.Module):
    """The same small MLP applied to every ``X_k``: ``(batch, K) -> (batch, K)``.

    Parameters
    ----------
    hidden : sequence of int
        Hidden layer widths (GELU activations).
    """

    def __init__(self, hidden: Sequence[int] = (32, 32)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp((1, *self.hidden, 1))

    def hparams(self) -> dict[str, Any]:
        """Constructor arguments, JSON-serialisable."""
        return {"hidden": list(self.hidden)}

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x.unsqueeze(-1)).squeeze(-1)  # (batch, K, 1) -> (batch, K)


def build_network(kind: str, hparams: Mapping[str, Any]) -> nn.Module:
    """The untrained network of a network closure kind (``mlp`` or ``fno``)."""
    if kind == "mlp":
        return LocalMLP(**hparams)
    if kind == "fno":
        return FNO1d(**hparams, grid=False)
    raise ValueError(f"closure kind {kind!r} has no network; network kinds: {NETWORK_KINDS}")


@dataclass(frozen=True)
class AR1Noise:
    """AR(1) additive noise ``e_t = phi e_{t-dt} + sigma sqrt(1 - phi^2) z_t`` per k.

    Attributes
    ----------
    phi : float
        Lag-one autocorrelation at the coarse step (dimensionless, in [0, 1)).
    sigma : float
        Stationary standard deviation (units of ``dX/dt``).
    """

    phi: float
    sigma: float

    def start(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """A draw from the stationary distribution, ``(batch, K)``."""
        return self.sigma * rng.standard_normal(shape)

    def step(self, e: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The next noise value given the current one, same shape."""
        innovation = self.sigma * np.sqrt(1.0 - self.phi**2) * rng.standard_normal(e.shape)
        return self.phi * e + innovation


def fit_ar1(residuals: np.ndarray) -> AR1Noise:
    """Estimate AR(1) parameters from residual series.

    Parameters
    ----------
    residuals : numpy.ndarray
        ``U - U_det(X)`` at consecutive coarse steps, shape ``(trajectory, time, K)``.

    Returns
    -------
    AR1Noise
        ``sigma`` the pooled standard deviation, ``phi`` the pooled lag-one
        autocorrelation (clipped to [0, 0.999]).
    """
    r = np.asarray(residuals, dtype=np.float64)
    if r.ndim != 3 or r.shape[1] < 2:
        raise ValueError(f"residuals must be (trajectory, time >= 2, K), got {r.shape}")
    r = r - r.mean()
    var = float(np.mean(r * r))
    lag1 = float(np.mean(r[:, 1:] * r[:, :-1])) / var if var > 0 else 0.0
    return AR1Noise(phi=float(np.clip(lag1, 0.0, 0.999)), sigma=float(np.sqrt(var)))


class Closure:
    """A fitted closure: deterministic part ``U(X)`` plus optional AR(1) noise.

    Parameters
    ----------
    kind : str
        One of :data:`CLOSURE_KINDS`.
    coefficients : sequence of float, optional
        Polynomial coefficients ``b_0 .. b_d`` (``polynomial`` only).
    network : NormalisedModel, optional
        Trained network in physical units (``mlp`` and ``fno`` only).
    noise : AR1Noise, optional
        Stochastic part; None for a deterministic closure.
    """

    def __init__(
        self,
        kind: str,
        *,
        coefficients: Sequence[float] | None = None,
        network: NormalisedModel | None = None,
        noise: AR1Noise | None = None,
    ) -> None:
        if kind not in CLOSURE_KINDS:
            raise ValueError(f"unknown closure kind {kind!r}; known: {CLOSURE_KINDS}")
        if (kind == "polynomial") != (coefficients is not None):
            raise ValueError("polynomial closures, and only they, take coefficients")
        if (kind in NETWORK_KINDS) != (network is not None):
            raise ValueError("network closures, and only they, take a network")
        self.kind = kind
        self.coefficients = None if coefficients is None else np.asarray(coefficients, float)
        self.network = network.eval() if network is not None else None
        self.noise = noise

    @property
    def stochastic(self) -> bool:
        """Whether runs with this closure need ensembles."""
        return self.noise is not None

    def tendency(self, x: np.ndarray) -> np.ndarray:
        """Deterministic closure ``U(X)``.

        Parameters
        ----------
        x : numpy.ndarray
            Slow variables, shape ``(batch, K)``.

        Returns
        -------
        numpy.ndarray
            ``U``, shape ``(batch, K)``, float64 (units of ``dX/dt``).
        """
        if self.kind == "none":
            return np.zeros_like(x, dtype=np.float64)
        if self.kind == "polynomial":
            return np.polynomial.polynomial.polyval(x, self.coefficients)
        with torch.inference_mode():
            out = self.network(torch.from_numpy(np.asarray(x, dtype=np.float32)))
        return out.double().numpy()


def fit_polynomial(x: np.ndarray, u: np.ndarray, degree: int) -> np.ndarray:
    """Least-squares coefficients ``b_0 .. b_degree`` of ``U_k ~ sum_i b_i X_k^i``.

    Parameters
    ----------
    x, u : numpy.ndarray
        Pairs of any matching shape; pooled over all entries.
    degree : int
        Polynomial degree (3 in the papers).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    u = np.asarray(u, dtype=np.float64).ravel()
    return np.polynomial.polynomial.polyfit(x, u, int(degree))
