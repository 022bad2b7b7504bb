"""Every study kind, by the ``kind`` value of a study file: one module each."""

from __future__ import annotations

from pderepro.studies import (
    closures,
    design,
    generative,
    neural_spectral,
    parametric,
    physics_informed,
    random_features,
    regimes,
    resolution,
)
from pderepro.studies.base import StudyKind

#: Every study kind, by the ``kind`` value of a study file.
KINDS: dict[str, StudyKind] = {m.KIND.name: m.KIND for m in (
    resolution, regimes, closures, parametric, physics_informed, random_features, neural_spectral,
    design, generative,
)}  # fmt: skip
