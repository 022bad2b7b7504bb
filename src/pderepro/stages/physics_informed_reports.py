"""Stages of a physics-informed study that only read run outputs: the cost-scaling table
and the figures. Apart from :mod:`pderepro.stages.physics_informed` (the trainings, the
references and the errors table, whose no-learning rows need the problems' torch code)
so that these jobs import no torch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from pderepro.evaluation.pinn_tables import scaling_table
from pderepro.evaluation.tables import write_table
from pderepro.plotting.pinn import plot_pinn_figure


def run_pinn_scaling(
    *, metrics: Sequence[str], outputs: Mapping[str, str], problems: Mapping[str, Any],
    methods: Mapping[str, str], parameter: str,
) -> None:  # fmt: skip
    """The scaling table (CSV and Markdown): cost against the study's parameter."""
    runs = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    table, caption = scaling_table(runs, problems=problems, methods=methods, parameter=parameter)
    write_table(table, outputs["csv"], outputs["md"], caption=caption)


def run_plot_pinn(
    *, histories: Sequence[str], fields: Sequence[str], references: Sequence[str],
    outputs: Mapping[str, str], name: str, title: str, problems: Mapping[str, str],
    methods: Mapping[str, str], figures: Mapping[str, Any], metrics: Sequence[str] = (),
    scaling: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """One figure of the study (:func:`pderepro.plotting.pinn.plot_pinn_figure`)."""
    plot_pinn_figure(
        name=name, histories=histories, fields=fields, references=references,
        outputs=outputs, title=title, problems=problems, methods=methods, figures=figures,
        metrics=metrics, scaling=scaling,
    )  # fmt: skip
