"""The run layout shared by the problem-by-method kinds (``physics_informed`` and
``neural_spectral``): a study trains every ``(problem, method, seed)`` as one job, each
problem's data (reference or test set) lands in one NetCDF file, and each run's outputs
under ``results/<study>/<problem>/runs/<method>/seed<seed>/``.

:class:`ProblemMethodRuns` holds what a kind's rules ask of those runs (paths, the
input functions over all of them, the benchmark files); each kind makes one from its own
``runs`` (which methods a problem runs differs between the kinds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pderepro.studies.base import BENCHMARKS

#: Where a problem's data lands: its reference solution, test inputs and pairs.
DATA = "data/reference/{study}/{problem}.nc"
#: The folder of one run's outputs.
RUN_DIR = "results/{study}/{problem}/runs/{method}/seed{seed}"

#: ``runs(study)``: every training job ``(problem, method, seed)`` in table order.
Runs = Callable[[Mapping[str, Any]], list[tuple[str, str, int]]]


def run_outputs(**files: str) -> dict[str, str]:
    """A training job's outputs by name: each file name below :data:`RUN_DIR`."""
    return {name: f"{RUN_DIR}/{file}" for name, file in files.items()}


def active_problems(study: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The problems the preset runs (``run``, default true: a laptop preset leaves out
    the paper's largest problems, the paper preset a laptop's smallest)."""
    return {key: spec for key, spec in study["problems"].items() if spec.get("run", True)}


class ProblemMethodRuns:
    """One kind's runs and the input functions its rules take over all of them.

    Parameters
    ----------
    outputs : dict of str to str
        A training job's outputs by name (:func:`run_outputs`).
    runs : callable
        ``runs(study)``: the study's ``(problem, method, seed)`` jobs, in table order.
    rule : str
        The training rule, whose benchmark file per run :meth:`benchmarks` lists.
    """

    def __init__(self, outputs: Mapping[str, str], runs: Runs, rule: str) -> None:
        self.outputs = dict(outputs)
        self.runs = runs
        self.rule = rule

    def run_file(self, kind: str, study: str, problem: str, method: str, seed: int) -> str:
        """The path of one of a run's outputs (``kind``, a key of :attr:`outputs`)."""
        return self.outputs[kind].format(study=study, problem=problem, method=method, seed=seed)

    def benchmarks(self, name: str, study: Mapping[str, Any]) -> list[str]:
        """The benchmark file of every training job of study ``name``."""
        pattern = BENCHMARKS[self.rule]
        return [
            pattern.format(study=name, problem=p, method=m, seed=s) for p, m, s in self.runs(study)
        ]

    def files(self, plan, study: str, kind: str) -> list[str]:
        """Output ``kind`` of every run of ``study`` in the plan, in table order."""
        return [self.run_file(kind, study, p, m, s) for p, m, s in self.runs(plan.studies[study])]

    def metric_files(self, plan, study: str, **_: Any) -> list[str]:
        """Every run's metrics file (input of the tables rule)."""
        return self.files(plan, study, "metrics")

    def history_files(self, plan, study: str, **_: Any) -> list[str]:
        """Every run's history file (input of the figures rule)."""
        return self.files(plan, study, "history")

    @staticmethod
    def data_files(plan, study: str, **_: Any) -> list[str]:
        """The data file of every problem the preset runs."""
        return [DATA.format(study=study, problem=p) for p in active_problems(plan.studies[study])]

    @staticmethod
    def train_gpus(plan, study: str, **_: Any) -> int:
        """GPUs of a training job: 1 where the study (its preset) asks for one."""
        return int(plan.studies[study]["gpu"])
