"""The registered physics-informed problems (importing a module registers it)."""

from pderepro.training.pinn.problems import allen_cahn, convection  # noqa: F401  (registration)
from pderepro.training.pinn.problems.base import PROBLEMS, Problem, build_problem, gradient

__all__ = ["PROBLEMS", "Problem", "build_problem", "gradient"]
