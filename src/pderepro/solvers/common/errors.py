"""Exceptions shared by the numerical solvers, and the check that raises one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__all__ = ["SolverDivergedError", "check_finite_samples"]


class SolverDivergedError(RuntimeError):
    """Raised when a solution develops non-finite values.

    Every solver (Burgers, Navier-Stokes, Lorenz-96) raises it with a message naming the
    first offending sample or trajectory and the time at which it was detected.
    """


def check_finite_samples(
    values: torch.Tensor, what: str, time: float, step: int, n_steps: int
) -> None:
    """Raise :class:`SolverDivergedError` if any sample of ``values`` is not finite.

    Parameters
    ----------
    values : torch.Tensor
        Shape ``(sample, ...)``, real or complex (a complex value is finite when both of
        its parts are), e.g. the Fourier coefficients of a batch.
    what : str
        The message's start, e.g. ``"Burgers solve diverged: non-finite values"``.
    time : float
        Model time of ``values`` (time units).
    step, n_steps : int
        Its time step, and the run's number of steps.

    Raises
    ------
    SolverDivergedError
        Naming the first non-finite sample, the time and the step.
    """
    finite = values.isfinite().flatten(1).all(dim=1)  # (sample,)
    if not bool(finite.all()):
        bad = int((~finite).nonzero()[0, 0])
        raise SolverDivergedError(
            f"{what} in sample {bad} detected at t={time:.6g} (step {step} of {n_steps})"
        )
