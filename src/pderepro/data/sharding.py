"""Split a dataset's samples into shards: one generation job per shard."""

from __future__ import annotations


def n_shards(n_samples: int, shard_size: int) -> int:
    """Number of shards needed for ``n_samples`` samples (ceil division)."""
    return -(-n_samples // shard_size)


def shard_bounds(n_samples: int, shard_size: int, shard: int) -> tuple[int, int]:
    """First sample index and sample count of ``shard``.

    Raises
    ------
    ValueError
        When the shard index is outside ``range(n_shards(n_samples, shard_size))``.
    """
    count = n_shards(n_samples, shard_size)
    if not 0 <= shard < count:
        raise ValueError(f"shard {shard} out of range: {n_samples} samples make {count} shards")
    start = shard * shard_size
    return start, min(shard_size, n_samples - start)
