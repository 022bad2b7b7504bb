"""The registered physics-informed problems (importing a module registers it)."""

from pderepro.training.pinn.problems import (  # noqa: F401  (registration)
    allen_cahn,
    ball,
    convection,
    helmholtz,
    klein_gordon,
    schrodinger,
)
from pderepro.training.pinn.problems.base import PROBLEMS, Problem, build_problem, gradient

__all__ = ["PROBLEMS", "Problem", "build_problem", "gradient"]
