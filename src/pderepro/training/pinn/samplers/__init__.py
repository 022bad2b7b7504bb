"""The registered collocation samplers and residual-loss weightings (importing registers them).

Samplers: ``fixed``, ``uniform`` (:mod:`.basic`), ``rar_g``, ``rad`` (:mod:`.adaptive`),
``r3``, ``causal_r3`` (:mod:`.r3`). Weightings: ``none``, ``causal`` (:mod:`.causal`).
"""

from pderepro.training.pinn.samplers import adaptive, basic, causal, r3  # noqa: F401  (registration)
from pderepro.training.pinn.samplers.base import (
    SAMPLERS,
    WEIGHTINGS,
    Sampler,
    Weighting,
    build_sampler,
    build_weighting,
)

__all__ = ["SAMPLERS", "WEIGHTINGS", "Sampler", "Weighting", "build_sampler", "build_weighting"]
