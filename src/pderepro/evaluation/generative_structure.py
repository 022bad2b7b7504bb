"""A distance between sets of fields that sees their spatial structure.

The energy distance of :mod:`pderepro.evaluation.generative_metrics` compares whole fields
by Euclidean distances, whose expectation over pairs depends on the pixels' variances
but hardly on their correlations in many dimensions: independent pixels with the right
means and variances (the pixelwise Gaussian) score as well as real fields. Between the
fields' forward differences the same distance separates them, since a two-valued
permeability and a smooth pressure have sparse, small differences where independent pixels
have large ones everywhere.
"""

from __future__ import annotations

import numpy as np

from pderepro.evaluation.generative_metrics import normalised_energy_distance


def gradient_fields(x: np.ndarray) -> np.ndarray:
    """Forward differences of ``(n, C, H, W)`` fields along both axes, ``(n, 2C, H-1, W-1)``
    (the fields' units per grid spacing; channel ``2c`` along axis -2, ``2c + 1`` along -1)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 4 or min(x.shape[-2:]) < 2:
        raise ValueError(f"expected (n, C, H, W) fields with H, W >= 2, got {x.shape}")
    along_h = np.diff(x, axis=-2)[..., :, :-1]  # (n, C, H-1, W-1)
    along_w = np.diff(x, axis=-1)[..., :-1, :]  # (n, C, H-1, W-1)
    return np.stack([along_h, along_w], axis=2).reshape(x.shape[0], -1, *along_h.shape[-2:])


def structure_distance(samples: np.ndarray, reference: np.ndarray) -> float:
    """Normalised energy distance (dimensionless, 0 for one distribution) between the
    forward differences of two sets of ``(n, C, H, W)`` fields, each difference channel
    divided by the reference's standard deviation of it (so every field weighs alike)."""
    a, b = gradient_fields(samples), gradient_fields(reference)
    scale = b.std(axis=(0, 2, 3))  # (2C,)
    if not np.all(scale > 0):
        raise ValueError("a reference difference channel is constant")
    scale = scale[None, :, None, None]
    return normalised_energy_distance(a / scale, b / scale)
