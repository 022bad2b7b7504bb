"""Subgrid closures for LES of 2-D vorticity: none, Smagorinsky, Leith and dynamic Smagorinsky.

A closure models the subgrid term ``Pi`` of :mod:`pderepro.solvers.turbulence.les_filters` from the
resolved vorticity on the LES grid, with the same sign: ``wbar_t + ubar . grad wbar = ... - Pi``.

Interface (:class:`Closure`): ``closure(w, box_size) -> Pi``, with ``w`` the resolved vorticity
(1/time), shape ``(batch, n, n)`` on the ``n``-point LES grid of the box ``[0, L)^2``, and ``Pi``
of the same shape (vorticity / time). The filter width is the grid spacing ``Delta = L / n``.
A learned closure (a CNN mapping ``w``, or ``w`` and ``psi``, to ``Pi``) is any callable with this
signature; a per-point coefficient (one ``C_s`` per grid point, as set by RL agents) is a
:class:`Smagorinsky` whose ``coefficient`` is a tensor broadcastable to ``(batch, n, n)``.

Eddy-viscosity closures model the subgrid vorticity flux as down-gradient,
``Pi = -div(nu_e grad w)`` with ``nu_e >= 0`` (length^2 / time), so ``-Pi`` is a diffusion and
``<w Pi> = <nu_e |grad w|^2> >= 0``: the closure removes resolved enstrophy.

- Smagorinsky: ``nu_e = (C_s Delta)^2 |S|``, ``|S| = sqrt(2 S_ij S_ij)`` of the resolved strain
  ``S_ij = (d_j u_i + d_i u_j) / 2``; in 2-D ``|S| = sqrt(4 psi_xy^2 + (psi_yy - psi_xx)^2)``.
  Textbook constant ``C_s = 0.17`` (Lilly's estimate for a cutoff filter in the inertial range;
  Pope 2000, section 13.4).
- Leith: ``nu_e = (C_l Delta)^3 |grad w|``, the 2-D enstrophy-cascade analogue. Constant
  ``C_l = 0.20``: a conventional order-one value, not derived here.
- Dynamic Smagorinsky: ``nu_e = c Delta^2 |S|`` with ``c = C_s^2`` from the Germano identity with
  a test filter of width ``2 Delta`` (hat), applied to ``Pi`` itself::

      L = hat(N(w)) - N(hat w)                                  (N = dealiased u . grad w)
      M = Delta^2 hat(div(|S| grad w)) - (2 Delta)^2 div(|hat S| grad hat w)

  With ``N`` the LES's own advection (dealiased on the LES grid, as in
  :mod:`~pderepro.solvers.turbulence.les_filters`), ``L = Pi_test - hat(Pi)`` exactly for the
  test-level term evaluated on the same grid, and the model gives ``L = c M``; ``c`` is the
  least-squares value ``<L M> / <M M>`` averaged over the domain of each sample, clipped at ``>= 0``
  (``0`` when ``M = 0``). The test filter is the sharp cutoff at ``|k| < n / 4`` by default (sharp
  filters compose, so the grid-then-test filter has width exactly ``2 Delta``), or the Gaussian; the
  factor ``(2 Delta)^2`` in ``M`` is exact for the sharp one only (two Gaussians of widths
  ``Delta`` and ``2 Delta`` compose to ``sqrt(5) Delta``).

Derivatives are spectral with the Nyquist wavenumbers zeroed; the pointwise products
(``nu_e grad w``, ``|S|``) are collocated on the LES grid without dealiasing (``nu_e`` is not
polynomial in ``w``); the LES stepper truncates ``Pi`` to the 2/3-rule modes.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import torch

from pderepro.solvers.turbulence.les_filters import advection, angular_wavenumbers, apply_filter

__all__ = [
    "CLOSURE_NAMES",
    "LEITH_CONSTANT",
    "SMAGORINSKY_CONSTANT",
    "Closure",
    "DynamicSmagorinsky",
    "EddyViscosityClosure",
    "Leith",
    "NoClosure",
    "Smagorinsky",
    "eddy_viscosity_term",
    "make_closure",
    "resolved_gradients",
]

#: Textbook Smagorinsky constant ``C_s`` (Lilly; Pope 2000, section 13.4).
SMAGORINSKY_CONSTANT = 0.17
#: Conventional Leith constant ``C_l``.
LEITH_CONSTANT = 0.20
#: Names understood by :func:`make_closure`.
CLOSURE_NAMES = ("none", "smagorinsky", "leith", "dynamic_smagorinsky")


@runtime_checkable
class Closure(Protocol):
    """``closure(w, box_size) -> Pi``: resolved vorticity (batch, n, n) to the modelled subgrid
    term (batch, n, n), sign as in :mod:`pderepro.solvers.turbulence.les_filters`."""

    def __call__(self, w: torch.Tensor, box_size: float) -> torch.Tensor: ...


class NoClosure:
    """``Pi = 0``: the unclosed LES (the LES stepper skips it, so it costs nothing)."""

    def __call__(self, w: torch.Tensor, box_size: float) -> torch.Tensor:
        return torch.zeros_like(w)


def resolved_gradients(w: torch.Tensor, box_size: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Vorticity gradient and strain-rate magnitude of a resolved field ``w`` (..., n, n).

    Returns
    -------
    (torch.Tensor, torch.Tensor)
        ``grad w`` of shape ``(2, ..., n, n)`` (``w_x, w_y``; vorticity / length) and
        ``|S| = sqrt(2 S_ij S_ij)`` of shape ``(..., n, n)`` (1/time).
    """
    n = w.shape[-1]
    kx, ky = angular_wavenumbers(n, box_size, device=w.device, dtype=w.dtype)
    k2 = kx**2 + ky**2
    inv_k2 = torch.where(k2 > 0, 1.0 / torch.where(k2 > 0, k2, 1.0), 0.0)
    w_hat = torch.fft.rfft2(w)
    psi_hat = w_hat * inv_k2  # -Lap psi = w
    # (5, ..., n, n // 2 + 1): w_x, w_y, psi_xx, psi_yy, psi_xy
    parts = torch.stack(
        [1j * kx * w_hat, 1j * ky * w_hat, -kx * kx * psi_hat, -ky * ky * psi_hat,
         -kx * ky * psi_hat]
    )  # fmt: skip
    w_x, w_y, psi_xx, psi_yy, psi_xy = torch.fft.irfft2(parts, s=(n, n))
    # S_11 = -S_22 = psi_xy, S_12 = (psi_yy - psi_xx) / 2, so 2 S_ij S_ij = 4 S_11^2 + 4 S_12^2
    strain = torch.sqrt(4.0 * psi_xy**2 + (psi_yy - psi_xx) ** 2)
    return torch.stack([w_x, w_y]), strain


def _divergence(flux: torch.Tensor, box_size: float) -> torch.Tensor:
    """Spectral divergence of a flux (2, ..., n, n) -> (..., n, n)."""
    n = flux.shape[-1]
    kx, ky = angular_wavenumbers(n, box_size, device=flux.device, dtype=flux.dtype)
    f_hat = torch.fft.rfft2(flux)
    return torch.fft.irfft2(1j * kx * f_hat[0] + 1j * ky * f_hat[1], s=(n, n))


def eddy_viscosity_term(
    nu_e: torch.Tensor | float, w: torch.Tensor, box_size: float, grad_w: torch.Tensor | None = None
) -> torch.Tensor:
    """``Pi = -div(nu_e grad w)`` for an eddy viscosity ``nu_e`` (scalar or (..., n, n),
    length^2 / time) and vorticity ``w`` (..., n, n); ``grad_w`` (2, ..., n, n) if known."""
    if grad_w is None:
        grad_w = resolved_gradients(w, box_size)[0]
    return -_divergence(nu_e * grad_w, box_size)


class EddyViscosityClosure:
    """Base of the closures ``Pi = -div(nu_e grad w)``; subclasses define :meth:`viscosity`."""

    def viscosity(
        self, w: torch.Tensor, box_size: float, grad_w: torch.Tensor, strain: torch.Tensor
    ) -> torch.Tensor:
        """``nu_e`` (..., n, n) from the field, its gradient and strain magnitude."""
        raise NotImplementedError

    def eddy_viscosity(self, w: torch.Tensor, box_size: float) -> torch.Tensor:
        """Eddy viscosity ``nu_e`` (length^2 / time) of ``w`` (batch, n, n), same shape."""
        grad_w, strain = resolved_gradients(w, box_size)
        return torch.broadcast_to(self.viscosity(w, box_size, grad_w, strain), w.shape)

    def __call__(self, w: torch.Tensor, box_size: float) -> torch.Tensor:
        grad_w, strain = resolved_gradients(w, box_size)
        nu_e = self.viscosity(w, box_size, grad_w, strain)
        return eddy_viscosity_term(nu_e, w, box_size, grad_w)


def _coefficient(value: float | torch.Tensor, like: torch.Tensor) -> float | torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.to(device=like.device, dtype=like.dtype)
    return float(value)


class Smagorinsky(EddyViscosityClosure):
    """Smagorinsky closure ``nu_e = (C_s Delta)^2 |S|``, ``Delta = L / n``.

    Parameters
    ----------
    coefficient : float or torch.Tensor
        ``C_s`` (dimensionless): a scalar, or a tensor broadcastable to ``(batch, n, n)`` for a
        per-sample or per-point coefficient (e.g. set by RL agents between steps; the attribute
        may be reassigned). Default: the textbook 0.17.
    """

    def __init__(self, coefficient: float | torch.Tensor = SMAGORINSKY_CONSTANT) -> None:
        self.coefficient = coefficient

    def viscosity(self, w, box_size, grad_w, strain):
        c_s = _coefficient(self.coefficient, w)
        return (c_s * (box_size / w.shape[-1])) ** 2 * strain


class Leith(EddyViscosityClosure):
    """Leith closure ``nu_e = (C_l Delta)^3 |grad w|``, ``Delta = L / n``.

    Parameters
    ----------
    coefficient : float or torch.Tensor
        ``C_l`` (dimensionless), scalar or broadcastable to ``(batch, n, n)``; default 0.20.
    """

    def __init__(self, coefficient: float | torch.Tensor = LEITH_CONSTANT) -> None:
        self.coefficient = coefficient

    def viscosity(self, w, box_size, grad_w, strain):
        c_l = _coefficient(self.coefficient, w)
        return (c_l * (box_size / w.shape[-1])) ** 3 * torch.sqrt(grad_w[0] ** 2 + grad_w[1] ** 2)


class DynamicSmagorinsky(EddyViscosityClosure):
    """Dynamic Smagorinsky closure: ``nu_e = c Delta^2 |S|``, ``c = C_s^2`` per sample from the
    Germano identity (module docstring).

    Parameters
    ----------
    test_filter : str
        ``"sharp"`` (default) or ``"gaussian"``, of width ``2 Delta``.
    """

    def __init__(self, test_filter: str = "sharp") -> None:
        self.test_filter = test_filter

    def squared_coefficient(
        self, w: torch.Tensor, box_size: float, grad_w: torch.Tensor | None = None,
        strain: torch.Tensor | None = None,
    ) -> torch.Tensor:  # fmt: skip
        """``c = C_s^2 >= 0`` of each sample of ``w`` (..., n, n), shape ``(..., 1, 1)``."""
        n = w.shape[-1]
        if grad_w is None or strain is None:
            grad_w, strain = resolved_gradients(w, box_size)
        delta2 = (box_size / n) ** 2

        def hat(field: torch.Tensor) -> torch.Tensor:
            return apply_filter(field, self.test_filter, n // 2)  # width 2 Delta

        w_test = hat(w)
        grad_test, strain_test = resolved_gradients(w_test, box_size)
        germano = hat(advection(w, box_size)) - advection(w_test, box_size)
        grid = _divergence(strain * grad_w, box_size)
        test = _divergence(strain_test * grad_test, box_size)
        model = delta2 * hat(grid) - 4.0 * delta2 * test
        numerator = (germano * model).sum(dim=(-2, -1), keepdim=True)
        denominator = (model * model).sum(dim=(-2, -1), keepdim=True)
        ratio = numerator / torch.where(denominator > 0, denominator, 1.0)
        return torch.where(denominator > 0, ratio, 0.0).clamp(min=0.0)

    def viscosity(self, w, box_size, grad_w, strain):
        c = self.squared_coefficient(w, box_size, grad_w, strain)
        return c * (box_size / w.shape[-1]) ** 2 * strain


def make_closure(name: str, **options) -> Closure:
    """A closure by name (:data:`CLOSURE_NAMES`); ``options`` go to its constructor."""
    classes = {
        "none": NoClosure,
        "smagorinsky": Smagorinsky,
        "leith": Leith,
        "dynamic_smagorinsky": DynamicSmagorinsky,
    }
    if name not in classes:
        raise ValueError(f"closure must be one of {CLOSURE_NAMES}, got {name!r}")
    return classes[name](**options)
