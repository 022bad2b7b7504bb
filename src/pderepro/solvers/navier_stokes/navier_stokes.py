"""Two-dimensional incompressible Navier-Stokes in vorticity form on a periodic box.

Solves ``w_t + u . grad w + beta v = nu Delta w - mu w + f`` on ``[0, L)^2`` with
``u = (u, v) = (psi_y, -psi_x)`` and ``-Delta psi = w``; the defaults ``L = 1``, ``mu = beta =
0`` and the FNO forcing are the problem of Li et al. 2021 (FNO, section 5.3), the drag, the
beta-plane term and the box size serve 2-D turbulence studies. Fields are stored as
``w[..., i, j] = w(x_i, y_j)`` with ``x_i = L i / n`` along the second-to-last axis and
``y_j = L j / n`` along the last ("ij" indexing); Fourier modes are integer wavenumbers
``k = (k_x, k_y)`` (angular wavenumber ``kappa = 2 pi k / L``) in ``torch.fft.rfft2`` layout.

Spatial discretisation: Fourier pseudo-spectral with the 2/3 rule. The advection term is
evaluated in Basdevant's form ``u . grad w = (d_xx - d_yy)(u v) + d_xy (v^2 - u^2)`` (the curl
of ``div(u u)``), which needs only ``u`` and ``v`` in physical space: 2 inverse + 2 forward real
2-D transforms per evaluation, against 4 + 1 for the advective form ``u w_x + v w_y``. The
velocity is built from the retained modes ``|k_x|, |k_y| < n / 3`` only and the result is
truncated to them, so the products are alias-free and the semi-discrete system is a Galerkin
truncation that conserves energy and enstrophy exactly when ``nu = mu = f = 0`` (beta
conserves both). Modes outside the 2/3 region (present only if ``w0`` has them) are not
advected; they decay under viscosity.
Because only the ``kc = (n - 1) // 3 + 1`` retained ``k_y`` columns are nonzero, the inverse
transform is pruned (a ``c2c`` along ``x`` on those columns, then ``irfft`` along ``y``, which
zero-pads), and the spectral products work on ``(batch, n, kc)`` arrays; the forward transform
is a full ``rfft2`` of the stacked ``(u v, v^2 - u^2)``, since slicing first costs more than it
saves.

Time discretisation: IMEX "AB2/CN", second order. The linear terms are Crank-Nicolson,
advection is second-order Adams-Bashforth, the (time-independent) forcing is explicit::

    (1 + h a / 2) w^{n+1} = (1 - h a / 2) w^n + h (f - 3/2 N^n + 1/2 N^{n-1}),
    a = nu |kappa|^2 + mu - i beta kappa_x / |kappa|^2.

All three linear terms are diagonal in Fourier space: ``v_hat = -i kappa_x psi_hat = -i
kappa_x w_hat / |kappa|^2``, so ``-beta v`` contributes ``i beta kappa_x / |kappa|^2`` to
``-a``. The beta term goes into the implicit part (a complex ``a``) rather than the explicit
one: CN maps this purely imaginary operator to a unimodular factor, so Rossby waves keep their
amplitude at any step (phase error ``(omega h)^2 / 12``), whereas AB2 amplifies imaginary
eigenvalues and would tie the step to ``beta / |kappa|_min``. Drag joins viscosity in the real
part. With ``beta = 0`` ``a`` stays real and the arithmetic is that of the unit-torus solver
for ``L = 1, mu = 0``.

The first step of a trajectory uses ``N^{-1} = N^0`` (forward Euler for advection, local error
``O(h^2)``, so the scheme stays globally second order). One advection evaluation per step gives
4 real 2-D FFTs per step (a Heun/CN predictor-corrector, as in the FNO data generator, needs two
evaluations, 8 FFTs here or 10 in advective form). The spectral state ``w_hat`` is carried
between steps, so ``w`` itself is never transformed forward; it is transformed back only when
recorded. Elementwise work per step: 9 passes over spectral or physical arrays, in preallocated
buffers.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

import numpy as np
import torch

from pderepro.solvers.common.errors import check_finite_samples
from pderepro.solvers.navier_stokes.problem import NavierStokesProblem
from pderepro.solvers.navier_stokes.torus import (
    complex_dtype,
    dealias_mask,
    default_device,
    wavenumbers,
)

__all__ = ["NavierStokesProblem", "NavierStokesStepper", "solve_navier_stokes"]

logger = logging.getLogger(__name__)

#: Start of the message of a :class:`SolverDivergedError`.
DIVERGED = "Navier-Stokes solve diverged: non-finite vorticity"

#: Steps between finiteness checks; checking every step costs a device sync per step.
_CHECK_EVERY = 100

#: Work-array budget per batch chunk on the CPU. Smaller chunks keep the arrays in cache but
#: add per-call overhead; 4 MiB measured best on a 2-core EPYC (1 MiB L2 per core, shared L3).
_CPU_CHUNK_BYTES = 4 << 20


class NavierStokesStepper:
    """AB2/CN stepper for batched ``rfft2`` vorticity coefficients (see the module docstring).

    The stepper keeps the advection term of the previous step, so it follows one batch of
    trajectories at a time; :meth:`reset` starts a new one. On the CPU the batch is processed in
    near-equal chunks whose work arrays fit in about 4 MiB: one sample per chunk at 256 x 256
    (about 1.4x faster than one pass for a batch of 4), two chunks of 10 for 64 x 64 batch 20.

    Parameters
    ----------
    problem : NavierStokesProblem
        Supplies viscosity, drag, beta, box size, step, resolution and forcing (other fields
        are ignored).
    device : str or torch.device, optional
        Defaults to CUDA when available, else CPU.
    dtype : torch.dtype
        Real dtype, float64 or float32; coefficients are complex of the matching precision.
    chunk_size : int, optional
        Most samples per chunk; default: the cache-sized chunk on the CPU, the whole batch on
        GPUs. The batch is split into ``ceil(batch / chunk_size)`` near-equal chunks.
    """

    def __init__(
        self, problem: NavierStokesProblem, *, device: str | torch.device | None = None,
        dtype: torch.dtype = torch.float64, chunk_size: int | None = None,
    ) -> None:  # fmt: skip
        self.problem = problem
        self.device = default_device(device)
        self.dtype = dtype
        self.cdtype = complex_dtype(dtype)
        n, h, nu = problem.resolution, problem.time_step, problem.viscosity
        length = problem.box_size
        self.resolution = n
        kx, ky = wavenumbers(n)
        k2 = kx**2 + ky**2
        mask = dealias_mask(n)
        inv_k2 = np.divide(1.0, k2, out=np.zeros_like(k2), where=k2 > 0)
        # kappa = 2 pi k / L; written so that L = 1, mu = 0 repeats the unit-torus arithmetic
        # exactly (dividing by 1 and adding 0 are exact), keeping the FNO data bit for bit.
        a_half = 0.5 * h * nu * (4.0 * np.pi**2 / length**2) * k2 + 0.5 * h * problem.drag
        if problem.beta != 0:
            # -beta v_hat = i beta kappa_x / |kappa|^2 w_hat; zero at k = 0 (inv_k2 = 0)
            a_half = a_half - 0.5j * h * problem.beta * (length / (2.0 * np.pi)) * kx * inv_k2
        b = h / (1.0 + a_half)
        # u_hat = i k_y L / (2 pi |k|^2) w_hat, v_hat = -i k_x L / (2 pi |k|^2) w_hat (that is
        # i kappa_y / |kappa|^2 and -i kappa_x / |kappa|^2), restricted to the retained modes;
        # stacked (2, 1, n, kc) so one product fills both.
        uv = np.stack([1j * ky * inv_k2, -1j * kx * inv_k2]) * mask / (2.0 * np.pi / length)
        # N_hat = -(4 pi^2 / L^2) [(k_x^2 - k_y^2) FFT(u v) + k_x k_y FFT(v^2 - u^2)] on retained
        # modes. The stepper stores K = -3/2 b N_hat, so these coefficients fold in -3/2 b.
        c_p = 6.0 * np.pi**2 / length**2 * b * (kx**2 - ky**2) * mask
        c_q = 6.0 * np.pi**2 / length**2 * b * (kx * ky) * mask
        forcing_hat = np.fft.rfft2(problem.forcing())

        def cplx(values: np.ndarray) -> torch.Tensor:
            return torch.as_tensor(values.astype(np.complex128), device=self.device).to(self.cdtype)

        # Retained k_y columns: the spectral arrays of the advection term are (..., n, kc).
        self.kc = kc = (n - 1) // 3 + 1
        # b is complex only with a beta term
        self._b = torch.as_tensor(b[:, :kc], device=self.device)
        self._b = self._b.to(self.cdtype if self._b.is_complex() else self.dtype)
        self._uv = cplx(uv[:, None, :, :kc])
        self._c_p, self._c_q = cplx(c_p[:, :kc]), cplx(c_q[:, :kc])
        decay = (1.0 - a_half) / (1.0 + a_half)
        self._decay_lo, self._decay_hi = cplx(decay[:, :kc]), cplx(decay[:, kc:])
        # The forcing rides on K: storing K + 3/2 b f_hat makes K^n - K^{n-1} / 3 carry the
        # b f_hat of the update, and the product that starts K adds it for free (no separate
        # indexed add per chunk). The FNO modes +-(1, 1) lie in the retained columns; the
        # Kolmogorov mode (0, k_f) does when k_f < n / 3.
        self._forced = problem.forcing_amplitude != 0
        if self._forced and np.abs(forcing_hat[:, kc:]).max() > 1e-12 * np.abs(forcing_hat).max():
            raise ValueError("the forcing must lie in the retained modes |k_y| < n / 3")
        # Whether the modes beyond the retained columns change at all (linear terms only).
        self._linear_hi = nu > 0 or problem.drag > 0 or problem.beta != 0
        self._k_forcing = cplx(1.5 * (b * forcing_hat)[:, :kc])
        if chunk_size is None and self.device.type == "cpu":
            # Real numbers per sample in the work arrays and the state (see _workspace).
            per_sample = (3 * n * n + 6 * n * (n // 2 + 1) + 4 * n * kc) * dtype.itemsize
            chunk_size = max(1, _CPU_CHUNK_BYTES // per_sample)
        self.chunk_size = chunk_size
        self._work: dict[tuple[int, ...], dict[str, torch.Tensor]] = {}
        self._history: tuple[torch.Tensor, torch.Tensor] | None = None
        self._started = False
        self._restart: torch.Tensor | None = None  # (batch,) bool, until the next step

    def reset(self) -> None:
        """Forget the previous advection term; the next step starts a new trajectory."""
        self._started = False
        self._history = None
        self._restart = None

    def advection_state(self) -> torch.Tensor | None:
        """The AB2 history a later job needs to go on stepping the same trajectory: the
        last step's advection term ``(batch, n, kc)`` (a copy), or None before the first
        step (the next step then starts afresh, Euler). Read it between steps."""
        if not self._started or self._history is None:
            return None
        return self._history[1].clone()

    def load_advection_state(self, previous: torch.Tensor | None) -> None:
        """Go on from :meth:`advection_state` of another stepper of the same problem: the
        next step is AB2 with ``previous`` as the last advection term (None: a new
        trajectory, as :meth:`reset`)."""
        self.reset()
        if previous is None:
            return
        previous = previous.to(device=self.device, dtype=self.cdtype)
        if previous.ndim != 3 or previous.shape[1:] != (self.resolution, self.kc):
            raise ValueError(
                f"advection state must be (batch, {self.resolution}, {self.kc}), "
                f"got {tuple(previous.shape)}"
            )
        history = torch.empty((2, *previous.shape), dtype=self.cdtype, device=self.device)
        history[1].copy_(previous)
        self._history = (history[0], history[1])
        self._started = True

    def restart(self, mask: np.ndarray | torch.Tensor) -> None:
        """Start the batch members ``mask`` (batch,) bool afresh at the next step (Euler
        start), after the caller has replaced their states; the others keep their AB2
        history. Before the first step every member starts afresh anyway."""
        if not self._started:
            return
        mask = torch.as_tensor(mask, dtype=torch.bool, device=self.device)
        self._restart = mask if self._restart is None else self._restart | mask

    def _workspace(self, shape: torch.Size) -> dict[str, torch.Tensor]:
        # Buffers reused across steps: fresh MB-sized tensors each step cost page faults.
        key = tuple(shape)
        # Scratch arrays for one chunk. Arrays whose lifetimes do not overlap share storage, to
        # keep the working set small: (u_hat, v_hat) lives in the physical buffer that (u, v)
        # later overwrites, and the half-transformed pair in the spectral buffer of the products.
        if key not in self._work:
            n, trimmed = self.resolution, (2, *key[:-1], self.kc)  # (2, batch, n, kc)
            real = {"dtype": self.dtype, "device": self.device}
            cplx = {"dtype": self.cdtype, "device": self.device}
            phys = torch.empty((3, *key[:-1], n), **real)  # (3, batch, n, n): u, v, u v
            spec = torch.empty((2, *key), **cplx)  # (2, batch, n, n // 2 + 1)
            size = math.prod(trimmed)
            self._work[key] = {
                "phys": phys,
                "uv_hat": phys.view(-1)[: 2 * size].view(self.cdtype).view(trimmed),
                "uv_x": spec.view(-1)[:size].view(trimmed),
                "spec": spec,
            }
        return self._work[key]

    def _advection(
        self, w_hat: torch.Tensor, k_new: torch.Tensor, *, forcing: bool = True
    ) -> torch.Tensor:
        """Write ``K = -3/2 b N_hat(w_hat)`` on the retained columns into ``k_new`` (batch, n, kc),
        plus ``3/2 b f_hat`` if ``forcing`` (see ``__init__``).

        FFTs: one pruned inverse and one full forward transform of a stacked pair of fields.
        """
        work = self._workspace(w_hat.shape)
        n, kc = self.resolution, self.kc
        phys, spec, uv_x = work["phys"], work["spec"], work["uv_x"]
        torch.mul(w_hat[..., :kc].unsqueeze(0), self._uv, out=work["uv_hat"])
        torch.fft.ifft(work["uv_hat"], dim=-2, out=uv_x)
        torch.fft.irfft(uv_x, n=n, dim=-1, out=phys[:2])  # u, v
        u, v = phys[0], phys[1]
        torch.mul(u, v, out=phys[2])  # u v
        v.mul_(v).addcmul_(u, u, value=-1.0)  # v^2 - u^2
        torch.fft.rfft2(phys[1:], out=spec)  # FFT(v^2 - u^2), FFT(u v)
        if forcing and self._forced:
            torch.addcmul(self._k_forcing, spec[1, ..., :kc], self._c_p, out=k_new)
        else:
            torch.mul(spec[1, ..., :kc], self._c_p, out=k_new)
        k_new.addcmul_(spec[0, ..., :kc], self._c_q)
        return k_new

    def nonlinear_hat(self, w_hat: torch.Tensor) -> torch.Tensor:
        """Dealiased advection term ``FFT(u . grad w)`` for ``w_hat`` (batch, n, n // 2 + 1).

        Same normalisation as ``w_hat`` (unnormalised ``rfft2``); returns a new tensor.
        """
        out = torch.zeros_like(w_hat)
        self._advection(w_hat, out[..., : self.kc], forcing=False)
        out[..., : self.kc] /= -1.5 * self._b
        return out

    def step_(self, w_hat: torch.Tensor) -> torch.Tensor:
        """Advance ``w_hat`` (batch, n, n // 2 + 1), complex, by one step in place."""
        shape = (*w_hat.shape[:-1], self.kc)
        if self._history is None or self._history[0].shape != shape:
            n = self.resolution
            if w_hat.ndim != 3 or tuple(w_hat.shape[1:]) != (n, n // 2 + 1) or self._started:
                raise ValueError(
                    f"w_hat must have shape (batch, {n}, {n // 2 + 1}), fixed within a "
                    f"trajectory; got {tuple(w_hat.shape)}"
                )
            history = torch.empty((2, *shape), dtype=self.cdtype, device=self.device)
            self._history = (history[0], history[1])
        k_new_all, k_old_all = self._history
        batch = w_hat.shape[0]
        n_chunks = -(-batch // (self.chunk_size or batch))
        bounds = [batch * i // n_chunks for i in range(n_chunks + 1)]
        for s, e in zip(bounds[:-1], bounds[1:], strict=True):
            w, k_new, k_old = (t[s:e] for t in (w_hat, k_new_all, k_old_all))
            self._advection(w, k_new)
            if not self._started:
                k_old.copy_(k_new)  # Euler start: N^{-1} = N^0
            elif self._restart is not None:
                fresh = self._restart[s:e]
                k_old[fresh] = k_new[fresh]  # Euler start of the restarted members only
            # w <- decay * w + K^n - K^{n-1} / 3 (which includes b f); K = 0 for k_y >= kc
            torch.add(k_new, k_old, alpha=-1.0 / 3.0, out=k_old)
            low = w[..., : self.kc]
            torch.addcmul(k_old, low, self._decay_lo, out=low)
            if self._linear_hi:
                w[..., self.kc :].mul_(self._decay_hi)
        self._started = True
        self._restart = None
        self._history = (k_old_all, k_new_all)
        return w_hat


def solve_navier_stokes(
    w0: torch.Tensor | np.ndarray,
    problem: NavierStokesProblem,
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
    progress: Callable[[int, float], None] | None = None,
) -> torch.Tensor:
    """Integrate the vorticity equation from ``w0`` and record every ``record_interval``.

    Parameters
    ----------
    w0 : torch.Tensor or numpy.ndarray
        Initial vorticity (1/time), shape ``(batch, n, n)`` or ``(n, n)`` with
        ``n = problem.resolution``, ``w0[..., i, j] = w(x_i, y_j)``.
    problem : NavierStokesProblem
        Equation parameters, step, resolution and recording interval.
    device : str or torch.device, optional
        Where to compute; defaults to CUDA when available, else CPU.
    dtype : torch.dtype
        Arithmetic precision, float64 (default) or float32.
    progress : callable, optional
        Called as ``progress(record_index, time)`` after each recorded time; each record is also
        logged at DEBUG level with the wall time.

    Returns
    -------
    torch.Tensor
        Vorticity at ``problem.record_times`` = ``0, record_interval, ..., t_final``, on
        ``device`` in ``dtype``: shape ``(batch, n_records + 1, n, n)`` (``(n_records + 1, n, n)``
        for a 2-D ``w0``). Index 0 is ``w0`` itself.

    Raises
    ------
    ValueError
        If ``w0`` has the wrong shape.
    SolverDivergedError
        If a non-finite value appears (checked every 100 steps and at each record); the message
        names the first offending sample and the time of detection.
    """
    device = default_device(device)
    w = torch.as_tensor(w0).to(device=device, dtype=dtype)
    squeeze = w.ndim == 2
    if squeeze:
        w = w.unsqueeze(0)
    n = problem.resolution
    if w.ndim != 3 or tuple(w.shape[1:]) != (n, n):
        raise ValueError(f"w0 must have shape (batch, {n}, {n}), got {tuple(w0.shape)}")
    stepper = NavierStokesStepper(problem, device=device, dtype=dtype)
    out = torch.empty((w.shape[0], problem.n_records + 1, n, n), dtype=dtype, device=device)
    out[:, 0] = w
    n_steps, per_record, h = problem.n_steps, problem.steps_per_record, problem.time_step
    logger.debug(
        "Navier-Stokes AB2/CN: batch=%d n=%d L=%g nu=%g mu=%g beta=%g forcing=%s h=%g steps=%d "
        "records=%d device=%s dtype=%s",
        w.shape[0], n, problem.box_size, problem.viscosity, problem.drag, problem.beta,
        problem.forcing_kind, h, n_steps, problem.n_records, device, dtype,
    )  # fmt: skip
    start = time.perf_counter()
    with torch.no_grad():
        w_hat = torch.fft.rfft2(w)  # (batch, n, n // 2 + 1)
        check_finite_samples(w_hat, DIVERGED, 0.0, 0, n_steps)
        step = 0
        for record in range(1, problem.n_records + 1):
            for _ in range(per_record):
                stepper.step_(w_hat)
                step += 1
                if step % _CHECK_EVERY == 0:
                    check_finite_samples(w_hat, DIVERGED, step * h, step, n_steps)
            check_finite_samples(w_hat, DIVERGED, step * h, step, n_steps)
            torch.fft.irfft2(w_hat, s=(n, n), out=out[:, record])
            logger.debug(
                "record %d/%d t=%g wall=%.1fs",
                record, problem.n_records, step * h, time.perf_counter() - start,
            )  # fmt: skip
            if progress is not None:
                progress(record, step * h)
    return out[0] if squeeze else out
