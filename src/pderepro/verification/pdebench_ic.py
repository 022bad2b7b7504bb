"""Verification of the PDEBench initial-condition law (rows of ``solvers.csv``).

:mod:`pderepro.solvers.common.pdebench_ic` implements the law of the released generator from its
description (docs/references.md). These rows test a few thousand draws against what the law
implies exactly: the share of samples with a doubled mode (two equal draws: 1/4), with
``|.|`` (0.1), with the window (0.1), with a negative sign (1/2), the mean number of constant
offsets (unselected candidates: 3 with probability 1/4, else 2, so 2.25), and the set of
mode numbers ``k c_k`` ({1, 2, 3, 4, 6, 8}, each doubled one with probability 1/16). Shares
are statistics of the drawn parameters; the field's statistics are measured on the
evaluated fields: the share with ``|mean| > 0.1``, against 0.88 from an independent
emulation of the released law (docs/references.md; no closed form), and the largest ``|u0|``,
which must exceed 2 (the old two-sine law's bound) and stay below the law's bound 4.

Each row's ``max_abs_error`` is ``|observed - expected|``; the row passes when it is at most
the tolerance in its ``case`` (four binomial standard deviations at the number of draws,
written into the case so that a reader sees the bar).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pderepro.solvers.common.pdebench_ic import (
    CANDIDATE_MODES,
    N_CELLS,
    SPEED_BOUND,
    cell_centres,
    sample_initial_conditions,
)
from pderepro.verification.table import COLUMNS, row

LAW = "pdebench_initial_law"
#: Share of samples with ``|mean u0| > 0.1`` measured by an independent emulation of the
#: released law on 20,000 draws (docs/references.md); its sampling sd there is 0.0023.
EMULATED_OFFSET_SHARE = 0.88
#: Tolerance in binomial standard deviations of the shares.
SIGMAS = 4.0


def law_statistics(n_draws: int = 4000, seed: int = 0) -> list[dict]:
    """Observed and expected statistics of ``n_draws`` initial conditions.

    Parameters
    ----------
    n_draws : int
        Number of initial conditions, each from ``default_rng((seed, i))``.
    seed : int
        First entropy word of the per-sample generators.

    Returns
    -------
    list of dict
        One dict per statistic: ``name``, ``observed``, ``expected``, ``tolerance``
        (dimensionless shares and counts; ``|u0|`` in velocity units).
    """
    if isinstance(n_draws, bool) or int(n_draws) != n_draws or n_draws < 100:
        raise ValueError(f"n_draws must be an integer >= 100, got {n_draws!r}")
    u0, ics = sample_initial_conditions(
        [np.random.default_rng((seed, i)) for i in range(n_draws)], cell_centres(N_CELLS)
    )  # (S, N)
    modes = np.array([ic.modes for ic in ics])  # (S, CANDIDATE_MODES), k c_k
    candidates = np.arange(1, CANDIDATE_MODES + 1)
    counts = modes // candidates  # c_k in {0, 1, 2}

    def share(name: str, hits: np.ndarray, p: float) -> dict:
        sd = math.sqrt(p * (1.0 - p) / n_draws)
        return {"name": name, "observed": float(np.mean(hits)), "expected": p,
                "tolerance": SIGMAS * sd}  # fmt: skip

    offsets = (counts == 0).sum(axis=1)  # 2 or 3 per sample
    offsets_sd = math.sqrt(0.25 * 0.75 / n_draws)  # offsets - 2 is Bernoulli(1/4)
    nonzero = set(np.unique(modes[modes > 0]).tolist())
    expected_set = {1, 2, 3, 4, 6, 8}
    peak = float(np.abs(u0).max())
    stats = [
        share("doubled mode (two equal draws)", (counts == 2).any(axis=1), 0.25),
        share("mode 8 (candidate 4 drawn twice)", modes[:, 3] == 8, 1.0 / 16.0),
        share("|u0| taken", np.array([ic.absolute for ic in ics]), 0.1),
        share("windowed", np.array([ic.windowed for ic in ics]), 0.1),
        share("negative sign", np.array([ic.sign < 0 for ic in ics]), 0.5),
        {"name": "mean number of constant offsets", "observed": float(offsets.mean()),
         "expected": 2.25, "tolerance": SIGMAS * offsets_sd},  # fmt: skip
        {"name": "mode numbers outside {1,2,3,4,6,8} or missing",
         "observed": float(len(nonzero ^ expected_set)), "expected": 0.0, "tolerance": 0.0},
        share("|mean u0| > 0.1 (field; expected from emulation)",
              np.abs(u0.mean(axis=1)) > 0.1, EMULATED_OFFSET_SHARE),  # fmt: skip
        {"name": f"max |u0| in (2, {SPEED_BOUND:g}) (field)", "observed": peak,
         "expected": 0.5 * (2.0 + SPEED_BOUND), "tolerance": 0.5 * (SPEED_BOUND - 2.0)},
    ]  # fmt: skip
    return stats


def initial_law_verification(n_draws: int = 4000, seed: int = 0) -> pd.DataFrame:
    """The law's statistics as verification rows (columns :data:`COLUMNS`).

    Parameters
    ----------
    n_draws, seed
        As :func:`law_statistics`.

    Returns
    -------
    pandas.DataFrame
        One row per statistic: ``resolution`` holds the number of draws, ``max_abs_error``
        ``|observed - expected|`` and the case its expectation, observation and tolerance.
    """
    rows = []
    for s in law_statistics(n_draws, seed):
        case = (
            f"{s['name']}: observed {s['observed']:.4g}, expected {s['expected']:.4g}, "
            f"tolerance {s['tolerance']:.2g}"
        )
        error = abs(s["observed"] - s["expected"])
        rows.append(row(LAW, case, n_draws, 0.0, error))
    return pd.DataFrame(rows, columns=COLUMNS)
