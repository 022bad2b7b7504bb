"""Periodic Poisson ``-Lap u = s`` on [0, 1)^2 with a Gaussian-random-field source.

Source: the periodic kernel's field (length 0.2) at 16 x 16 nodes, its node mean
subtracted (:func:`~pderepro.solvers.common.random_fields.sample_periodic_kernel_grf`), and its
trigonometric interpolant between them. The network maps the source's values on an
``n x n`` grid to ``N``; the output transform ``u = 1e-3 (N - N(0, 0))`` fixes the gauge
``u(0, 0) = 0`` (the reference's). Arrays are ``(..., y, x)`` at ``(i / n, j / n)``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pderepro.solvers.common.random_fields import fourier_upsample, sample_periodic_kernel_grf
from pderepro.solvers.elliptic.nsm_reference import poisson_solution
from pderepro.training.spectral.basis import fourier_resample, fourier_weights, wavenumbers
from pderepro.training.spectral.problems import (
    OUTPUT_SCALE,
    OperatorProblem,
    method_kind,
    register_operator_problem,
)

#: Collocation grid of the spectral method unless the method names its ``n``.
SPECTRAL_N = 32


def poisson_spectral_residual(u: Tensor, s: Tensor) -> Tensor:
    """Coefficients ``r_hat_k = 4 pi^2 |k|^2 u_hat_k - s_hat_k`` of ``-Lap u - s``.

    Parameters
    ----------
    u, s : Tensor, shape (B, n, n)
        Values at the nodes; the functions are their interpolants.

    Returns
    -------
    Tensor, shape (B, n, n // 2 + 1), complex: ``rfft2`` order, divided by ``n^2``.
    """
    n = u.shape[-1]
    u_hat = torch.fft.rfft2(u) / n**2
    s_hat = torch.fft.rfft2(s) / n**2
    ky = wavenumbers(n, u, full=True)[:, None]
    kx = wavenumbers(n, u)[None, :]
    return 4.0 * np.pi**2 * (kx**2 + ky**2) * u_hat - s_hat


def poisson_spectral_loss(u: Tensor, s: Tensor) -> Tensor:
    """``sum_k |r_hat_k|^2`` over the full spectrum (Parseval: the mean of ``r^2`` over
    the nodes, ``int r^2`` without a Nyquist mode), mean over the batch."""
    r_hat = poisson_spectral_residual(u, s)
    weights = fourier_weights(u.shape[-1], r_hat)
    return (weights * r_hat.abs().square()).sum(dim=(-2, -1)).mean()


def poisson_grid_residual(u: Tensor, s: Tensor) -> Tensor:
    """The 5-point residual ``-Lap_h u - s`` at the nodes, ``(B, n, n)``."""
    n = u.shape[-1]
    neighbours = u.roll(1, -1) + u.roll(-1, -1) + u.roll(1, -2) + u.roll(-1, -2)  # (B, n, n)
    return -(n**2) * (neighbours - 4.0 * u) - s


@register_operator_problem
class PeriodicPoisson(OperatorProblem):
    """``-Lap u = s`` on the periodic unit square; see the module docstring."""

    name = "poisson_periodic"
    network_channels = 1
    network_padding = 0

    def __init__(self, length_scale: float = 0.2, nodes: int = 16) -> None:
        super().__init__(length_scale=float(length_scale), nodes=int(nodes))
        self.length_scale, self.nodes = float(length_scale), int(nodes)

    def sample_inputs(self, n: int, rng: np.random.Generator) -> np.ndarray:
        s = sample_periodic_kernel_grf(n, self.nodes, length=self.length_scale, ndim=2, rng=rng)
        return s - s.mean(axis=(-2, -1), keepdims=True)  # (n, nodes, nodes)

    def test_grid(self, sizes: Mapping[str, int]) -> tuple[np.ndarray, ...]:
        x = np.arange(sizes["n"]) / sizes["n"]
        return x, x.copy()  # (y, x)

    def method_grid(self, method: Mapping[str, Any]) -> dict[str, int]:
        if method_kind(method) == "spectral":
            return {"n": int(method.get("n", SPECTRAL_N))}
        return {"n": int(method["n"])}

    def reference(self, inputs: np.ndarray, grid_sizes: Mapping[str, int],
                  reference: Mapping[str, Any] | None = None) -> np.ndarray:  # fmt: skip
        # exact: the source is band-limited, so is the solution
        return poisson_solution(fourier_upsample(inputs, grid_sizes["n"], ndim=2))

    def solve(self, inputs: np.ndarray, resolution: Mapping[str, int],
              grid_sizes: Mapping[str, int]) -> tuple[np.ndarray, float]:  # fmt: skip
        start = time.perf_counter()
        u = poisson_solution(fourier_upsample(inputs, resolution["n"], ndim=2))
        seconds = time.perf_counter() - start
        return fourier_upsample(u, grid_sizes["n"], ndim=2), seconds

    def source(self, inputs: Tensor, n: int) -> Tensor:
        """The source's interpolant on the ``n x n`` grid, ``(B, n, n)``."""
        return fourier_resample(fourier_resample(inputs, n, -1), n, -2)

    def solution(self, net: nn.Module, inputs: Tensor, n: int) -> tuple[Tensor, Tensor]:
        """``u = 1e-3 (N - N(0, 0))`` and the source on the ``n x n`` grid."""
        s = self.source(inputs, n)  # (B, n, n)
        out = net(s[:, None])  # (B, n, n)
        return OUTPUT_SCALE * (out - out[:, :1, :1]), s

    def method_fields(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any]
                      ) -> tuple[Tensor, Tensor]:  # fmt: skip
        return self.solution(net, inputs, self.method_grid(method)["n"])

    def spectral_loss(self, u: Tensor, s: Tensor) -> Tensor:
        return poisson_spectral_loss(u, s)

    def grid_residual(self, u: Tensor, s: Tensor) -> Tensor:
        return poisson_grid_residual(u, s)

    def predict(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any],
                grid_sizes: Mapping[str, int]) -> Tensor:  # fmt: skip
        n = grid_sizes["n"]
        if method_kind(method) == "spectral":  # the network's function: its interpolant
            u, _ = self.solution(net, inputs, self.method_grid(method)["n"])
            return fourier_resample(fourier_resample(u, n, -1), n, -2)
        return self.solution(net, inputs, n)[0]  # the network run at the test grid

    def no_learning(self, inputs: np.ndarray, reference: np.ndarray) -> tuple[str, np.ndarray]:
        return "zero", np.zeros_like(reference)
