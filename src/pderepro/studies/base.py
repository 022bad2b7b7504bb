"""What every study kind provides, and the pieces kinds share.

A study kind is one module of :mod:`pderepro.studies` holding one :class:`StudyKind`:
the schema of its studies, the keys its presets may set, its cross-key checks, the
*units* (resolution-style training runs) and datasets its studies expand into, the
files a study produces (its targets), its summary section and the benchmark files of
its jobs, and how many jobs of each rule it adds (which the dry-run tests compare with
Snakemake's plan). Its rules' input functions and cost model live beside it in the same module,
as plain functions of the plan and the wildcards' values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pderepro.config import ConfigError
from pderepro.studies.claims_tables import TableSchema, table_columns

#: Benchmark file of each benchmarked rule (Snakemake wildcards in braces): the rules
#: declare them, and the kinds list them for the summary's wall times.
BENCHMARKS = {
    "generate_shard": "results/benchmarks/generate_shard/{dataset}/{split}-{shard}.tsv",
    "assemble_split": "results/benchmarks/assemble_split/{dataset}/{split}.tsv",
    "preprocess": "results/benchmarks/preprocess/{dataset}/res{res}.tsv",
    "train_model": "results/benchmarks/train_model/{study}/{model}/res{res}/seed{seed}.tsv",
    "train_segment": (
        "results/benchmarks/train_segment/{study}/{model}/res{res}/seed{seed}/segment{segment}.tsv"
    ),
    "validate_solvers": "results/benchmarks/validate_solvers/validate_solvers.tsv",
    "generate_truth": "results/benchmarks/generate_truth/{study}/{setup}/{role}.tsv",
    "train_generative": "results/benchmarks/train_generative/{study}/{method}/seed{seed}.tsv",
    "generate_truth_segment": (
        "results/benchmarks/generate_truth_segment/{study}/{setup}/{role}/segment{segment}.tsv"
    ),
    "coarse_grain": "results/benchmarks/coarse_grain/{study}/{setup}.tsv",
    "fit_closure": "results/benchmarks/fit_closure/{study}/{closure}.tsv",
    "evaluate_online": "results/benchmarks/evaluate_online/{study}/{closure}.tsv",
    "train_parametric": "results/benchmarks/train_parametric/{study}/{pde}/{run}/seed{seed}.tsv",
    "train_pinn": "results/benchmarks/train_pinn/{study}/{problem}/{method}/seed{seed}.tsv",
    "train_nsm_segment": (
        "results/benchmarks/train_nsm_segment/{study}/{problem}/{method}/seed{seed}/"
        "segment{segment}.tsv"
    ),
    "train_pinn_segment": (
        "results/benchmarks/train_pinn_segment/{study}/{problem}/{method}/seed{seed}/"
        "segment{segment}.tsv"
    ),
    "design_task": "results/benchmarks/design_task/{study}/{task}.tsv",
    "fit_random_features": (
        "results/benchmarks/fit_random_features/{study}/{dimension}/seed{seed}.tsv"
    ),
    "train_nsm": "results/benchmarks/train_nsm/{study}/{problem}/{method}/seed{seed}.tsv",
}
#: Training keys a preset may set: the optimiser's budget. A run of a few hundred steps
#: needs smaller batches, a larger rate and a decay over the whole run; the study's (the
#: paper's) settings apply otherwise.
TRAINING_BUDGET_KEYS = frozenset(
    {"epochs", "seeds", "checkpoint_every", "batch_size", "learning_rate", "scheduler"}
)
#: Caption of every cost table (results/<study>/tables/cost.csv).
COST_CAPTION = (
    "Wall time in seconds, per unit (regime), model and resolution: data_s_per_sample, the "
    "generation jobs' time (process start included) over the samples they made; train_s, "
    "one training job (mean over seeds); inference_s_per_sample, the surrogate on the test "
    "split; solver_s_per_sample, the solver (initial condition and solve) on the "
    "surrogate's grid; speedup, solver over surrogate per query; breakeven_queries, the "
    "queries after which data (n_build_samples: train and validation) plus training plus "
    "queries cost less than solving each query (inf: never). The devices are beside each "
    "figure; the solver rows are the no-learning reference."
)
#: Formats every figure is written in.
FIGURE_FORMATS = ("png", "pdf")
SCHEMA_DIR = Path(__file__).parent / "schemas"


def figure_files(study: str, names: list[str] | tuple[str, ...]) -> list[str]:
    """``results/<study>/figures/<name>.<ext>`` for every name and format."""
    return [f"results/{study}/figures/{n}.{ext}" for n in names for ext in FIGURE_FORMATS]


def published_cells(
    published: Mapping[str, Any], conditions: Mapping[Any, Mapping[str, Any]]
) -> dict[str, dict[Any, dict[str, Any]]]:
    """Every published value with the paper's conditions and its verified flag.

    Parameters
    ----------
    published : mapping
        A study's ``published`` block (``values``, ``unverified``).
    conditions : mapping
        ``{column: {"n_train": N, "t_final": T}}``: the paper's training samples and
        horizon (model time units; ``None`` for a steady map) behind each column
        (resolution or regime) that has a value.

    Returns
    -------
    dict
        ``{model: {column: {"value", "n_train", "t_final", "verified"}}}``, the form the
        table rules receive, so the tables need not know the config's layout.
    """
    unverified = published.get("unverified", {})
    return {
        model: {
            column: {
                "value": value,
                "n_train": conditions[column]["n_train"],
                "t_final": conditions[column].get("t_final"),
                "verified": column not in unverified.get(model, ()),
            }
            for column, value in values.items()
        }
        for model, values in published.get("values", {}).items()
    }


def _conditions_text(cell: Mapping[str, Any]) -> str:
    text = f"N = {cell['n_train']}"
    return text + (f", T = {cell['t_final']:g}" if cell["t_final"] is not None else "")


def published_caption(
    published: Mapping[str, Any],
    cells: Mapping[str, Mapping[Any, Mapping[str, Any]]],
    labels: Mapping[Any, str] | None = None,
) -> str:
    """The published numbers' source and the paper's N, T and epochs, for a caption.

    Written from ``cells`` (:func:`published_cells`), the numbers the tables show, so a
    caption cannot disagree with the ``published_n_train``/``published_t_final`` columns.
    ``labels`` names the columns (regime labels) where the conditions differ by column.
    """
    if not cells:
        return "No published numbers."
    by_column = {col: _conditions_text(c) for values in cells.values() for col, c in values.items()}
    if len(set(by_column.values())) == 1:
        conditions = next(iter(by_column.values()))
    else:
        labels = labels or {}
        order = [c for c in labels if c in by_column] + [c for c in by_column if c not in labels]
        conditions = "; ".join(f"{labels.get(c, c)}: {by_column[c]}" for c in order)
    epochs = published.get("epochs")
    return (
        f"Published: {published.get('source', 'source not given')}. The paper's conditions: "
        f"{conditions}{f'; {epochs} epochs' if epochs else ''}."
    )


def unverified_note(cells: Mapping[str, Mapping[Any, Mapping[str, Any]]]) -> str:
    """A caption sentence on the published values marked unverified ('' if none)."""
    if all(c["verified"] for values in cells.values() for c in values.values()):
        return ""
    return (
        " Published values with published_verified false were recalled, not read from the "
        "paper: treat them as approximate."
    )


def check_unverified(where: str, published: Mapping[str, Any]) -> None:
    """Each ``published.unverified`` entry names a model and column that has a value."""
    values = published.get("values", {})
    for model, columns in published.get("unverified", {}).items():
        for column in columns:
            if column not in values.get(model, {}):
                raise ConfigError(
                    f"config key '{where}.published.unverified.{model}': {column!r} has no "
                    f"published value (published.values.{model}: {sorted(values.get(model, {}))})"
                )


def table_files(study: str, names: list[str] | tuple[str, ...]) -> list[str]:
    """``results/<study>/tables/<name>.{csv,md}`` for every name."""
    return [f"results/{study}/tables/{n}.{ext}" for n in names for ext in ("csv", "md")]


@dataclass
class SummarySection:
    """A study's section of ``results/summary.md``.

    Attributes
    ----------
    title : str
        The study's title.
    tables : list of str
        Markdown tables, in order.
    metrics : list of str
        Per-run metrics files with a ``device`` column (where training ran); empty for
        kinds that train on the CPU only.
    report_tables : list of dict
        ``{"path": csv, "caption": str}`` of each table on the results page; captions say
        what was measured, under which preset and sizes, and the published conditions.
    figures : list of str
        PNG figures on the results page.
    """

    title: str
    tables: list[str]
    metrics: list[str] = field(default_factory=list)
    report_tables: list[dict[str, str]] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"title": self.title, "tables": self.tables, "metrics": self.metrics}

    def page(self) -> dict[str, Any]:
        """The study's part of the results page: tables with captions, figures."""
        return {"title": self.title, "report_tables": self.report_tables, "figures": self.figures}


def tables_and_figures_section(
    name: str, title: str, captions: Mapping[str, str], tables: Sequence[str],
    figures: Sequence[str], *, page_order: Sequence[str] | None = None,
) -> SummarySection:  # fmt: skip
    """The section of a study whose results are ``tables`` (Markdown in the summary, CSV
    with ``captions[table]`` on the results page, in ``page_order`` when given) and PNG
    ``figures``."""
    return SummarySection(
        title=title,
        tables=[f"results/{name}/tables/{t}.md" for t in tables],
        report_tables=[
            {"path": f"results/{name}/tables/{t}.csv", "caption": captions[t]}
            for t in (page_order or tables)
        ],
        figures=[f"results/{name}/figures/{f}.png" for f in figures],
    )


class StudyKind:
    """Base class of the study kinds; each kind module defines one subclass instance.

    Attributes
    ----------
    name : str
        The ``kind`` value in a study file.
    schema_def : str
        The ``$defs`` entry of its study schema, in ``schemas/<name>.yaml``.
    preset_keys : dict
        Sections a preset may set for a study of this kind, each with the keys allowed
        in it (``None``: the whole section). Sizes and run-length budgets only, never
        the science.
    """

    name: str = ""
    schema_def: str = ""
    preset_keys: dict[str, set[str] | None] = {}

    @property
    def schema_path(self) -> Path:
        return SCHEMA_DIR / f"{self.name}.yaml"

    def check(self, where: str, study: Mapping[str, Any]) -> None:
        """Cross-key rules a JSON schema cannot express; raise ConfigError naming the key."""

    def units(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Resolution units (trained by the generate ... evaluate rules), by unit name."""
        return {}

    def datasets(self, name: str, study: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Datasets generated by the generate/merge rules beyond its units', by name."""
        return {}

    def targets(self, name: str, study: Mapping[str, Any]) -> list[str]:
        """The files a study of this kind produces (tables and figures)."""
        raise NotImplementedError

    def summary(self, name: str, study: Mapping[str, Any], preset: str) -> SummarySection:
        """The study's section of ``results/summary.md`` and of the results page."""
        raise NotImplementedError

    def claim_tables(self, name: str, study: Mapping[str, Any]) -> dict[str, str]:
        """The CSV tables a study's claims may check, by name: every
        ``results/<name>/tables/<table>.csv`` among its targets."""
        prefix = f"results/{name}/tables/"
        return {
            t[len(prefix) : -len(".csv")]: t
            for t in self.targets(name, study)
            if t.startswith(prefix) and t.endswith(".csv")
        }

    def table_keys(self, study: Mapping[str, Any]) -> dict[str, dict[str, set[str]]]:
        """``{table: {key column: the values its rows take}}``, as the study file names
        them, for the dry-run check of the claims' filters; a column left out takes any
        value (a number, or a label the code makes)."""
        return {}

    def table_schemas(self, name: str, study: Mapping[str, Any]) -> dict[str, TableSchema]:
        """The declared columns (``schemas/tables.yaml``) and key values of the tables
        the study's claims may read."""
        keys = self.table_keys(study)
        out = {}
        for table in self.claim_tables(name, study):
            columns = table_columns(self.name, table, study)
            if columns is not None:
                values = {c: frozenset(v) for c, v in keys.get(table, {}).items()}
                out[table] = TableSchema(columns, values)
        return out

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        """Benchmark files of the study's jobs, for the summary's wall times."""
        return []

    def jobs(self, name: str, study: Mapping[str, Any]) -> Counter[str]:
        """Jobs per rule that the study adds to the workflow (its datasets included)."""
        raise NotImplementedError
