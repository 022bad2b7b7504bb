"""Barenblatt(-Pattle) solutions of the porous-medium equation, and their residual.

The porous-medium equation ``u_t = Lap(u^m)``, ``m > 1``, in ``d`` space dimensions, in
dimensionless units (unit diffusivity: ``x``, ``t`` and ``u`` are pure numbers). Its
self-similar source solution (Barenblatt 1952, Pattle 1959; Vazquez, *The Porous Medium
Equation*, 2007, section 4.4) is

    u(x, t) = t^(-alpha) (C - k |x|^2 t^(-2 beta))_+^(1 / (m - 1)),

    alpha = d / (d (m - 1) + 2),  beta = alpha / d,  k = alpha (m - 1) / (2 m d),

for ``t > 0`` and any ``C > 0``. Its support is the ball ``|x| <= r_f(t)`` with the front
``r_f(t) = sqrt(C / k) t^beta``, its mass is the same at every time
(:meth:`Barenblatt.mass`), and it is smooth inside the support but only Holder
continuous across the front (exponent ``min(1, 1 / (m - 1))``: for ``m = 2`` a kink, ``u``
Lipschitz, its gradient jumping). :meth:`Barenblatt.residual` evaluates
``u_t - Lap(u^m)`` from the closed-form derivatives, which the tests check to be round-off
inside the support, against finite differences too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Barenblatt:
    """The Barenblatt solution of ``u_t = Lap(u^m)`` in ``d`` dimensions.

    Parameters
    ----------
    d : int
        Space dimensions, at least 1.
    m : float
        Exponent of the nonlinearity, ``m > 1`` (``m = 2``: the Boussinesq equation of
        groundwater flow).
    C : float
        The free constant (``C > 0``, dimensionless): the peak ``u(0, t) = C^(1/(m-1))
        t^(-alpha)``, and with ``k`` the front ``sqrt(C / k) t^beta``.
    """

    d: int
    m: float
    C: float

    def __post_init__(self) -> None:
        if self.d < 1 or self.m <= 1 or self.C <= 0:
            raise ValueError(f"need d >= 1, m > 1, C > 0; got d={self.d}, m={self.m}, C={self.C}")

    @property
    def alpha(self) -> float:
        """Decay exponent of the amplitude, ``d / (d (m - 1) + 2)``."""
        return self.d / (self.d * (self.m - 1) + 2)

    @property
    def beta(self) -> float:
        """Growth exponent of the front, ``alpha / d``."""
        return self.alpha / self.d

    @property
    def k(self) -> float:
        """``alpha (m - 1) / (2 m d)``."""
        return self.alpha * (self.m - 1) / (2 * self.m * self.d)

    @property
    def p(self) -> float:
        """The profile's exponent ``1 / (m - 1)``."""
        return 1.0 / (self.m - 1)

    def front(self, t: float | np.ndarray) -> float | np.ndarray:
        """Radius of the support ``sqrt(C / k) t^beta`` at time(s) ``t > 0``."""
        return math.sqrt(self.C / self.k) * np.asarray(t, dtype=np.float64) ** self.beta

    def mass(self) -> float:
        """``int u(x, t) dx`` over R^d, the same at every ``t``:
        ``pi^(d/2) (C/k)^(d/2) C^p Gamma(p + 1) / Gamma(d/2 + p + 1)``, ``p = 1/(m-1)``."""
        d, p = self.d, self.p
        return (
            math.pi ** (d / 2)
            * (self.C / self.k) ** (d / 2)
            * self.C**p
            * math.gamma(p + 1)
            / math.gamma(d / 2 + p + 1)
        )

    def _pieces(self, x: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, ...]:
        x = np.asarray(x, dtype=np.float64)
        t = np.asarray(t, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.d or t.shape != x.shape[:1]:
            raise ValueError(f"need x (n, {self.d}) and t (n,); got {x.shape} and {t.shape}")
        if np.any(t <= 0):
            raise ValueError("the Barenblatt solution is defined for t > 0 only")
        r2 = np.einsum("nd,nd->n", x, x)  # (n,)
        F = self.C - self.k * r2 * t ** (-2 * self.beta)  # (n,) the profile inside (...)_+
        return r2, t, np.maximum(F, 0.0)

    def __call__(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``u(x, t)``.

        Parameters
        ----------
        x : numpy.ndarray
            ``(n, d)`` points in space (dimensionless).
        t : numpy.ndarray
            ``(n,)`` times, each ``> 0`` (dimensionless).

        Returns
        -------
        numpy.ndarray
            ``(n,)`` float64 values, zero outside the support.
        """
        _, t, F = self._pieces(x, t)
        return t ** (-self.alpha) * F**self.p

    def time_derivative(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``u_t`` at ``(x, t)`` (``(n, d)``, ``(n,)``), in closed form; zero outside the
        support and on the front (where, for ``m >= 2``, it does not exist: a null set).

        With ``F = C - k |x|^2 t^(-2 beta)``: ``u_t = -alpha t^(-alpha-1) F^p
        + t^(-alpha) p F^(p-1) F_t``, ``F_t = 2 beta k |x|^2 t^(-2 beta - 1)``.
        """
        r2, t, F = self._pieces(x, t)
        a, b, p, k = self.alpha, self.beta, self.p, self.k
        inside = F > 0
        F_t = 2 * b * k * r2 * t ** (-2 * b - 1)
        F_pm1 = np.where(inside, np.where(inside, F, 1.0) ** (p - 1), 0.0)
        return -a * t ** (-a - 1) * F**p + t ** (-a) * p * F_pm1 * F_t

    def laplacian_of_power(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``Lap(u^m)`` at ``(x, t)`` (``(n, d)``, ``(n,)``), in closed form, inside the
        support (zero outside; a measure on the front where ``grad u^m`` jumps, ``m``
        large, not returned).

        ``u^m = t^(-alpha m) F^(p+1)``, so ``Lap(u^m) = t^(-alpha m) (p + 1)
        (p F^(p-1) |grad F|^2 + F^p Lap F)`` with ``|grad F|^2 = 4 k^2 |x|^2 t^(-4 beta)``
        and ``Lap F = -2 k d t^(-2 beta)``.
        """
        r2, t, F = self._pieces(x, t)
        a, b, p, k, m = self.alpha, self.beta, self.p, self.k, self.m
        inside = F > 0
        F_pm1 = np.where(inside, np.where(inside, F, 1.0) ** (p - 1), 0.0)
        grad2 = 4 * k**2 * r2 * t ** (-4 * b)
        lap_F = -2 * k * self.d * t ** (-2 * b)
        return t ** (-a * m) * (p + 1) * (p * F_pm1 * grad2 + F**p * lap_F)

    def residual(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``u_t - Lap(u^m)`` at ``(x, t)`` (``(n, d)``, ``(n,)``): zero up to round-off
        inside the support, compare with :meth:`residual_scale`."""
        return self.time_derivative(x, t) - self.laplacian_of_power(x, t)

    def residual_scale(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``|u_t| + |Lap(u^m)|`` at ``(x, t)``: the size of the terms that cancel, against
        which the residual's round-off is measured."""
        return np.abs(self.time_derivative(x, t)) + np.abs(self.laplacian_of_power(x, t))


def constant_for_front(d: int, m: float, front: float, t: float) -> float:
    """The ``C`` whose Barenblatt solution's front is at radius ``front`` at time ``t``:
    ``C = k front^2 t^(-2 beta)`` (``k`` and ``beta`` do not depend on ``C``)."""
    shape = Barenblatt(d, m, 1.0)
    return shape.k * front**2 * t ** (-2 * shape.beta)
