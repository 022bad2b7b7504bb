"""Seeds derived from (dataset seed, split, sample index), recorded in every output.

Each sample gets its own seed, so the data do not depend on how samples are sharded
into jobs, and any single sample can be regenerated from its recorded seed.
"""

from __future__ import annotations

import numpy as np

#: Fixed integer code of each split, part of every derived seed.
SPLIT_CODES: dict[str, int] = {"train": 0, "test": 1, "validation": 2}


def sample_seeds(base_seed: int, split: str, start: int, count: int) -> np.ndarray:
    """Seeds of samples ``start .. start+count-1`` of a split.

    Parameters
    ----------
    base_seed : int
        The dataset's seed from the study config.
    split : str
        One of :data:`SPLIT_CODES`.
    start, count : int
        First sample index and number of samples.

    Returns
    -------
    numpy.ndarray
        ``(count,)`` uint32 seeds, one per sample.
    """
    if split not in SPLIT_CODES:
        raise ValueError(f"unknown split {split!r}; expected one of {sorted(SPLIT_CODES)}")
    code = SPLIT_CODES[split]
    return np.array(
        [
            np.random.SeedSequence([base_seed, code, i]).generate_state(1, dtype=np.uint32)[0]
            for i in range(start, start + count)
        ],
        dtype=np.uint32,
    )
