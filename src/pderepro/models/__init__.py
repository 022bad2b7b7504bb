"""pderepro.models: neural operators and baselines for 1-D maps ``(batch, n) -> (batch, n)``."""

from pderepro.models.registry import ARCHITECTURES, build_model, count_parameters

__all__ = ["ARCHITECTURES", "build_model", "count_parameters"]
