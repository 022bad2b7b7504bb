"""Forced Navier-Stokes in vorticity form on the unit torus, ``t`` in [0, T], from a
Gaussian-random-field initial vorticity (docs/references.md: T = 50, nu = 2e-3).

``w_t + u . grad w = nu Lap w + f`` with ``u = (u, v) = (psi_y, -psi_x)``, ``-Lap psi = w``
and ``f = A (sin 2 pi (x + y) + cos 2 pi (x + y))``, the conventions of the torus solver
(:mod:`pderepro.solvers.navier_stokes.navier_stokes`). Arrays are ``(..., t, x, y)``:
``w[..., m, i, j] = w(t_m, i / n, j / n)``.

``w0``: the periodic kernel's field (length 0.8) at 64 x 64 nodes, its node mean subtracted
(a periodic velocity has zero mean vorticity), and its trigonometric interpolant. Time is
rescaled, ``s = t / T`` in [0, 1]; the network (an FNO3d: ``w0`` repeated along ``s``) gives
``N`` and the output transform ``w = w0 + 1e-3 s N`` holds the initial condition exactly.

The spectral method's function is the Chebyshev (Lobatto nodes in ``s``) x Fourier (2-D)
interpolant of ``w`` at its collocation nodes; its loss is the residual's coefficients on
that basis, in physical units (``w_t = w_s / T``), the advection term by the product on a
grid twice as fine in all three directions (exact for the product, then truncated). The
grid method's residual takes ``w_t`` by ``torch.gradient`` on a uniform ``t`` grid with both
ends, ``psi`` by inverting the 5-point Laplacian (in Fourier, exactly), ``u``, ``v``, ``w_x``,
``w_y`` by periodic central differences and ``Lap w`` by the 5-point stencil.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from scipy.interpolate import CubicSpline
from torch import Tensor, nn

from pderepro.solvers.common.random_fields import fourier_upsample, sample_periodic_kernel_grf
from pderepro.solvers.elliptic.nsm_reference import navier_stokes_reference
from pderepro.training.spectral.basis import (
    chebyshev_at,
    chebyshev_operators,
    fourier_resample,
    fourier_weights,
    resize_rfft,
    wavenumbers,
)
from pderepro.training.spectral.problems import (
    OUTPUT_SCALE,
    OperatorProblem,
    method_kind,
    register_operator_problem,
)

#: Collocation sizes of the spectral method: Lobatto nodes in t, Fourier nodes per side.
SPECTRAL_NT, SPECTRAL_N = 32, 64


def fno_forcing(n: int, amplitude: float, like: Tensor) -> Tensor:
    """``A (sin 2 pi (x + y) + cos 2 pi (x + y))`` at ``(i / n, j / n)``, ``(n, n)``."""
    x = torch.arange(n, dtype=like.dtype, device=like.device) / n  # (n,)
    phase = 2.0 * np.pi * (x[:, None] + x[None, :])  # (n, n)
    return amplitude * (torch.sin(phase) + torch.cos(phase))


def _truncate(v: Tensor, n: int, dim: int) -> Tensor:
    """Values at ``j / n`` along ``dim`` of the truncation of ``v``'s interpolant (``m``
    nodes, ``m >= n``) to the ``n``-point grid's basis (the Nyquist bin its cosine part)."""
    m = v.shape[dim]
    vm = v.movedim(dim, -1)
    c = resize_rfft(torch.fft.rfft(vm, dim=-1) / m, m, n)
    return torch.fft.irfft(c * n, n=n, dim=-1).movedim(-1, dim)


def _spectral_advection(c: Tensor, ops: Mapping[str, Tensor]) -> Tensor:
    """``u . grad w`` truncated to the basis, from ``w``'s Chebyshev coefficients ``c``
    ``(B, nt, n, n)`` (at each node of the torus); values ``(B, nt, n, n)`` at the nodes of
    the coarse basis in space, Chebyshev coefficients in time."""
    n = c.shape[-1]
    fine = torch.einsum("fm,bmxy->bfxy", ops["to_fine"], c)  # (B, 2 nt, n, n): 2 nt nodes
    fine = fourier_resample(fourier_resample(fine, 2 * n, -1), 2 * n, -2)  # (B, 2nt, 2n, 2n)
    a = torch.fft.rfft2(fine)  # (B, 2 nt, 2 n, n + 1); bins |k| = n are zero
    kx = wavenumbers(2 * n, a, full=True)[:, None]  # (2n, 1)
    ky = wavenumbers(2 * n, a)[None, :]  # (1, n + 1)
    k2 = kx**2 + ky**2
    inv = torch.where(k2 > 0, 1.0 / (2.0 * np.pi * k2.clamp(min=1.0)), 0.0)  # 1 / (2 pi |k|^2)
    # u = psi_y, v = -psi_x with psi_hat = w_hat / (4 pi^2 |k|^2); w_x, w_y
    kx, ky = kx.expand_as(k2), ky.expand_as(k2)  # (2n, n + 1)
    factors = torch.stack([1j * ky * inv, -1j * kx * inv, 2j * np.pi * kx, 2j * np.pi * ky])
    fields = torch.fft.irfft2(a[:, None] * factors[:, None], s=(2 * n, 2 * n))  # (B,4,2nt,2n,2n)
    u, v, w_x, w_y = fields.unbind(1)
    product = u * w_x + v * w_y  # (B, 2 nt, 2 n, 2 n): exact
    coarse = torch.einsum("mf,bfxy->bmxy", ops["from_fine"], product)  # (B, nt, 2n, 2n)
    return _truncate(_truncate(coarse, n, -1), n, -2)  # (B, nt, n, n)


def ns_spectral_residual(w: Tensor, nu: float, t_final: float, amplitude: float) -> Tensor:
    """Chebyshev x Fourier coefficients of ``w_t + u . grad w - nu Lap w - f`` (1/time^2).

    Parameters
    ----------
    w : Tensor, shape (B, n_t, n, n)
        Vorticity (1/time) at the Lobatto nodes in ``s = t / T`` (:func:`lobatto_nodes`) x
        ``(i / n, j / n)``.
    nu, t_final, amplitude : float
        Viscosity (length^2/time), the horizon ``T`` (time), the forcing's ``A``.

    Returns
    -------
    Tensor, shape (B, n_t, n, n // 2 + 1), complex: Chebyshev index, ``rfft2`` bins (divided
    by ``n^2``); the advection term exact before truncation to the basis.
    """
    nt, n = w.shape[-3], w.shape[-1]
    ops = chebyshev_operators(nt, w.dtype, str(w.device))
    c = torch.einsum("mt,btxy->bmxy", ops["to_coefficients"], w)  # (B, nt, n, n)
    c_t = torch.einsum("lm,bmxy->blxy", ops["derivative"], c) / t_final  # d/dt = d/ds / T
    forcing = torch.zeros_like(c[:1])  # (1, nt, n, n): f is constant in time (T_0 only)
    forcing[:, 0] = fno_forcing(n, amplitude, w)
    linear = c_t + _spectral_advection(c, ops) - forcing  # (B, nt, n, n)
    a = torch.fft.rfft2(c) / n**2  # (B, nt, n, n // 2 + 1)
    k2 = wavenumbers(n, a, full=True)[:, None] ** 2 + wavenumbers(n, a)[None, :] ** 2
    return torch.fft.rfft2(linear) / n**2 + nu * 4.0 * np.pi**2 * k2 * a


def ns_spectral_loss(w: Tensor, nu: float, t_final: float, amplitude: float) -> Tensor:
    """``sum |R_mk|^2`` over the Chebyshev index (unweighted) and the full 2-D Fourier
    spectrum, mean over the batch."""
    r = ns_spectral_residual(w, nu, t_final, amplitude)
    weights = fourier_weights(w.shape[-1], r)  # (n // 2 + 1,)
    return (weights * r.abs().square()).sum(dim=(-3, -2, -1)).mean()


def ns_grid_residual(w: Tensor, nu: float, t_final: float, amplitude: float) -> Tensor:
    """The residual (1/time^2) at the nodes of a uniform ``t`` grid on [0, T] (both ends;
    ``torch.gradient``, one-sided at the ends) x ``(i / n, j / n)``, ``(B, n_t, n, n)``;
    see the module docstring for the stencils."""
    nt, n = w.shape[-3], w.shape[-1]
    w_t = torch.gradient(w, spacing=t_final / (nt - 1), dim=-3)[0]

    def d(f: Tensor, dim: int) -> Tensor:  # periodic central difference, spacing 1 / n
        return (f.roll(-1, dim) - f.roll(1, dim)) * (n / 2.0)

    lap = (w.roll(1, -1) + w.roll(-1, -1) + w.roll(1, -2) + w.roll(-1, -2) - 4.0 * w) * n**2
    k = torch.fft.fftfreq(n, d=1.0 / n, dtype=w.dtype, device=w.device)
    eig = 4.0 * n**2 * (torch.sin(np.pi * k / n) ** 2)  # -(5-point Laplacian) per axis
    eig2 = eig[:, None] + eig[None, : n // 2 + 1]  # (n, n // 2 + 1)
    inv = torch.where(eig2 > 0, 1.0 / eig2.clamp(min=1e-30), 0.0)
    psi = torch.fft.irfft2(torch.fft.rfft2(w) * inv, s=(n, n))  # -Lap_h psi = w - mean
    u, v = d(psi, -1), -d(psi, -2)
    advection = u * d(w, -2) + v * d(w, -1)
    return w_t + advection - nu * lap - fno_forcing(n, amplitude, w)


@register_operator_problem
class ForcedNavierStokes(OperatorProblem):
    """Forced vorticity on the unit torus; see the module docstring."""

    name = "navier_stokes_forced"
    network_channels = 1  # w0 (FNO3d repeats it along t and appends x, y, t)
    network_padding = 8  # t is not periodic
    network_dims = 3
    #: The reference solver: the torus solver's AB2/CN on ``nx`` points per side, ``steps``
    #: over [0, T]. At the default law (T = 50, nu = 2e-3) the solution's Fourier content
    #: falls to 1e-11 by |k| = 12 (64 points agree with 128 to 1e-15) and 20000 steps are
    #: about 1e-7 relative from the limit (order 2; see nsm_verification).
    REFERENCE = {"nx": 64, "steps": 20000}

    def __init__(self, nu: float = 2e-3, t_final: float = 50.0, forcing_amplitude: float = 0.1,
                 length_scale: float = 0.8, nodes: int = 64) -> None:  # fmt: skip
        super().__init__(nu=float(nu), t_final=float(t_final),
                         forcing_amplitude=float(forcing_amplitude),
                         length_scale=float(length_scale), nodes=int(nodes))  # fmt: skip
        self.nu, self.t_final = float(nu), float(t_final)
        self.amplitude = float(forcing_amplitude)
        self.length_scale, self.nodes = float(length_scale), int(nodes)

    def sample_inputs(self, n: int, rng: np.random.Generator) -> np.ndarray:
        w0 = sample_periodic_kernel_grf(n, self.nodes, length=self.length_scale, ndim=2, rng=rng)
        return w0 - w0.mean(axis=(-2, -1), keepdims=True)  # (n, nodes, nodes)

    @staticmethod
    def _side(sizes: Mapping[str, int]) -> int:
        if sizes["nx"] != sizes["ny"]:
            raise ValueError(f"the torus grid is square: nx = {sizes['nx']} != ny = {sizes['ny']}")
        return int(sizes["nx"])

    def test_grid(self, sizes: Mapping[str, int]) -> tuple[np.ndarray, ...]:
        """Times ``linspace(0, T, nt)`` (time units), ``x = i / nx``, ``y = j / ny``."""
        x = np.arange(self._side(sizes)) / self._side(sizes)
        return np.linspace(0.0, self.t_final, sizes["nt"]), x, x.copy()

    def method_grid(self, method: Mapping[str, Any]) -> dict[str, int]:
        if method_kind(method) == "spectral":
            n = int(method.get("n", SPECTRAL_N))
            return {"nt": int(method.get("nt", SPECTRAL_NT)), "nx": n, "ny": n}
        n = int(method["n"])
        return {"nt": n, "nx": n, "ny": n}

    def _solve(self, inputs: np.ndarray, solver: Mapping[str, Any], grid_sizes: Mapping[str, int],
               device: str | None) -> np.ndarray:  # fmt: skip
        return navier_stokes_reference(
            inputs, nu=self.nu, forcing_amplitude=self.amplitude, t_final=self.t_final,
            nx=int(solver["nx"]), steps=int(solver["steps"]), n_times=int(grid_sizes["nt"]),
            x_points=self._side(grid_sizes), device=device,
        )  # fmt: skip

    def reference(self, inputs: np.ndarray, grid_sizes: Mapping[str, int],
                  reference: Mapping[str, Any] | None = None) -> np.ndarray:  # fmt: skip
        """The solver at :attr:`REFERENCE` (or ``reference``), recorded at the grid's times
        (on a GPU where one is present)."""
        return self._solve(inputs, {**self.REFERENCE, **(reference or {})}, grid_sizes, None)

    def solve(self, inputs: np.ndarray, resolution: Mapping[str, int],
              grid_sizes: Mapping[str, int]) -> tuple[np.ndarray, float]:  # fmt: skip
        """Our solver at ``resolution`` (``nx`` points per side, ``steps`` over [0, T]) on the
        CPU, stepping to the test times (uniform) and interpolated in space by Fourier, both
        inside the timing (what a query costs)."""
        start = time.perf_counter()
        w = self._solve(inputs, resolution, grid_sizes, "cpu")
        return w, time.perf_counter() - start

    def solution(self, net: nn.Module, inputs: Tensor, s: np.ndarray, n: int) -> Tensor:
        """``w = w0 + 1e-3 s N`` at ``s = t / T`` x the ``n x n`` grid, ``(B, len(s), n, n)``."""
        w0 = fourier_resample(fourier_resample(inputs, n, -1), n, -2)  # (B, n, n)
        ss = torch.as_tensor(s, dtype=inputs.dtype, device=inputs.device)  # (nt,)
        out = net(w0[:, None], len(s))  # (B, nt, n, n)
        return w0[:, None] + OUTPUT_SCALE * ss[None, :, None, None] * out

    def method_fields(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any]
                      ) -> tuple[Tensor]:  # fmt: skip
        return (self.solution(net, inputs, *self._space_time_nodes(method)),)

    def spectral_loss(self, w: Tensor) -> Tensor:
        return ns_spectral_loss(w, self.nu, self.t_final, self.amplitude)

    def grid_residual(self, w: Tensor) -> Tensor:
        return ns_grid_residual(w, self.nu, self.t_final, self.amplitude)

    def predict(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any],
                grid_sizes: Mapping[str, int]) -> Tensor:  # fmt: skip
        t, _, _ = self.test_grid(grid_sizes)
        s, n = t / self.t_final, self._side(grid_sizes)
        own_s, own_n = self._space_time_nodes(method)
        w = self.solution(net, inputs, own_s, own_n)  # (B, nt_own, own_n, own_n)
        if method_kind(method) == "spectral":  # the network's function, through its basis
            nt = w.shape[-3]
            c = torch.einsum("mt,btxy->bmxy",
                             chebyshev_operators(nt, w.dtype, str(w.device))["to_coefficients"],
                             w)  # fmt: skip  # (B, nt, own_n, own_n)
            w = torch.einsum("tm,bmxy->btxy", chebyshev_at(s, nt, w.dtype, w.device), c)
            return fourier_resample(fourier_resample(w, n, -1), n, -2)  # (B, nt_test, n, n)
        # on its own training grid, then a cubic spline in t and Fourier in x, y (as the
        # reaction-diffusion problem: the network at another grid is another function)
        w0_own = fourier_resample(fourier_resample(inputs, own_n, -1), own_n, -2)
        learned = (w - w0_own[:, None]).detach().cpu().double().numpy()  # 1e-3 s N
        learned = torch.as_tensor(CubicSpline(own_s, learned, axis=1)(s), dtype=inputs.dtype,
                                  device=inputs.device)  # fmt: skip
        w0 = fourier_resample(fourier_resample(inputs, n, -1), n, -2)[:, None]  # exact at t = 0
        return w0 + fourier_resample(fourier_resample(learned, n, -1), n, -2)

    def no_learning(self, inputs: np.ndarray, reference: np.ndarray) -> tuple[str, np.ndarray]:
        w0 = fourier_upsample(inputs, reference.shape[-1], ndim=2)  # (S, n, n)
        return "initial vorticity held", np.broadcast_to(w0[:, None], reference.shape).copy()
