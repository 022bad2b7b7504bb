"""A compare claim of not being worse (``not_worse``): within noise counts as reproduced,
wholly worse is not reproduced, two points stay inconclusive."""

import pandas as pd

from pderepro.evaluation.claims_checks import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    check_table,
)

CHECK = {
    "kind": "compare", "table": "samples", "column": "d", "interval": ["low", "high"],
    "better": {"method": "pbfm"}, "than": {"method": "fm"}, "lower_is_better": True,
    "reference": "none", "not_worse": True,
}  # fmt: skip


def _table(pbfm, fm=(1.0, 0.9, 1.1)):
    rows = [("pbfm", *pbfm), ("fm", *fm)]
    return pd.DataFrame(rows, columns=["method", "d", "low", "high"])


def test_within_noise_is_not_worse_and_wholly_worse_is_not_reproduced():
    outcome = check_table(_table((1.05, 0.95, 1.15)), CHECK)
    assert outcome.verdict == REPRODUCED
    assert outcome.interval_low < 0 < outcome.interval_high  # the overlap: within noise
    assert check_table(_table((0.5, 0.4, 0.6)), CHECK).verdict == REPRODUCED  # better
    assert check_table(_table((2.0, 1.8, 2.2)), CHECK).verdict == NOT_REPRODUCED
    # without not_worse the overlap is inconclusive, as any compare
    plain = {k: v for k, v in CHECK.items() if k != "not_worse"}
    assert check_table(_table((1.05, 0.95, 1.15)), plain).verdict == INCONCLUSIVE


def test_two_points_are_not_called_not_worse():
    check = {k: v for k, v in CHECK.items() if k != "interval"}
    # a point below another point: the noise is unknown, so neither better nor "not worse"
    assert check_table(_table((0.95, 0.95, 0.95)), check).verdict == INCONCLUSIVE
