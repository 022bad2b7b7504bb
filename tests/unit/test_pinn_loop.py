"""The physics-informed training loop and stages on tiny problems: determinism, the
history and snapshots, L-BFGS keeping its best iterate, and the stages end to end."""

import numpy as np
import pandas as pd
import pytest
import torch

from pderepro.training.pinn.loop import Budget
from tests.unit.tiny_pinn import train_tiny


def _run(sampler="r3", weighting="none", iterations=40, lbfgs=0, seed=0, snapshots=()):
    budget = Budget(iterations=iterations, learning_rate=1e-2, decay_every=20, decay_factor=0.5,
                    lbfgs_iterations=lbfgs, log_every=10)  # fmt: skip
    return train_tiny(sampler, weighting, budget, seed=seed, snapshot_iterations=snapshots)


@pytest.mark.parametrize("sampler", ["fixed", "uniform", "r3", "causal_r3", "rad", "rar_g"])
def test_runs_are_deterministic(sampler):
    first, _ = _run(sampler)
    second, _ = _run(sampler)
    assert [r["loss"] for r in first.history] == [r["loss"] for r in second.history]
    np.testing.assert_array_equal(first.prediction, second.prediction)


def test_history_logs_every_interval_and_snapshots_where_asked():
    run, _ = _run(snapshots=(0, 20, 40))
    assert [r["iteration"] for r in run.history] == [10, 20, 30, 40]
    assert {"loss", "validation_residual", "rel_l2", "n_points", "wall_s"} <= set(run.history[0])
    assert [s.iteration for s in run.snapshots] == [0, 20, 40]
    assert run.snapshots[0].residual.shape == (64, 128)
    assert run.prediction.shape == (9, 32)
    assert run.history[-1]["rel_l2"] < run.history[0]["rel_l2"] * 2  # finite, scored


def test_training_lowers_the_loss_and_lbfgs_keeps_its_best_iterate():
    run, model = _run(iterations=60, lbfgs=20)
    adam = [r for r in run.history if r["phase"] == "adam"]
    lbfgs = [r for r in run.history if r["phase"] == "lbfgs"]
    assert adam[-1]["loss"] < adam[0]["loss"]
    # the optimiser's own count: a block may end early at its evaluation limit
    assert lbfgs[-1]["iteration"] == 60 + 20 and run.lbfgs_iterations_taken == 20
    assert next(model.parameters()).dtype == torch.float64
    assert min(r["loss"] for r in lbfgs) <= adam[-1]["loss"]


def test_stages_end_to_end(tmp_path):
    """Reference, two runs, the table and the figures through the stage functions."""
    from pderepro.stages.physics_informed import (
        run_pinn_reference,
        run_pinn_tables,
        run_train_pinn,
    )
    from pderepro.stages.physics_informed_reports import run_plot_pinn
    from pderepro.studies.physics_informed import RUN_FILES

    reference = str(tmp_path / "data/reference/s/convection.nc")
    run_pinn_reference(output=reference, problem="convection", parameters={"beta": 2.0},
                       grid={"nx": 32, "nt": 9})  # fmt: skip
    spec = {
        "problem": "convection", "parameters": {"beta": 2.0},
        "network": {"width": 8, "depth": 2},
        "losses": {"n_collocation": 64, "n_initial": 32, "n_boundary": 16},
        "training": {"iterations": 20, "learning_rate": 1e-2, "decay_every": 10,
                     "decay_factor": 0.9, "lbfgs_iterations": 0},
    }  # fmt: skip
    methods = {"pinn_fixed": {"sampler": "fixed"}, "r3": {"sampler": "r3"}}
    metrics, histories, fields = [], [], []
    for key, method in methods.items():
        outputs = {k: str(tmp_path / v.format(study="s", problem="convection", method=key, seed=0))
                   for k, v in RUN_FILES.items()}  # fmt: skip
        settings = {"problem": spec, "log_every": 10, "snapshots": [0.0, 1.0],
                    "method": {"sampler_options": {}, "weighting": "none",
                               "weighting_options": {}, **method}}  # fmt: skip
        run_train_pinn(reference=reference, outputs=outputs, problem_key="convection",
                       method_key=key, seed=0, settings=settings)  # fmt: skip
        metrics.append(outputs["metrics"])
        histories.append(outputs["history"])
        fields.append(outputs["fields"])
    tables = {f"errors_{e}": str(tmp_path / f"errors.{e}") for e in ("csv", "md")}
    labels = {"pinn_fixed": "PINN", "r3": "R3"}
    run_pinn_tables(metrics=metrics, references=[reference], outputs=tables,
                    problems={"convection": {"label": "c", "iterations": 20,
                                             "problem": "convection",
                                             "parameters": {"beta": 2.0},
                                             "lbfgs_iterations": 0}},
                    methods=labels, published={}, preset="smoke")  # fmt: skip
    table = pd.read_csv(tables["errors_csv"])
    assert list(table["method"]) == ["pinn_fixed", "r3", "no_learning"]
    assert table["rel_l2_mean"].notna().all()
    # u0 held against sin(x - 2 t): a fixed, computable error
    x, t = np.arange(32) * 2 * np.pi / 32, np.linspace(0, 1, 9)
    u = np.sin(x[None] - 2 * t[:, None])
    held = np.linalg.norm(u - u[:1]) / np.linalg.norm(u)
    assert table["rel_l2_mean"].iloc[-1] == pytest.approx(held, rel=1e-5)
    for name in ("error_vs_iteration", "propagation_failure", "predictions"):
        figures = {e: str(tmp_path / f"{name}.{e}") for e in ("png", "pdf")}
        run_plot_pinn(histories=histories, fields=fields, references=[reference],
                      outputs=figures, name=name, title="t", problems={"convection": "c"},
                      methods=labels, figures={"failure_problem": "convection",
                                               "failure_methods": ["pinn_fixed", "r3"]},
                      )  # fmt: skip
        for path in figures.values():
            assert (tmp_path / path).stat().st_size > 1000
