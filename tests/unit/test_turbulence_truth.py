"""Truth data of forced 2-D turbulence: spun-up DNS snapshots, their LES pairs and the truth
statistics (issue 17). Tiny grids and a few hundred steps: a smoke of the machinery, not of the
physics (that evidence is in the module docstring of ``pderepro.data.turbulence``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import xarray as xr

from pderepro.data.turbulence import (
    SOLVER,
    member_seeds,
    spin_up_and_snapshots,
    turbulence_problem,
)
from pderepro.data.turbulence_pairs import filtered_pairs
from pderepro.evaluation.turbulence_truth import truth_statistics
from pderepro.solvers.navier_stokes.torus import dealias_mask
from pderepro.solvers.turbulence.les_filters import advection, coarse_grain

N = 32
RUN = {"spin_up_time": 1.0, "n_snapshots": 3, "snapshot_interval": 0.25, "series_interval": 0.25}


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    # module-wide, before the module-scoped run: torch's FFTs round differently with the thread
    # count, and the determinism test compares runs bit for bit
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _problem():
    # nu large enough for 32^2 (k_max = 10); h = 5e-3 keeps the CFL number below 0.1
    return turbulence_problem("quick", resolution=N, viscosity=5e-3, time_step=5e-3)


def _run(n_members: int = 2, seed: int = 7) -> xr.Dataset:
    return spin_up_and_snapshots(_problem(), n_members=n_members, seed=seed, device="cpu", **RUN)


@pytest.fixture(scope="module")
def truth() -> xr.Dataset:
    return _run()


def test_shapes_coords_and_attrs(truth):
    p = _problem()
    assert truth["w"].dims == ("member", "time", "x", "y")
    assert truth["w"].shape == (2, 3, N, N) and truth["w"].dtype == np.float32
    np.testing.assert_allclose(truth["time"], [1.0, 1.25, 1.5])
    np.testing.assert_allclose(truth["series_time"], np.arange(7) * 0.25)
    np.testing.assert_allclose(truth["x"], 2 * math.pi * np.arange(N) / N)
    assert truth["energy"].dims == ("member", "series_time")
    np.testing.assert_array_equal(truth["seed"], member_seeds(7, 2))
    attrs = truth.attrs
    assert attrs["solver"] == SOLVER and attrs["spin_up_time"] == 1.0 and attrs["base_seed"] == 7
    assert attrs["viscosity"] == p.viscosity and attrs["drag"] == 0.1
    assert attrs["forcing_kind"] == "kolmogorov_xy" and attrs["forcing_wavenumber"] == 4
    assert attrs["box_size"] == pytest.approx(2 * math.pi) and attrs["resolution"] == N
    for name in ("w", "energy", "enstrophy", "member", "x", "series_time"):
        assert truth[name].attrs["units"] == "1" and truth[name].attrs["long_name"]
    assert "periodic box" in truth["x"].attrs["long_name"]


def test_deterministic_and_members_differ(truth):
    again = _run()
    for name in ("w", "energy", "enstrophy"):
        np.testing.assert_array_equal(again[name].values, truth[name].values)
    w = truth["w"].values
    assert not np.allclose(w[0], w[1])
    # a member depends on (seed, member) only: the first of a one-member run is the same state
    alone = _run(n_members=1)
    np.testing.assert_allclose(alone["w"].values[0], w[0], rtol=0, atol=1e-5 * np.abs(w).max())


def test_spin_up_series_bounded(truth):
    energy, enstrophy = truth["energy"].values, truth["enstrophy"].values
    assert np.isfinite(energy).all() and np.isfinite(enstrophy).all()
    assert (energy > 0).all() and (enstrophy > 0).all()
    # Advection conserves enstrophy, so dZ/dt <= -2 mu Z + f_rms sqrt(2 Z): Z never exceeds
    # max(Z(0), f_rms^2 / (2 mu^2)) (f_rms^2 = A^2 for A (cos(k_f x) + cos(k_f y))).
    p = _problem()
    f_rms2 = float((p.forcing() ** 2).mean())
    assert f_rms2 == pytest.approx(p.forcing_amplitude**2)
    bound = max(enstrophy[:, 0].max(), f_rms2 / (2 * p.drag**2))
    assert enstrophy.max() <= 1.01 * bound
    # the series at the snapshot times is 1/2 <w^2> of the snapshots
    at = truth["enstrophy"].sel(series_time=truth["time"]).values
    np.testing.assert_allclose(at, 0.5 * (truth["w"].values.astype(np.float64) ** 2).mean((2, 3)),
                               rtol=1e-5)  # fmt: skip


def test_bad_durations():
    with pytest.raises(ValueError, match="snapshot_interval"):
        spin_up_and_snapshots(_problem(), n_members=1, seed=0, spin_up_time=0.0, n_snapshots=1,
                              snapshot_interval=0.0123, device="cpu")  # fmt: skip
    with pytest.raises(ValueError, match="preset"):
        turbulence_problem("huge")


def test_presets():
    paper = turbulence_problem("paper")
    assert (paper.resolution, paper.viscosity, paper.drag) == (1024, 5e-5, 0.1)
    assert paper.box_size == pytest.approx(2 * math.pi) and paper.forcing_wavenumber == 4
    quick = turbulence_problem("quick")
    # same k_max / k_nu: nu scales as the grid spacing squared
    # 16x for a 4x coarser grid, 2^(1/3) for the two-direction forcing's doubled injection
    assert quick.viscosity == pytest.approx(
        paper.viscosity * (1024 / 256) ** 2 * 2 ** (1 / 3), rel=0.01
    )


@pytest.mark.parametrize("kind", ["sharp", "gaussian"])
def test_filtered_pairs(truth, kind):
    n_les = 16
    pairs = filtered_pairs(truth, n_les=n_les, filter=kind, device="cpu")
    assert pairs["Pi"].shape == (2, 3, n_les, n_les) and pairs["w_bar"].dims == truth["w"].dims
    np.testing.assert_allclose(pairs["x"], 2 * math.pi * np.arange(n_les) / n_les)
    assert pairs.attrs["filter"] == kind and pairs.attrs["n_les"] == n_les
    assert pairs["Pi"].attrs["long_name"] and pairs["psi_bar"].attrs["units"] == "1"
    pi = pairs["Pi"].values.astype(np.float64)
    # Pi is a divergence (of the subgrid vorticity flux): zero domain mean
    assert np.abs(pi.mean((2, 3))).max() <= 1e-6 * np.abs(pi).max()
    w = torch.as_tensor(truth["w"].values, dtype=torch.float64)
    expected = coarse_grain(w, n_les, kind).numpy()
    np.testing.assert_allclose(pairs["w_bar"].values, expected, atol=1e-5 * np.abs(expected).max())
    # -Lap psi_bar = w_bar on the L box
    psi_hat = np.fft.fft2(pairs["psi_bar"].values.astype(np.float64))
    k = np.fft.fftfreq(n_les, 1.0 / n_les)
    kappa2 = k[:, None] ** 2 + k[None, :] ** 2  # 2 pi / L = 1
    w_hat = np.fft.fft2(pairs["w_bar"].values.astype(np.float64))
    np.testing.assert_allclose(kappa2 * psi_hat, w_hat, atol=1e-4 * np.abs(w_hat).max())


def test_sharp_pi_vanishes_on_the_advected_modes_of_a_resolved_field():
    """A field inside the LES's advected modes (|k| < n_les / 3) has no subgrid term there;
    what Pi keeps lies in the band the LES grid holds but does not advect."""
    n, n_les, length = 64, 16, 2 * math.pi
    rng = np.random.default_rng(3)
    k = np.fft.fftfreq(n, 1.0 / n)
    inside = (np.abs(k)[:, None] < n_les / 3) & (np.abs(k)[None, :] < n_les / 3)
    coeffs = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))) * inside
    w = np.fft.ifft2(coeffs).real * n  # real part keeps the band (Hermitian symmetrisation)
    grid = np.arange(n) * length / n
    ds = xr.Dataset(
        {"w": (("member", "time", "x", "y"), w[None, None])},
        coords={"member": [0], "seed": ("member", [0]), "time": [0.0], "x": grid, "y": grid},
        attrs={"box_size": length, "solver": SOLVER},
    )
    pairs = filtered_pairs(ds, n_les=n_les, filter="sharp", device="cpu")
    scale = np.abs(advection(torch.as_tensor(w), length).numpy()).max()
    pi_hat = np.fft.rfft2(pairs["Pi"].values[0, 0]) * dealias_mask(n_les)
    assert np.abs(np.fft.irfft2(pi_hat, s=(n_les, n_les))).max() <= 1e-6 * scale
    np.testing.assert_allclose(
        pairs["w_bar"].values[0, 0], w[::4, ::4], atol=1e-5 * np.abs(w).max()
    )


def test_truth_statistics_parseval(truth):
    pairs = filtered_pairs(truth, n_les=16, device="cpu")
    w = truth["w"].values.astype(np.float64)
    sigma = w.std()
    edges = np.linspace(-10 * sigma, 10 * sigma, 41)
    stats = truth_statistics(truth, edges=edges, pairs=pairs)
    # Parseval: the shell sums are the domain means, averaged over all snapshots
    assert float(stats["enstrophy_spectrum"].sum()) == pytest.approx(0.5 * (w**2).mean(), rel=1e-6)
    energy_at = truth["energy"].sel(series_time=truth["time"]).values.mean()
    assert float(stats["energy_spectrum"].sum()) == pytest.approx(energy_at, rel=1e-5)
    w_bar = pairs["w_bar"].values.astype(np.float64)
    z_bar = float(stats["enstrophy_spectrum_filtered"].sum())
    assert z_bar == pytest.approx(0.5 * (w_bar**2).mean(), rel=1e-6)
    assert stats.sizes["shell_les"] < stats.sizes["shell"]
    assert float(stats["pdf"].sum()) == pytest.approx(1.0)  # edges cover +-10 sigma
    assert float(stats["sigma"]) == pytest.approx(sigma)
    tail = np.mean(np.abs(w - w.mean()) > 3 * sigma)
    assert float(stats["tail_mass"]) == pytest.approx(tail)
    assert stats.attrs["n_fields"] == 6 and stats.attrs["filter"] == "sharp"
    assert stats["enstrophy_spectrum"].attrs["long_name"]
