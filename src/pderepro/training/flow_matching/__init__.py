"""Flow matching and Physics-Based Flow Matching (PBFM) for joint generation of fields.

Groundwork for issue 49 (Baldan, Liu, Guardone, Thuerey 2025, arXiv 2506.08604): the
optimal-transport path, final-sample estimate and samplers (:mod:`.paths`), the discrete
Darcy residual of generated ``(K, p)`` fields (:mod:`.residuals`), and the training loop of
FM, weighted FM + residual, and PBFM's conflict-free (ConFIG) update (:mod:`.loop`).
"""

from pderepro.training.flow_matching.loop import (
    METHOD_KINDS,
    ChannelNormaliser,
    FlowMatchingRun,
    conflict_free_gradient,
    train_flow_matching,
)
from pderepro.training.flow_matching.paths import (
    check_sigma_min,
    clean_estimate,
    conditional_path,
    final_estimate,
    sample,
)
from pderepro.training.flow_matching.residuals import (
    darcy_boundary,
    darcy_residual,
    darcy_residual_loss,
)

__all__ = [
    "METHOD_KINDS",
    "ChannelNormaliser",
    "FlowMatchingRun",
    "check_sigma_min",
    "clean_estimate",
    "conditional_path",
    "conflict_free_gradient",
    "darcy_boundary",
    "darcy_residual",
    "darcy_residual_loss",
    "final_estimate",
    "sample",
    "train_flow_matching",
]
