"""Viscous Burgers equation on the periodic unit interval.

Solves ``u_t + (u^2 / 2)_x = nu u_xx`` on ``x in [0, 1)`` with a Fourier pseudo-spectral
discretisation and ETDRK4 time stepping (Cox & Matthews 2002; Kassam & Trefethen 2005). The
stiff linear part ``L = -nu k^2`` is integrated exactly; the phi-function coefficients are
evaluated by a contour integral to avoid cancellation at small ``h L``. Also provides the exact
heat-equation propagator (the "no learning" baseline) and the Cole-Hopf solution for a sine
initial condition (used for verification).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.special import ive
from tqdm import tqdm

from pderepro.solvers.common.checks import check_count, check_divides, check_real
from pderepro.solvers.common.errors import check_finite_samples
from pderepro.solvers.common.etdrk4 import etdrk4_coefficients

logger = logging.getLogger(__name__)

#: Start of the message of a :class:`SolverDivergedError`.
DIVERGED = "Burgers solve diverged: non-finite values"

#: Steps between finiteness checks; checking every step costs a device sync per step.
_CHECK_EVERY = 50


@dataclass(frozen=True)
class BurgersProblem:
    """Parameters of the periodic Burgers problem on [0, 1).

    Attributes
    ----------
    viscosity : float
        Kinematic viscosity ``nu`` (length^2 / time).
    t_final : float
        Final time (time units).
    time_step : float
        ETDRK4 step ``h`` (time units); ``t_final / time_step`` must be an integer.
    resolution : int
        Number of grid points.
    """

    viscosity: float = 0.1
    t_final: float = 1.0
    time_step: float = 1e-3
    resolution: int = 1024

    def __post_init__(self) -> None:
        for name in ("viscosity", "t_final", "time_step"):
            check_real(name, getattr(self, name), positive=True)
        check_count("resolution", self.resolution, 4)
        check_divides("time_step", self.time_step, "t_final", self.t_final)

    @property
    def n_steps(self) -> int:
        """Number of time steps to reach ``t_final``."""
        return round(self.t_final / self.time_step)

    @property
    def dx(self) -> float:
        """Grid spacing (length units)."""
        return 1.0 / self.resolution

    @property
    def grid(self) -> np.ndarray:
        """Grid points ``x_j = j / resolution``, shape ``(resolution,)``."""
        return np.arange(self.resolution, dtype=np.float64) / self.resolution


def _default_device(device: str | torch.device | None) -> torch.device:
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def angular_wavenumbers(resolution: int) -> np.ndarray:
    """Angular wavenumbers ``k = 2 pi m`` of the rfft modes ``m = 0..resolution // 2``.

    Parameters
    ----------
    resolution : int
        Number of grid points on [0, 1).

    Returns
    -------
    numpy.ndarray
        Shape ``(resolution // 2 + 1,)``, units of 1/length.
    """
    return 2.0 * np.pi * np.arange(resolution // 2 + 1, dtype=np.float64)


class BurgersETDRK4:
    """Reusable ETDRK4 stepper for batched rfft coefficients of the periodic Burgers equation.

    Parameters
    ----------
    resolution : int
        Number of grid points on [0, 1).
    viscosity : float
        ``nu`` (length^2 / time).
    time_step : float
        Step ``h`` (time units).
    device : str or torch.device, optional
        Defaults to CUDA when available, else CPU.
    contour_points : int
        Contour points for the coefficient evaluation.
    """

    def __init__(
        self,
        resolution: int,
        viscosity: float,
        time_step: float,
        *,
        device: str | torch.device | None = None,
        contour_points: int = 64,
    ) -> None:
        self.resolution = int(resolution)
        self.device = _default_device(device)
        k = angular_wavenumbers(self.resolution)
        coeffs = etdrk4_coefficients(-viscosity * k**2, time_step, contour_points=contour_points)
        # The nonlinear factor g = -i k / 2 (zero on the 2/3-rule discarded modes) is folded
        # into the coefficients that multiply N, saving four complex products per step; all
        # coefficients are stored complex because complex-by-real products promote every call.
        # 2/3 rule: keep |m| < n/3 so quadratic aliases land only on discarded modes; this also
        # drops the Nyquist mode, whose derivative is not real-representable.
        m = np.arange(self.resolution // 2 + 1)
        g = np.where(m < self.resolution / 3.0, -0.5j * k, 0.0)

        def as_tensor(values: np.ndarray) -> torch.Tensor:
            return torch.as_tensor(values.astype(np.complex128), device=self.device)

        self.E = as_tensor(coeffs["E"])
        self.E2 = as_tensor(coeffs["E2"])
        self.g = as_tensor(g)
        self._qg = as_tensor(coeffs["Q"] * g)
        self._qg2 = as_tensor(2.0 * coeffs["Q"] * g)
        self._f1g = as_tensor(coeffs["f1"] * g)
        self._f2g2 = as_tensor(2.0 * coeffs["f2"] * g)
        self._f3g = as_tensor(coeffs["f3"] * g)

        self._work: dict[tuple[int, ...], dict[str, torch.Tensor]] = {}

    def _workspace(self, shape: torch.Size) -> dict[str, torch.Tensor]:
        # Fresh ~MB tensors each op cost page faults that exceed the arithmetic, so the stage
        # values live in buffers reused across steps (one set per batch shape).
        key = tuple(shape)
        if key not in self._work:
            real_shape = (*shape[:-1], self.resolution)
            cplx = {"dtype": torch.complex128, "device": self.device}
            self._work[key] = {
                "u": torch.empty(real_shape, dtype=torch.float64, device=self.device),
                **{name: torch.empty(key, **cplx) for name in ("w0", "wa", "wb", "wc", "e2v")},
                **{name: torch.empty(key, **cplx) for name in ("qw0", "a", "bc")},
            }
        return self._work[key]

    def _square_hat(self, v_hat: torch.Tensor, out: torch.Tensor, u: torch.Tensor) -> None:
        """Write ``FFT(u^2)`` (the nonlinearity without ``g``) into ``out``; ``u`` is scratch."""
        torch.fft.irfft(v_hat, n=self.resolution, dim=-1, out=u)
        u.mul_(u)
        torch.fft.rfft(u, dim=-1, out=out)

    def nonlinear(self, v_hat: torch.Tensor) -> torch.Tensor:
        """Dealiased ``N(v) = -(i k / 2) FFT(u^2)`` for rfft coefficients ``v_hat``."""
        u = torch.fft.irfft(v_hat, n=self.resolution, dim=-1)
        return self.g * torch.fft.rfft(u * u, dim=-1)

    def step_(self, v_hat: torch.Tensor) -> torch.Tensor:
        """Advance rfft coefficients ``v_hat`` (batch, n // 2 + 1) by one step, in place.

        Cox-Matthews ETDRK4: ``a = E2 v + Q N(v)``, ``b = E2 v + Q N(a)``,
        ``c = E2 a + Q (2 N(b) - N(v))``,
        ``v+ = E v + f1 N(v) + 2 f2 (N(a) + N(b)) + f3 N(c)``.
        """
        w = self._workspace(v_hat.shape)
        u, w0, wa, wb, wc = w["u"], w["w0"], w["wa"], w["wb"], w["wc"]
        e2v, qw0, a, bc = w["e2v"], w["qw0"], w["a"], w["bc"]
        self._square_hat(v_hat, w0, u)
        torch.mul(self.E2, v_hat, out=e2v)
        torch.mul(self._qg, w0, out=qw0)
        torch.add(e2v, qw0, out=a)
        self._square_hat(a, wa, u)
        torch.mul(self._qg, wa, out=bc)
        bc.add_(e2v)  # b
        self._square_hat(bc, wb, u)
        torch.mul(self.E2, a, out=bc)
        bc.addcmul_(self._qg2, wb).sub_(qw0)  # c
        self._square_hat(bc, wc, u)
        wa.add_(wb)
        v_hat.mul_(self.E)
        v_hat.addcmul_(self._f1g, w0).addcmul_(self._f2g2, wa).addcmul_(self._f3g, wc)
        return v_hat

    def step(self, v_hat: torch.Tensor) -> torch.Tensor:
        """Return ``v_hat`` advanced by one step, leaving the input unchanged."""
        return self.step_(v_hat.clone())


def solve_burgers(
    u0: np.ndarray,
    problem: BurgersProblem,
    *,
    device: str | torch.device | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Solve the periodic viscous Burgers equation from ``u0`` to ``problem.t_final``.

    Parameters
    ----------
    u0 : numpy.ndarray
        Initial velocities, shape ``(batch, problem.resolution)`` (or ``(resolution,)``),
        on the grid ``problem.grid``.
    problem : BurgersProblem
        Viscosity, final time, step and resolution.
    device : str or torch.device, optional
        Where to compute; defaults to CUDA when available, else CPU. Arithmetic is float64.
    progress : bool
        Show a tqdm progress bar over time steps (on stderr).

    Returns
    -------
    numpy.ndarray
        ``u(x, t_final)``, same shape as ``u0``, float64.

    Raises
    ------
    SolverDivergedError
        If a non-finite value appears (checked every 50 steps and at the end); the message
        names the first offending sample index and the time at which it was detected.
    """
    u0 = np.asarray(u0, dtype=np.float64)
    squeeze = u0.ndim == 1
    batch = u0[None, :] if squeeze else u0
    if batch.ndim != 2 or batch.shape[1] != problem.resolution:
        raise ValueError(f"u0 must have shape (batch, {problem.resolution}), got {tuple(u0.shape)}")
    stepper = BurgersETDRK4(problem.resolution, problem.viscosity, problem.time_step, device=device)
    n_steps = problem.n_steps
    logger.debug(
        "Burgers ETDRK4: batch=%d n=%d nu=%g h=%g steps=%d device=%s",
        batch.shape[0],
        problem.resolution,
        problem.viscosity,
        problem.time_step,
        n_steps,
        stepper.device,
    )
    with torch.no_grad():
        v_hat = torch.fft.rfft(torch.as_tensor(batch, device=stepper.device), dim=-1)
        for i in tqdm(
            range(1, n_steps + 1),
            disable=not progress,
            desc="burgers",
            unit="step",
            mininterval=2.0,
        ):
            stepper.step_(v_hat)
            if i % _CHECK_EVERY == 0 or i == n_steps:
                check_finite_samples(v_hat, DIVERGED, i * problem.time_step, i, n_steps)
        u = torch.fft.irfft(v_hat, n=problem.resolution, dim=-1).cpu().numpy()
    return u[0] if squeeze else u


def heat_solution(u0: np.ndarray, viscosity: float, t: float) -> np.ndarray:
    """Exact periodic solution of ``u_t = nu u_xx`` on [0, 1) at time ``t``.

    Parameters
    ----------
    u0 : numpy.ndarray
        Initial values on the uniform grid, shape ``(..., resolution)``.
    viscosity : float
        Diffusivity ``nu`` (length^2 / time).
    t : float
        Time (time units), non-negative.

    Returns
    -------
    numpy.ndarray
        Same shape as ``u0``, float64.
    """
    if viscosity < 0 or t < 0:
        raise ValueError(f"viscosity and t must be non-negative, got {viscosity}, {t}")
    u0 = np.asarray(u0, dtype=np.float64)
    n = u0.shape[-1]
    k = angular_wavenumbers(n)
    return np.fft.irfft(np.fft.rfft(u0, axis=-1) * np.exp(-viscosity * k**2 * t), n=n, axis=-1)


def cole_hopf_sine(x: np.ndarray, t: float, *, amplitude: float, viscosity: float) -> np.ndarray:
    """Exact Burgers solution for ``u(x, 0) = amplitude * sin(2 pi x)`` via Cole-Hopf.

    With ``phi_0 = exp(z cos 2 pi x)``, ``z = amplitude / (4 pi nu)``, the heat solution is
    ``phi = I_0(z) + 2 sum_n I_n(z) exp(-nu (2 pi n)^2 t) cos(2 pi n x)`` and
    ``u = -2 nu phi_x / phi``. Bessel functions are exponentially scaled (``scipy.special.ive``);
    the common factor ``exp(-|z|)`` cancels in the ratio.

    Parameters
    ----------
    x : numpy.ndarray
        Points (length units), 1-D.
    t : float
        Time (time units), non-negative.
    amplitude : float
        Sine amplitude ``A`` (velocity units).
    viscosity : float
        ``nu`` (length^2 / time), positive.

    Returns
    -------
    numpy.ndarray
        ``u(x, t)``, same shape as ``x``, float64.
    """
    if viscosity <= 0 or t < 0:
        raise ValueError(f"need viscosity > 0 and t >= 0, got {viscosity}, {t}")
    x = np.asarray(x, dtype=np.float64)
    z = amplitude / (4.0 * np.pi * viscosity)
    # I_n(z) decays like (z/2)^n / n! once n exceeds ~|z|; this many terms reach below 1e-17.
    n_terms = int(2.0 * abs(z) + 10.0 * math.sqrt(abs(z)) + 40)
    n = np.arange(1, n_terms + 1, dtype=np.float64)
    wn = 2.0 * np.pi * n
    weights = 2.0 * ive(n, z) * np.exp(-viscosity * wn**2 * t)
    theta = np.multiply.outer(x, wn)
    phi = ive(0, z) + np.cos(theta) @ weights
    phi_x = -(np.sin(theta) @ (weights * wn))
    return -2.0 * viscosity * phi_x / phi
