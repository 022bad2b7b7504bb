"""Published values with their conditions: the paper's N and T and a verified flag, from
the study config through the tables' columns and Markdown footnote to the figure."""

import numpy as np
import pandas as pd
import pytest

from pderepro.evaluation.tables import (
    RESOLUTION_COLUMNS,
    UNVERIFIED_FOOTNOTE,
    UNVERIFIED_MARK,
    resolution_table,
    unverified_rows,
    write_table,
)
from pderepro.plotting.figures import plot_error_vs_resolution, split_published
from pderepro.studies.base import published_caption, unverified_note
from pderepro.studies.regimes import regime_labels, regimes_published
from pderepro.studies.resolution import resolution_published
from tests.unit.configs import study


def test_navier_stokes_marks_the_values_the_references_mark_unverified():
    """The whole nu = 1e-4, N = 1000 column and FNO-2D at N = 10000; nothing else."""
    cfg = study("fno_navier_stokes", "paper")  # runs every regime
    cells = regimes_published(cfg)
    unverified = {(m, r) for m, row in cells.items() for r, c in row.items() if not c["verified"]}
    assert unverified == {
        ("fno3d", "nu1e-4"),
        ("fno2d", "nu1e-4"),
        ("unet", "nu1e-4"),
        ("resnet", "nu1e-4"),
        ("fno2d", "nu1e-4_n10000"),
    }
    assert cells["fno3d"]["nu1e-4_n10000"] == {
        "value": 0.082,
        "n_train": 10000,
        "t_final": 30.0,
        "verified": True,
    }
    caption = published_caption(cfg["published"], cells, regime_labels(cfg))
    assert "nu=1e-3: N = 1000, T = 50" in caption and "nu=1e-4, N=10000: N = 10000" in caption
    assert "published_verified false" in unverified_note(cells)
    # the smoke preset runs nu = 1e-3 only: its captions neither list nor flag the rest
    smoke = study("fno_navier_stokes")
    cells = regimes_published(smoke)
    assert {r for row in cells.values() for r in row} == {"nu1e-3"}
    assert "T = 30" not in published_caption(smoke["published"], cells, regime_labels(smoke))
    assert unverified_note(cells) == ""


CONDITIONS = [("fno_burgers", "N = 1000, T = 1; 500 epochs"), ("fno_darcy", "N = 1000; 500 epochs")]


@pytest.mark.parametrize(("name", "conditions"), CONDITIONS)
def test_resolution_captions_state_the_papers_n_and_t(name, conditions):
    published = study(name)["published"]
    cells = resolution_published(published)
    assert all(c["verified"] for row in cells.values() for c in row.values())
    assert published_caption(published, cells).endswith(f"conditions: {conditions}.")
    assert unverified_note(cells) == ""
    assert published_caption({}, {}) == "No published numbers."


def _metrics() -> pd.DataFrame:
    """Two test samples of one seed per model and resolution (errors 0.02, 0.04)."""
    rows = [
        {"model": m, "label": m.upper(), "resolution": s, "seed": 0, "sample": k,
         "rel_l2": e, "n_params": 0 if m == "heat" else 10, "val_rel_l2": np.nan}
        for m in ("fno", "heat") for s in (32, 64) for k, e in enumerate((0.02, 0.04))
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _table() -> pd.DataFrame:
    cell = {"n_train": 1000, "t_final": 1.0}
    published = {
        "fno": {
            32: {"value": 0.0149, "verified": True, **cell},
            64: {"value": 0.1559, "verified": False, **cell},
        }
    }
    return resolution_table(
        _metrics(), published=published, n_train=40, model_order=["fno", "heat"]
    )


def test_resolution_table_carries_both_n_and_the_verified_flag():
    table = _table()
    assert list(table.columns) == RESOLUTION_COLUMNS
    assert list(table["n_train"]) == [40] * 4
    assert list(table["published_n_train"].astype(object)) == [1000, 1000, pd.NA, pd.NA]
    assert list(table["published_verified"].astype(object)) == [True, False, pd.NA, pd.NA]
    assert list(unverified_rows(table)) == [False, True, False, False]


def test_markdown_footnotes_unverified_values_and_the_csv_stays_numeric(tmp_path):
    write_table(_table(), tmp_path / "t.csv", tmp_path / "t.md", caption="Published: paper.")
    csv = pd.read_csv(tmp_path / "t.csv")
    assert csv["published"].dtype == float and csv["published_n_train"].iloc[0] == 1000
    assert list(csv["published_verified"].iloc[:2]) == [True, False]
    assert (
        csv[["published", "published_n_train", "published_verified"]].iloc[2:].isna().all(axis=None)
    )
    text = (tmp_path / "t.md").read_text()
    assert f"0.1559 {UNVERIFIED_MARK}" in text
    assert f"0.0149 {UNVERIFIED_MARK}" not in text and "0.0149" in text
    table_end = text.index(UNVERIFIED_FOOTNOTE)
    assert text.index("Published: paper.") > table_end  # footnote right under the table
    assert "nan" not in text


def test_a_fully_verified_table_has_no_footnote(tmp_path):
    table = _table()
    table.loc[table["published"].notna(), "published_verified"] = True
    write_table(table, tmp_path / "t.csv", tmp_path / "t.md", caption="c")
    assert UNVERIFIED_MARK not in (tmp_path / "t.md").read_text()


def test_split_published_reads_the_flag_as_written_to_csv(tmp_path):
    _table().to_csv(tmp_path / "t.csv", index=False)
    table = pd.read_csv(tmp_path / "t.csv")
    verified, unverified = split_published(table)
    assert list(verified["resolution"]) == [32] and list(unverified["resolution"]) == [64]
    # a table from before the flag: every published value counts as verified
    verified, unverified = split_published(table.drop(columns="published_verified"))
    assert len(verified) == 2 and unverified.empty


def test_error_vs_resolution_draws_unverified_points(tmp_path):
    path = tmp_path / "error.png"
    plot_error_vs_resolution(_table(), str(path), title="synthetic")
    assert path.stat().st_size > 1000
