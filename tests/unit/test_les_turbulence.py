"""The 2-D turbulence closure study's pieces: the CNN closure, the LES scores, the problems built
from the config, the closure checkpoints, and the stages on a tiny DNS (32^2 -> LES 16^2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from pderepro.data.turbulence_problems import dns_problem, les_problem
from pderepro.evaluation.les_scores import (
    a_posteriori_scores,
    advected_shells,
    field_statistics,
    load_les_closure,
    offline_scores,
)
from pderepro.models.les_cnn import CnnClosure, CnnClosureNet, build_cnn_closure_model
from pderepro.solvers.navier_stokes.torus import dealias_mask, sample_vorticity_grf
from pderepro.solvers.turbulence.les_closures import Smagorinsky
from pderepro.solvers.turbulence.les_filters import advected_part
from pderepro.training.checkpoint import CheckpointError, save_checkpoint

L = 2.0 * math.pi
SYSTEM = {
    "solver": "turbulence2d", "resolution": 32, "viscosity": 2e-2, "time_step": 1e-2,
    "box_size": L, "drag": 0.1, "forcing_kind": "kolmogorov_xy", "forcing_wavenumber": 2,
    "forcing_amplitude": 2.0,
    "les_resolution": 16, "filter": "sharp",
}  # fmt: skip
TRUTH = {
    "spinup_time": 1.0, "save_interval": 0.1, "climate_save_interval": 0.1,
    "pair_trajectories": 1, "pair_time": 3.0, "climate_members": 2, "climate_time": 1.0,
}  # fmt: skip
ONLINE = {"blowup_threshold": 200.0, "pdf": {"low": -10.0, "high": 10.0, "bins": 40},
          "tail_sigma": 3.0, "time_step": 0.02}  # fmt: skip
RUN = (0.0, 0.02, 1.0, 0.1)  # beta, time_step, run_time, record_interval of les_problem
SPLIT = {"train": 0.6, "validation": 0.2, "test": 0.2, "gap_time": 0.2}


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _fields(batch: int, n: int, seed: int = 0) -> torch.Tensor:
    return 3.0 * sample_vorticity_grf(batch, n, seed=seed, device="cpu")  # (batch, n, n)


def test_advected_shells_are_inside_the_two_thirds_rule():
    for n in (16, 32, 48, 64):
        k_max = advected_shells(n)
        kx = np.fft.fftfreq(n, 1.0 / n)[:, None]
        ky = np.arange(n // 2 + 1)[None, :]
        shell = np.rint(np.hypot(kx, ky))
        assert dealias_mask(n)[shell <= k_max].all(), n  # every mode scored is advected
        assert not dealias_mask(n)[shell == k_max + 1].all(), n  # and the range is the widest


def test_cnn_closure_is_periodic_translation_equivariant_and_trains_every_parameter():
    net = CnnClosureNet(channels=4, layers=3, kernel=3, input_std=(2.0, 0.5))
    fields = torch.randn(2, 2, 16, 16)
    out = net(fields)
    assert out.shape == (2, 16, 16)
    shifted = net(torch.roll(fields, shifts=(3, -5), dims=(-2, -1)))
    torch.testing.assert_close(shifted, torch.roll(out, shifts=(3, -5), dims=(-2, -1)))
    out.square().mean().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in net.parameters())
    with pytest.raises(ValueError, match="odd kernel"):
        CnnClosureNet(kernel=4)


def test_cnn_closure_computes_psi_itself_and_returns_the_model_in_physical_units():
    stats = {"w_std": 3.0, "psi_std": 0.4, "pi_mean": 0.1, "pi_std": 2.0}
    torch.manual_seed(0)
    model = build_cnn_closure_model({"channels": 4, "layers": 2, "kernel": 3}, stats)
    w = _fields(2, 16).double()
    pi = CnnClosure(model)(w, L)
    assert pi.shape == w.shape and pi.dtype == torch.float64
    # psi of -Lap psi = w: a single mode w = cos(x) has psi = cos(x)
    x = torch.arange(16, dtype=torch.float64) * L / 16
    mode = torch.cos(x)[:, None].expand(16, 16)[None]
    expected = model(torch.stack([mode, mode], dim=1).float()).double()
    torch.testing.assert_close(CnnClosure(model)(mode, L), expected)


def test_scores_of_a_field_set_against_itself_are_perfect_and_blow_ups_are_nan():
    w = _fields(6, 16).numpy()
    edges = np.linspace(-15, 15, 61)
    stats = field_statistics(w, L, edges)
    scores = a_posteriori_scores(stats, stats, w, k_max=advected_shells(16))
    assert scores["enstrophy_spectrum_log_error"] == pytest.approx(0.0, abs=1e-12)
    assert scores["energy_spectrum_log_error"] == pytest.approx(0.0, abs=1e-12)
    assert scores["pdf_hellinger"] == pytest.approx(0.0, abs=1e-12)
    assert scores["tail_ratio"] == pytest.approx(1.0)
    # doubled amplitude: spectra 4x (ln 4 everywhere), more mass in the tails
    doubled = a_posteriori_scores(field_statistics(2 * w, L, edges), stats, 2 * w, k_max=5)
    assert doubled["enstrophy_spectrum_log_error"] == pytest.approx(math.log(4.0))
    assert doubled["tail_ratio"] > 2.0
    blown = np.full_like(w, np.nan)
    assert field_statistics(blown, L, edges) is None
    assert all(math.isnan(v) for v in a_posteriori_scores(None, stats, blown, k_max=5).values())
    # blown-up runs are left out of the statistics of the others
    mixed = np.concatenate([w, blown])
    assert float(field_statistics(mixed, L, edges)["sigma"]) == pytest.approx(float(stats["sigma"]))


def test_offline_scores_of_the_exact_term_and_of_zero():
    w = _fields(3, 16).double()
    full = Smagorinsky(0.2)(w, L)
    pi = advected_part(full).numpy()  # what the LES uses of it
    assert np.abs(full.numpy() - pi).max() > 1e-3  # the band is there, and not scored
    scores, pred = offline_scores(Smagorinsky(0.2), w.numpy(), pi, L)
    assert scores["pi_correlation"] == pytest.approx(1.0) and scores["pi_rmse"] < 1e-12
    np.testing.assert_allclose(pred, pi)
    none = offline_scores(lambda f, box: torch.zeros_like(f), w.numpy(), pi, L)[0]
    assert math.isnan(none["pi_correlation"])


def test_les_problem_filters_the_forcing_like_the_fields():
    sharp = les_problem(SYSTEM, *RUN)
    assert sharp.resolution == 16 and sharp.forcing_amplitude == SYSTEM["forcing_amplitude"]
    gauss = les_problem({**SYSTEM, "filter": "gaussian"}, *RUN)
    gain = math.exp(-((2 * math.pi * 2 / 16) ** 2) / 24)  # G(kappa) at k_f = 2, Delta = L/16
    assert gauss.forcing_amplitude == pytest.approx(gain * SYSTEM["forcing_amplitude"])
    assert dns_problem(SYSTEM, 20.0).beta == 20.0
    for kind in ("kolmogorov", "kolmogorov_xy"):  # the kind reaches both problems
        system = {**SYSTEM, "filter": "gaussian", "forcing_kind": kind}
        assert dns_problem(system, 0.0).forcing_kind == les_problem(system, *RUN).forcing_kind
        assert les_problem(system, *RUN).forcing_amplitude == pytest.approx(gain * 2.0)


def test_les_problem_refuses_a_filter_that_reshapes_the_forcing(monkeypatch):
    import pderepro.data.turbulence_problems as problems

    def anisotropic(kind, n, n_les):  # damps (k, 0) but not (0, k)
        kx = np.fft.fftfreq(n, 1.0 / n)[:, None]
        return np.exp(-(kx**2) / 50.0) * np.ones((1, n // 2 + 1))

    monkeypatch.setattr(problems, "filter_transfer", anisotropic)
    single = les_problem({**SYSTEM, "forcing_kind": "kolmogorov"}, *RUN)  # at (0, k_f) only
    assert single.forcing_amplitude == pytest.approx(2.0)
    with pytest.raises(ValueError, match="gain differs"):
        les_problem(SYSTEM, *RUN)


def test_classical_checkpoints_rebuild_their_closure_and_refuse_others(tmp_path):
    path = tmp_path / "smag.pt"
    save_checkpoint(path, metadata={"closure": "smag", "kind": "smagorinsky", "constant": 0.1})
    closure, meta = load_les_closure(path, expect={"closure": "smag"})
    w = _fields(1, 16).double()
    torch.testing.assert_close(closure(w, L), Smagorinsky(0.1)(w, L))
    with pytest.raises(CheckpointError, match="closure"):
        load_les_closure(path, expect={"closure": "leith"})
    save_checkpoint(tmp_path / "bad.pt", metadata={"closure": "x", "kind": "fno"})
    with pytest.raises(CheckpointError, match="unknown LES closure kind"):
        load_les_closure(tmp_path / "bad.pt")


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory):
    from pderepro.stages import (
        run_coarse_grain_turbulence,
        run_generate_truth_turbulence,
        run_truth_floor_turbulence,
    )

    root = tmp_path_factory.mktemp("turbulence")
    for role in ("pairs", "climate"):
        run_generate_truth_turbulence(
            system=SYSTEM, beta=0.0, role=role, truth=TRUTH, seed=3,
            output=str(root / f"{role}.nc"), title="test",
        )  # fmt: skip
    run_coarse_grain_turbulence(
        raw=str(root / "pairs.nc"),
        outputs={s: str(root / f"{s}.nc") for s in ("train", "validation", "test")},
        les_resolution=16, filter="sharp", split=SPLIT,
    )  # fmt: skip
    run_truth_floor_turbulence(
        climates={"kf2": str(root / "climate.nc")}, system=SYSTEM, online=ONLINE,
        metrics=str(root / "truth.csv"), curves=str(root / "truth.nc"),
    )  # fmt: skip
    return root


@pytest.mark.parametrize(
    ("closure", "spec"),
    [
        ("leith", {"kind": "leith"}),
        ("cnn", {"kind": "cnn", "hparams": {"channels": 4, "layers": 2, "kernel": 3}}),
    ],
)
def test_fit_offline_and_online_stages_write_the_issue_columns(tiny_study, closure, spec):
    from pderepro.stages import (
        run_fit_closure_turbulence,
        run_offline_turbulence,
        run_online_turbulence,
    )

    root = tiny_study
    checkpoint = str(root / f"{closure}.pt")
    run_fit_closure_turbulence(
        train_path=str(root / "train.nc"), validation_path=str(root / "validation.nc"),
        checkpoint=checkpoint, closure=closure, spec=spec, system=SYSTEM, les_time_step=0.02,
        training={"epochs": 2, "batch_size": 4, "checkpoint_every": 1, "loss": "mse"},
        smarl=None, seed=0, blowup_threshold=200.0,
    )  # fmt: skip
    run_offline_turbulence(
        checkpoint=checkpoint, tests={"kf2": str(root / "test.nc")},
        metrics=str(root / f"{closure}-off.csv"), curves=str(root / f"{closure}-off.nc"),
        closure=closure,
    )  # fmt: skip
    offline = pd.read_csv(root / f"{closure}-off.csv")
    assert offline[["pi_correlation", "pi_rmse"]].notna().all().all()
    run_online_turbulence(
        checkpoint=checkpoint, climates={"kf2": str(root / "climate.nc")}, system=SYSTEM,
        setups={"kf2": 0.0}, closure=closure, online=ONLINE, spinup_time=0.4, run_time=1.0,
        record_interval=0.1, metrics=str(root / f"{closure}-on.csv"),
        curves=str(root / f"{closure}-on.nc"),
    )  # fmt: skip
    online = pd.read_csv(root / f"{closure}-on.csv")
    floor = pd.read_csv(root / "truth.csv")
    for row in (online.iloc[0], floor.iloc[0]):
        assert row["blowups"] == 0 and row["cost_ratio"] > 0
        assert 0 <= row["pdf_hellinger"] <= 1 and row["enstrophy_spectrum_log_error"] >= 0
    # the noise floor of two DNS ensembles beats an LES on the 16^2 grid
    assert (
        floor.iloc[0]["enstrophy_spectrum_log_error"]
        < online.iloc[0]["enstrophy_spectrum_log_error"]
    )


def test_stages_refuse_files_made_for_another_purpose(tiny_study):
    from pderepro.stages import run_coarse_grain_turbulence

    with pytest.raises(Exception, match="role"):
        run_coarse_grain_turbulence(
            raw=str(tiny_study / "climate.nc"), outputs={},
            les_resolution=16, filter="sharp", split=SPLIT,
        )  # fmt: skip


def test_noise_floor_keeps_the_unfiltered_dns_truth_statistics(tiny_study):
    from pderepro.data.io import open_netcdf

    curves = open_netcdf(tiny_study / "truth.nc")
    dns = curves.sel(case="kf2")
    # Parseval: the shell spectrum sums to 1/2 <w^2>, and the mean vorticity is zero
    assert float(dns["dns_enstrophy_spectrum"].sum()) == pytest.approx(
        0.5 * float(dns["dns_sigma"]) ** 2, rel=1e-6
    )
    # the filter removes variance: the DNS is rougher than its filtered field
    assert float(dns["dns_sigma"]) > float(dns["sigma_truth"])
    assert dns.sizes["shell_dns"] > dns.sizes["shell"]
    # the reference keeps only the modes the LES advects (|k_x|, |k_y| <= 5 on 16^2: shells <= 7)
    assert (dns["enstrophy_spectrum_truth"].sel(shell=slice(8, None)) < 1e-20).all()
    assert (dns["enstrophy_spectrum_truth"].sel(shell=slice(1, 5)) > 0).all()
