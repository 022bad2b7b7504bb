"""Bases of the Neural Spectral Methods: Fourier (periodic) and Chebyshev (time on [0, 1]).

Values live at collocation nodes: ``x_j = j / n`` for Fourier, the Chebyshev-Lobatto
nodes ``t_m = (1 - cos(pi m / (n - 1))) / 2`` (increasing, both ends) for Chebyshev. A
grid's function is its interpolant: trigonometric in ``x`` (modes ``|k| < n / 2`` and the
Nyquist mode as a cosine, what ``rfft`` of the values gives), polynomial of degree
``n - 1`` in ``t`` (coefficients of ``T_k(2 t - 1)``).
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from torch import Tensor


def lobatto_nodes(n: int) -> np.ndarray:
    """Chebyshev-Lobatto nodes on [0, 1], increasing, shape ``(n,)``."""
    if n < 2:
        raise ValueError(f"need at least 2 Lobatto nodes, got {n}")
    return 0.5 * (1.0 - np.cos(np.pi * np.arange(n) / (n - 1)))


def chebyshev_matrix(t: np.ndarray, n: int) -> np.ndarray:
    """``T_k(2 t - 1)`` for ``k < n`` at times ``t`` in [0, 1], shape ``(len(t), n)``."""
    s = np.clip(2.0 * np.asarray(t, dtype=np.float64) - 1.0, -1.0, 1.0)
    return np.cos(np.outer(np.arccos(s), np.arange(n)))


def chebyshev_derivative(n: int) -> np.ndarray:
    """Matrix ``D`` with ``b = D a`` the coefficients of ``d/ds sum_k a_k T_k(s)``, ``(n, n)``.

    Recurrence ``b_{k-1} = b_{k+1} + 2 k a_k`` (``b_{n-1} = b_n = 0``), then ``b_0 / 2``;
    on [0, 1], ``d/dt = 2 d/ds``.
    """
    d = np.zeros((n, n))
    for k in range(n - 2, -1, -1):
        if k + 2 < n:
            d[k] = d[k + 2]
        d[k, k + 1] += 2.0 * (k + 1)
    d[0] *= 0.5
    return d


@functools.lru_cache(maxsize=32)
def _chebyshev_numpy(n: int) -> dict[str, np.ndarray]:
    nodes = lobatto_nodes(n)
    fine = lobatto_nodes(2 * n)
    to_values = chebyshev_matrix(nodes, n)  # (n, n)
    fine_values = chebyshev_matrix(fine, 2 * n)  # (2n, 2n)
    return {
        "nodes": nodes,
        "to_coefficients": np.linalg.inv(to_values),  # (n, n)
        "derivative": 2.0 * chebyshev_derivative(n),  # d/dt on [0, 1]
        "to_fine": fine_values[:, :n],  # (2n, n): coefficients -> values at 2n nodes
        "from_fine": np.linalg.inv(fine_values)[:n],  # (n, 2n): values -> first n coefficients
    }


@functools.lru_cache(maxsize=64)
def chebyshev_operators(n: int, dtype: torch.dtype, device: str) -> dict[str, Tensor]:
    """The Chebyshev matrices of :func:`_chebyshev_numpy` as tensors (cached)."""
    return {
        k: torch.as_tensor(v, dtype=dtype, device=device) for k, v in _chebyshev_numpy(n).items()
    }


def chebyshev_at(t: np.ndarray, n: int, dtype: torch.dtype, device: str | torch.device) -> Tensor:
    """``T_k(2 t - 1)`` as a tensor, ``(len(t), n)``."""
    return torch.as_tensor(chebyshev_matrix(t, n), dtype=dtype, device=device)


def fourier_weights(n: int, like: Tensor) -> Tensor:
    """Weights of the ``rfft`` bins so that ``sum w |c|^2`` is the full-spectrum sum:
    1 for ``k = 0`` (and the Nyquist bin of even ``n``), else 2; shape ``(n // 2 + 1,)``."""
    w = torch.full((n // 2 + 1,), 2.0, dtype=like.real.dtype, device=like.device)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return w


def wavenumbers(n: int, like: Tensor, full: bool = False) -> Tensor:
    """Integer wavenumbers: ``rfft`` bins ``0 .. n // 2``, or the full ``fft`` order."""
    freqs = torch.fft.fftfreq if full else torch.fft.rfftfreq
    return freqs(n, d=1.0 / n, dtype=like.real.dtype, device=like.device).round()


def resize_rfft(c: Tensor, m: int, n: int) -> Tensor:
    """``rfft`` coefficients (divided by ``m``) of an ``m``-point grid's interpolant, as
    those of an ``n``-point grid along the last axis.

    ``n >= m``: zero padding, the even ``m``'s Nyquist bin halved (its cosine is split
    into ``+-m/2``). ``n < m``: truncation, the new Nyquist bin ``2 Re`` of its old bin
    (the cosine part; the sine vanishes at the coarse nodes).
    """
    if n >= m:
        c = c.clone()
        if m % 2 == 0:
            c[..., m // 2] = c[..., m // 2] * 0.5
        return torch.nn.functional.pad(c, (0, n // 2 + 1 - c.shape[-1]))
    out = c[..., : n // 2 + 1].clone()
    if n % 2 == 0:
        out[..., n // 2] = 2.0 * out[..., n // 2].real
    return out


def fourier_resample(v: Tensor, n: int, dim: int = -1) -> Tensor:
    """The trigonometric interpolant of ``v`` (nodes ``j / m`` along ``dim``) at ``j / n``.

    Finer grids by zero padding; coarser ones only where ``m`` is a multiple of ``n``
    (then the interpolant's values are the nodes' values).
    """
    m = v.shape[dim]
    if n == m:
        return v
    if n < m:
        if m % n:
            raise ValueError(f"cannot coarsen {m} points to {n}: not a divisor")
        return v.narrow(dim, 0, m).unfold(dim, 1, m // n).squeeze(-1)
    vm = v.movedim(dim, -1)
    c = torch.fft.rfft(vm, dim=-1) / m
    out = torch.fft.irfft(resize_rfft(c, m, n) * n, n=n, dim=-1)
    return out.movedim(-1, dim)
