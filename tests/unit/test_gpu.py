"""CUDA paths (solver, bf16 training); collected everywhere, run only where a GPU is."""

import numpy as np
import pytest
import torch

from pderepro.models.normalised import NormalisedModel
from pderepro.models.registry import build_model
from pderepro.solvers.burgers.burgers import BurgersProblem, solve_burgers
from pderepro.solvers.common.random_fields import grf_periodic_1d
from pderepro.training.loop import TrainingConfig, train

pytestmark = pytest.mark.gpu


def test_burgers_on_cuda_matches_cpu():
    u0 = grf_periodic_1d(4, 256, rng=np.random.default_rng(0))
    problem = BurgersProblem(t_final=0.1, resolution=256)
    np.testing.assert_allclose(
        solve_burgers(u0, problem, device="cuda"),
        solve_burgers(u0, problem, device="cpu"),
        atol=1e-12,
    )


def test_fno_trains_on_cuda_with_bf16_autocast(tmp_path):
    torch.manual_seed(0)
    x = torch.randn(32, 128)
    y = 0.01 * torch.roll(x, 3, dims=1)
    net = build_model(
        "fno1d",
        {"modes": 16, "width": 32, "layers": 2, "projection": 64},
        resolution=128,
        n_train=32,
    )
    stats = {"input_mean": 0.0, "input_std": 1.0, "target_mean": 0.0, "target_std": 0.01}
    cfg = TrainingConfig(epochs=20, batch_size=8, amp_bf16=True, scheduler="constant")
    rows = train(
        NormalisedModel(net, stats),
        x,
        y,
        cfg,
        seed=0,
        device=torch.device("cuda"),
        identity={"gpu": True},
        resume_path=tmp_path / "resume.pt",
        progress=False,
    )
    assert all(np.isfinite(r["train_rel_l2"]) for r in rows)
    assert rows[-1]["train_rel_l2"] < 0.5 * rows[0]["train_rel_l2"]
