"""The Neural Spectral Methods' forced Navier-Stokes problem: its spectral residual is the
exact residual of a band-limited space-time field, its grid residual converges to it at
second order and vanishes on the torus solver's solution, the reference converges, the
losses and predictions run, and only the paper preset plans the problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.interpolate import CubicSpline

from pderepro.config import ConfigError
from pderepro.evaluation.nsm_tables import errors_table
from pderepro.studies import make_plan
from pderepro.studies import neural_spectral_inputs as inputs
from pderepro.studies.neural_spectral import active_problems, runs
from pderepro.training.spectral import build_operator_network, build_operator_problem
from pderepro.training.spectral.basis import chebyshev_matrix, lobatto_nodes
from pderepro.training.spectral.navier_stokes import (
    ForcedNavierStokes,
    ns_grid_residual,
    ns_spectral_residual,
)
from tests.unit.configs import set_key
from tests.unit.test_config import BASE, _study_dir, resolve

NU, T, A = 0.02, 3.0, 0.1
#: ``a(s) phi(2 pi (k_x x + k_y y))``: polynomial coefficients of ``a`` in ``s = t / T``
#: (lowest first), ``(k_x, k_y)``, cos or sin; three shells, so the advection is not zero.
TERMS = [
    ((0.3, 0.5, -0.2), (1, 0), "cos"),
    ((0.0, 0.4, 0.0, -0.1), (1, 2), "sin"),
    ((0.2, 0.0, 0.3), (0, 2), "cos"),
]


def manufactured(s: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The field ``w`` and its residual ``w_t + u . grad w - nu Lap w - f`` by hand, at
    times ``s`` x ``(i / n, j / n)``, each ``(len(s), n, n)``."""
    x = np.arange(n) / n
    xx, yy = np.meshgrid(x, x, indexing="ij")  # (n, n): (x, y)
    fields = {k: np.zeros((len(s), n, n)) for k in ("w", "w_t", "w_x", "w_y", "lap", "px", "py")}
    for coeffs, (kx, ky), kind in TERMS:
        a = np.polynomial.polynomial.polyval(s, coeffs)[:, None, None]  # (nt, 1, 1)
        a_t = np.polynomial.polynomial.polyval(s, np.polynomial.polynomial.polyder(coeffs))
        a_t = a_t[:, None, None] / T
        theta = 2 * np.pi * (kx * xx + ky * yy)
        phi = np.cos(theta) if kind == "cos" else np.sin(theta)
        dphi = -np.sin(theta) if kind == "cos" else np.cos(theta)  # d phi / d theta
        k2 = 4 * np.pi**2 * (kx**2 + ky**2)
        fields["w"] += a * phi
        fields["w_t"] += a_t * phi
        fields["w_x"] += a * 2 * np.pi * kx * dphi
        fields["w_y"] += a * 2 * np.pi * ky * dphi
        fields["lap"] += -k2 * a * phi
        fields["px"] += a * 2 * np.pi * kx * dphi / k2  # psi = w_k / (4 pi^2 |k|^2)
        fields["py"] += a * 2 * np.pi * ky * dphi / k2
    f = A * (np.sin(2 * np.pi * (xx + yy)) + np.cos(2 * np.pi * (xx + yy)))
    u, v = fields["py"], -fields["px"]
    r = fields["w_t"] + u * fields["w_x"] + v * fields["w_y"] - NU * fields["lap"] - f
    return fields["w"], r


def test_the_spectral_residual_is_the_exact_residual_of_a_band_limited_field():
    """Degree 3 in t (the product 6 < 8 nodes), |k| <= 2 per axis (the product 4 < 16 / 2):
    the basis holds the residual, so its coefficients give it to round-off."""
    nt, n = 8, 16
    w, _ = manufactured(lobatto_nodes(nt), n)
    r_hat = ns_spectral_residual(torch.as_tensor(w)[None], NU, T, A)[0]  # (nt, n, n//2+1)
    values = torch.fft.irfft2(r_hat * n**2, s=(n, n)).numpy()  # (nt, n, n): Chebyshev index
    s = np.linspace(0.0, 1.0, 7)
    r = np.einsum("tm,mxy->txy", chebyshev_matrix(s, nt), values)
    _, exact = manufactured(s, n)
    assert np.abs(exact).max() > 0.5
    assert np.abs(r - exact).max() < 1e-10 * np.abs(exact).max()


def test_the_grid_residual_converges_to_the_exact_one_at_second_order():
    errors = []
    for n in (16, 32):
        s = np.linspace(0.0, 1.0, n + 1)
        w, exact = manufactured(s, n)
        r = ns_grid_residual(torch.as_tensor(w)[None], NU, T, A)[0].numpy()
        errors.append(np.abs(r - exact)[1:-1].max() / np.abs(exact).max())  # interior times
    # measured: 4.4e-2, 1.16e-2 (and 3.0e-3 at 64)
    assert errors[1] < 2e-2 and 3.5 < errors[0] / errors[1] < 4.5


def _small_problem() -> ForcedNavierStokes:
    return ForcedNavierStokes(nu=2e-3, t_final=5.0, nodes=16)


def test_the_solver_solution_has_a_small_spectral_residual():
    """The torus solver and the residual agree on the equation (signs of u, v and f): the
    residual of its solution (a cubic spline in t onto 16 Lobatto nodes) is far below that
    of -w with -f, which solves the equation only if advection vanished (it does not)."""
    problem = _small_problem()
    w0 = problem.sample_inputs(2, np.random.default_rng(0))
    w = problem.reference(w0, {"nt": 201, "nx": 32, "ny": 32}, {"nx": 32, "steps": 2000})
    w = CubicSpline(np.linspace(0.0, 1.0, 201), w, axis=1)(lobatto_nodes(16))
    w = torch.as_tensor(w)  # (2, 16, 32, 32)
    r = ns_spectral_residual(w, problem.nu, problem.t_final, problem.amplitude)
    flipped = ns_spectral_residual(-w, problem.nu, problem.t_final, -problem.amplitude)
    # measured 1.2e-5 against 0.12 at 8000 steps (the solver's time error)
    assert r.abs().max() < 1e-3 * flipped.abs().max()


def test_the_reference_at_two_resolutions_agrees():
    """32 and 64 points per side agree to 1.6e-7 (the Fourier content beyond the 2/3 rule's
    |k| < 10.7 is that small), 500 and 1000 steps to 7e-6 (1000 and 2000: 1.8e-6, order 2)."""
    problem = _small_problem()
    w0 = problem.sample_inputs(2, np.random.default_rng(1))
    grid = {"nt": 6, "nx": 16, "ny": 16}
    coarse = problem.reference(w0, grid, {"nx": 32, "steps": 500})
    fine = problem.reference(w0, grid, {"nx": 64, "steps": 500})
    finer = problem.reference(w0, grid, {"nx": 64, "steps": 1000})
    assert coarse.shape == (2, 6, 16, 16)
    np.testing.assert_allclose(coarse[:, 0], fine[:, 0], atol=1e-12)  # w0 on the grid
    norm = np.linalg.norm(finer)
    assert np.linalg.norm(fine[:, -1] - fine[:, 0]) > 0.1 * np.linalg.norm(fine[:, 0])  # moves
    assert np.linalg.norm(coarse - fine) < 1e-6 * norm
    assert np.linalg.norm(fine - finer) < 2e-5 * norm


TINY = {"width": 4, "modes": 4, "layers": 2, "projection": 8}
METHODS = [
    {"kind": "spectral", "n": 16, "nt": 8},  # the inputs' 16 nodes: w0 exact
    {"kind": "grid", "n": 8},
    {"kind": "supervised", "n": 8},
]


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m["kind"])
def test_loss_and_predict_run_at_a_tiny_size(method):
    problem = _small_problem()
    net = build_operator_network(TINY, problem, seed=0)
    assert type(net).__name__ == "FNO3d"
    inputs = problem.sample_inputs(2, np.random.default_rng(2))
    x = torch.as_tensor(inputs, dtype=torch.float32)
    targets = None
    if method["kind"] == "supervised":
        sizes = problem.method_grid(method)
        solved = problem.reference(inputs, sizes, {"nx": 16, "steps": 100})
        assert solved.shape == (2, 8, 8, 8)
        targets = torch.as_tensor(solved, dtype=torch.float32)
    loss = problem.loss(net, x, method, targets)
    assert loss.ndim == 0 and torch.isfinite(loss)
    loss.backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in net.parameters())
    grid = {"nt": 5, "nx": 16, "ny": 16}
    with torch.no_grad():
        u = problem.predict(net, x, method, grid)
    assert u.shape == (2, 5, 16, 16) and torch.isfinite(u).all()
    w0 = problem.no_learning(inputs, np.zeros((2, 5, 16, 16)))[1][:, 0]
    np.testing.assert_allclose(u[:, 0].numpy(), w0, atol=1e-5)  # exact initial condition


def test_the_problem_is_registered_with_the_study_parameters():
    problem = build_operator_problem(
        "navier_stokes_forced",
        {"nu": 2e-3, "t_final": 50, "forcing_amplitude": 0.1, "length_scale": 0.8, "nodes": 64},
    )
    w0 = problem.sample_inputs(3, np.random.default_rng(0))
    assert w0.shape == (3, 64, 64) and np.abs(w0.mean(axis=(1, 2))).max() < 1e-12
    t, x, y = problem.test_grid({"nt": 51, "nx": 64, "ny": 64})
    assert t[-1] == 50 and t[1] == 1 and x[1] == y[1] == 1 / 64


@pytest.mark.parametrize(("preset", "planned"), [("smoke", False), ("quick", False),
                                                 ("paper", True)])  # fmt: skip
def test_only_the_paper_preset_plans_the_problem(preset, planned):
    config = resolve({**BASE, "preset": preset, "studies": ["nsm"]})
    study = config["study"]["nsm"]
    keys = [k for k, v in study["problems"].items() if v["problem"] == "navier_stokes_forced"]
    assert keys, "the study file names the problem"
    assert (keys[0] in active_problems(study)) == planned
    in_runs = {p for p, _, _ in runs(study)}
    assert (keys[0] in in_runs) == planned
    counts = make_plan(config).job_counts()
    assert counts["nsm_data"] == len(active_problems(study))


def test_the_paper_runs_its_methods_with_its_network():
    """ns_forced runs nsm, pinn64 and supervised only, each with an FNO3d of modes 8; its
    errors table has rows for those and the no-learning row only."""
    config = resolve({**BASE, "preset": "paper", "studies": ["nsm"]})
    study = config["study"]["nsm"]
    assert [m for p, m, s in runs(study) if p == "ns_forced" and s == 0] == [
        "nsm", "pinn64", "supervised"]  # fmt: skip
    plan = make_plan(config)
    settings = inputs.train_params(plan, "nsm", "ns_forced", "pinn64")
    assert settings["network"] == {**study["network"], "modes": 8, "modes_time": 8}
    assert inputs.train_params(plan, "nsm", "poisson", "nsm")["network"] == study["network"]
    tables = inputs.tables_params(plan, "nsm")
    assert tables["problems"]["ns_forced"]["methods"] == ["nsm", "pinn64", "supervised"]
    rows = pd.DataFrame([{"problem": "ns_forced", "method": "nsm", "seed": 0, "rel_l2_pct": 1.0,
                          "s_per_iteration": 0.1, "train_s": 1.0,
                          "inference_s_per_instance": 1e-3, "peak_memory_mb": 1.0,
                          "projected_s": float("nan")}])  # fmt: skip
    problems = {"ns_forced": tables["problems"]["ns_forced"]}
    errors = errors_table(rows, {"ns_forced": ("held", 50.0)}, problems=problems,
                          methods=tables["methods"], published={})  # fmt: skip
    assert list(errors["method"]) == ["nsm", "pinn64", "supervised", "no_learning"]


def test_a_problem_naming_an_unknown_method_fails(tmp_path):
    config_dir = _study_dir(tmp_path, set_key("problems.ns_forced.methods", ["nsm", "pinn32"]),
                            name="nsm")  # fmt: skip
    with pytest.raises(ConfigError, match=r"problems.ns_forced.methods.*pinn32"):
        resolve({**BASE, "preset": "paper"}, config_dir=config_dir)
