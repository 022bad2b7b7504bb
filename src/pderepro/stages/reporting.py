"""Reporting stages: tables, figures, solver verification and the summary page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from pderepro.data.io import atomic_write, open_netcdf
from pderepro.evaluation.summary import render_summary
from pderepro.evaluation.tables import resolution_table, write_table
from pderepro.solvers.lorenz96_verification import lorenz96_convergence
from pderepro.solvers.verification import burgers_convergence


def run_table(
    *,
    metrics: Sequence[str],
    csv: str,
    markdown: str,
    published: Mapping[str, Any],
    model_order: Sequence[str],
) -> None:
    """Aggregate per-run metrics into the resolution table beside the published numbers."""
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    table = resolution_table(frame, published=published.get("values", {}), model_order=model_order)
    write_table(table, csv, markdown, caption=f"published: {published.get('source', 'none')}")


def run_plot_resolution(
    *, metrics: Sequence[str], table: str, figures: Sequence[str], title: str
) -> None:
    """Figure of error against resolution from the evaluated metrics and the table."""
    from pderepro.plotting.figures import plot_error_vs_resolution

    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    plot_error_vs_resolution(frame, pd.read_csv(table), *figures, title=title)


def run_plot_samples(*, predictions: Sequence[str], figures: Sequence[str], n_samples: int) -> None:
    """Figure of test samples with every model's prediction."""
    from pderepro.plotting.figures import plot_samples_1d

    plot_samples_1d([open_netcdf(p) for p in predictions], *figures, n_samples=n_samples)


def run_validate_solvers(*, csv: str, figures: Sequence[str]) -> None:
    """Convergence of every solver against exact solutions: table and figure."""
    from pderepro.plotting.figures import plot_convergence

    table = pd.concat([burgers_convergence(), lorenz96_convergence()], ignore_index=True)
    atomic_write(csv, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    plot_convergence(table, *figures)


def run_summary(
    *,
    output: str,
    preset: str,
    studies: Mapping[str, dict],
    validation: str | None,
    benchmarks: Sequence[str],
) -> None:
    """Write ``results/summary.md``."""
    text = render_summary(
        preset=preset, studies=studies, validation_table=validation, benchmark_files=benchmarks
    )
    atomic_write(output, lambda tmp: Path(tmp).write_text(text))
