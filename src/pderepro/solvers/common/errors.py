"""Exceptions shared by the numerical solvers."""

from __future__ import annotations

__all__ = ["SolverDivergedError"]


class SolverDivergedError(RuntimeError):
    """Raised when a solution develops non-finite values.

    Every solver (Burgers, Navier-Stokes, Lorenz-96) raises it with a message naming the
    first offending sample or trajectory and the time at which it was detected.
    """
