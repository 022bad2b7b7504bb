"""Neural Spectral Methods: operators trained by the spectral residual, grid PINN losses or
solver data (docs/references.md).

Importing the package registers its problems (:mod:`.poisson`, :mod:`.reaction_diffusion`,
:mod:`.navier_stokes`).
"""

from pderepro.training.spectral import (  # noqa: F401  (registers)
    navier_stokes,
    poisson,
    reaction_diffusion,
)
from pderepro.training.spectral.loop import (
    OperatorRun,
    build_operator_network,
    evaluate_operator,
    train_operator,
)
from pderepro.training.spectral.problems import (
    OPERATOR_PROBLEMS,
    OperatorProblem,
    build_operator_problem,
    register_operator_problem,
)

__all__ = [
    "OPERATOR_PROBLEMS",
    "OperatorProblem",
    "OperatorRun",
    "build_operator_network",
    "build_operator_problem",
    "evaluate_operator",
    "register_operator_problem",
    "train_operator",
]
