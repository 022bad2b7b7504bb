"""Error metrics of the evaluation stages.

The torch relative L2 error, which is also the training loss, is
:func:`pderepro.training.losses.relative_l2`; this module holds its numpy version.
"""

from __future__ import annotations

import numpy as np


def relative_l2_numpy(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Per-sample relative L2 error ``||pred - true||_2 / ||true||_2`` in float64.

    The numpy version of :func:`pderepro.training.losses.relative_l2` (the FNO paper's
    metric).

    Parameters
    ----------
    pred, true : numpy.ndarray
        ``(batch, *grid)``.

    Returns
    -------
    numpy.ndarray
        ``(batch,)``, float64.
    """
    pred = np.asarray(pred, dtype=np.float64).reshape(len(pred), -1)
    true = np.asarray(true, dtype=np.float64).reshape(len(true), -1)
    return np.linalg.norm(pred - true, axis=1) / np.linalg.norm(true, axis=1)
