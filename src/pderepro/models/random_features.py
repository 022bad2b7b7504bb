"""Random-feature networks: one hidden layer drawn at random and frozen, a linear read-out
fitted by least squares.

The model on inputs ``z`` in ``[-1, 1]^D`` (a box mapped there coordinate by coordinate,
:class:`BoxScaling`) is

    f(z) = sum_j c_j tanh(a_j . z + b_j),   j = 1..N,

with ``a_j ~ N(0, s^2 I_D)`` and ``b_j ~ U(-s_b, s_b)`` drawn independently from a seeded
:class:`numpy.random.Generator` (``s = weight_scale``, ``s_b = bias_scale``), then frozen.
Only ``c`` (``(N,)``) is fitted, to the values of the target at ``M >= N`` sample points,
by linear least squares with a rank-revealing driver (LAPACK ``gelsd``: the SVD, singular
values below ``cond`` times the largest treated as zero). This is the setting of the
approximation result of Mehmood and Gonon (NeurIPS 2026, arXiv 2605.25057): the fit sees
values only, no PDE residual. No read-out bias: every term is one of the N neurons.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

#: Rows of the feature matrix built at once when predicting (bounds the memory to
#: ``PREDICT_CHUNK * N`` float64 values).
PREDICT_CHUNK = 4096


@dataclass(frozen=True)
class BoxScaling:
    """The affine map of the box ``prod [lo_i, hi_i]`` onto ``[-1, 1]^D``.

    Parameters
    ----------
    lows, highs : sequence of float
        ``(D,)`` ends of the box, in the inputs' units (``hi > lo``).
    """

    lows: tuple[float, ...]
    highs: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.lows) != len(self.highs) or not all(
            h > lo for lo, h in zip(self.lows, self.highs, strict=True)
        ):
            raise ValueError(f"need lows < highs of equal length, got {self.lows}, {self.highs}")

    def __call__(self, points: np.ndarray) -> np.ndarray:
        """``(n, D)`` points in the box -> ``(n, D)`` points in ``[-1, 1]^D``."""
        lo, hi = np.asarray(self.lows), np.asarray(self.highs)
        return 2.0 * (np.asarray(points, dtype=np.float64) - lo) / (hi - lo) - 1.0

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, D)`` points drawn uniformly in the box (the inputs' units)."""
        lo, hi = np.asarray(self.lows), np.asarray(self.highs)
        return lo + (hi - lo) * rng.random((n, len(self.lows)))


@dataclass
class FitInfo:
    """What a least-squares fit reports.

    Attributes
    ----------
    rank : int
        Effective rank of the ``(M, N)`` feature matrix (singular values above ``cond``
        times the largest).
    singular_ratio : float
        Largest over smallest singular value kept (the fit's condition number).
    fit_s : float
        Wall time of the features and the solve, seconds.
    """

    rank: int
    singular_ratio: float
    fit_s: float


@dataclass
class RandomFeatureModel:
    """``N`` frozen tanh features on ``[-1, 1]^D`` and a least-squares read-out.

    Parameters
    ----------
    n_features : int
        N, the random neurons.
    dim : int
        D, the input dimension (space and time together).
    seed : int, sequence of int or numpy.random.Generator
        The draws' seed (anything :func:`numpy.random.default_rng` takes; a generator's two
        spawned children are used): the same seed, the
        same features, and the first ``k`` features of a seed's model are its model with
        ``k`` features.
    weight_scale : float
        ``s``: each ``a_j ~ N(0, s^2 I_D)`` (default 1; inputs in ``[-1, 1]``, so ``s``
        sets the steepest slopes the features can take, about ``s sqrt(D)``).
    bias_scale : float
        ``s_b``: each ``b_j ~ U(-s_b, s_b)`` (default 1).

    Attributes
    ----------
    weights : numpy.ndarray
        ``(D, N)`` the ``a_j`` as columns.
    biases : numpy.ndarray
        ``(N,)`` the ``b_j``.
    readout : numpy.ndarray or None
        ``(N,)`` the fitted ``c`` (None before :meth:`fit`).
    """

    n_features: int
    dim: int
    seed: int | Sequence[int] | np.random.Generator = 0
    weight_scale: float = 1.0
    bias_scale: float = 1.0
    weights: np.ndarray = field(init=False, repr=False)
    biases: np.ndarray = field(init=False, repr=False)
    readout: np.ndarray | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.n_features < 1 or self.dim < 1:
            raise ValueError(f"need N >= 1 and D >= 1, got {self.n_features}, {self.dim}")
        if self.weight_scale <= 0 or self.bias_scale < 0:
            raise ValueError("need weight_scale > 0 and bias_scale >= 0")
        # one stream for the weights, one for the biases, each drawn feature by feature:
        # the first k features of a seed's model are its model with k features (nested)
        weight_rng, bias_rng = np.random.default_rng(self.seed).spawn(2)
        draws = weight_rng.standard_normal((self.n_features, self.dim))  # (N, D)
        self.weights = self.weight_scale * draws.T  # (D, N)
        self.biases = bias_rng.uniform(-self.bias_scale, self.bias_scale, self.n_features)

    def features(self, z: np.ndarray) -> np.ndarray:
        """``(n, D)`` scaled inputs -> ``(n, N)`` feature matrix ``tanh(z a + b)``."""
        z = np.asarray(z, dtype=np.float64)
        if z.ndim != 2 or z.shape[1] != self.dim:
            raise ValueError(f"need inputs (n, {self.dim}), got {z.shape}")
        return np.tanh(z @ self.weights + self.biases)

    def fit(self, z: np.ndarray, values: np.ndarray, cond: float | None = None) -> FitInfo:
        """Fit the read-out to ``values`` at ``z`` by least squares (``gelsd``).

        Parameters
        ----------
        z : numpy.ndarray
            ``(M, D)`` scaled sample points, ``M >= N`` (an overdetermined fit).
        values : numpy.ndarray
            ``(M,)`` the target's values there.
        cond : float, optional
            Singular values below ``cond`` times the largest count as zero (None: machine
            precision times ``max(M, N)``, LAPACK's default).

        Returns
        -------
        FitInfo
            The rank, the kept singular values' ratio and the wall time.
        """
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(z),):
            raise ValueError(f"need values ({len(z)},), got {values.shape}")
        if len(z) < self.n_features:
            raise ValueError(f"{len(z)} points for {self.n_features} features: underdetermined")
        start = time.perf_counter()
        phi = self.features(z)  # (M, N)
        coef, _, rank, singular = scipy.linalg.lstsq(
            phi, values, cond=cond, lapack_driver="gelsd", overwrite_a=True, check_finite=False
        )
        self.readout = coef
        return FitInfo(
            rank=int(rank),
            singular_ratio=float(singular[0] / singular[int(rank) - 1]),
            fit_s=time.perf_counter() - start,
        )

    def predict(self, z: np.ndarray) -> np.ndarray:
        """``(n, D)`` scaled inputs -> ``(n,)`` predictions (in chunks of
        :data:`PREDICT_CHUNK` rows)."""
        if self.readout is None:
            raise RuntimeError("fit the read-out first")
        z = np.asarray(z, dtype=np.float64)
        return np.concatenate(
            [self.features(z[i : i + PREDICT_CHUNK]) @ self.readout
             for i in range(0, len(z), PREDICT_CHUNK)] or [np.zeros(0)]
        )  # fmt: skip


def relative_l2(prediction: np.ndarray, truth: np.ndarray) -> float:
    """``||prediction - truth||_2 / ||truth||_2`` over points (a Monte Carlo estimate of the
    relative L2 error over the region they sample uniformly); dimensionless."""
    truth = np.asarray(truth, dtype=np.float64)
    return float(np.linalg.norm(np.asarray(prediction) - truth) / np.linalg.norm(truth))


def best_constant(values: Sequence[float] | np.ndarray) -> float:
    """The least-squares constant fit of ``values``: their mean (the no-learning
    reference: a read-out on one constant feature)."""
    return float(np.mean(values))
