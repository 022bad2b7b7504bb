"""The physics-informed errors table: published best seeds and copied baselines in rows of
their own, trained scalars against their reference, and the no-learning row."""

import numpy as np
import pandas as pd
import pytest

from pderepro.evaluation.pinn_tables import BEST_SEED, NO_LEARNING, PINN_RUN_COLUMNS, errors_table


def _runs():
    rows = []
    for method, errors, energies in (("pig", [0.3, 0.1, 0.2], [5.0, 5.2, 5.4]),
                                     ("pinn", [1.0, 2.0, 1.5], [4.0, 4.0, 4.0])):  # fmt: skip
        for seed, (error, energy) in enumerate(zip(errors, energies, strict=True)):
            rows.append({"problem": "p", "method": method, "seed": seed, "rel_l2": error,
                         "quantity": energy, "adam_iterations": 10,
                         "lbfgs_iterations": 0})  # fmt: skip
    return pd.DataFrame(rows).reindex(columns=PINN_RUN_COLUMNS)


def test_best_seeds_copied_baselines_and_quantities_have_their_rows():
    published = {
        "values": {"p": {"pig": 1e-3}},
        "best": {"p": {"pig": 5e-4}},
        "baselines": {"p": {"LRA": {"value": 3e-3, "source": "copied"}}},
        "unverified": {"p": ["LRA"]},
    }
    table, caption = errors_table(
        _runs(), {"p": ("zero (no learning)", 1.0, 5.2)},
        problems={"p": {"iterations": 10, "lbfgs_iterations": 0}},
        methods={"pig": "PIG", "pinn": "PINN"}, published=published, preset="quick",
    )  # fmt: skip
    rows = table.set_index("method")
    assert list(rows.index) == ["pig", "pinn", "pig" + BEST_SEED, "pinn" + BEST_SEED,
                                "published_LRA", NO_LEARNING]  # fmt: skip
    assert rows.loc["pig", "rel_l2_mean"] == pytest.approx(0.2)
    assert rows.loc["pig" + BEST_SEED, "rel_l2_mean"] == pytest.approx(0.1)
    assert rows.loc["pig" + BEST_SEED, "published"] == 5e-4
    assert np.isnan(rows.loc["pinn" + BEST_SEED, "published"])
    assert rows.loc["published_LRA", "published"] == 3e-3
    assert not rows.loc["published_LRA", "published_verified"]
    assert np.isnan(rows.loc["published_LRA", "rel_l2_mean"])  # never ours
    assert rows.loc["pig", "quantity_rel_error"] == pytest.approx(0.0)  # mean 5.2
    assert rows.loc["pig", "quantity_rel_error_max"] == pytest.approx(0.2 / 5.2)
    assert rows.loc[NO_LEARNING, "rel_l2_mean"] == 1.0
    assert "best seed" in caption and "not run here" in caption
