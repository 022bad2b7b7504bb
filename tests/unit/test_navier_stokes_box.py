"""Tests for the Navier-Stokes solver's box size, linear drag, beta term and Kolmogorov forcing."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from pderepro.solvers.navier_stokes.navier_stokes import (
    NavierStokesProblem,
    NavierStokesStepper,
    solve_navier_stokes,
)
from pderepro.solvers.navier_stokes.torus import sample_vorticity_grf
from pderepro.verification.navier_stokes import AB2CN_ORDER, box_if_rk4
from pderepro.verification.navier_stokes_box import (
    box_reference_difference,
    drag_decay_error,
    kolmogorov_laminar_error,
    navier_stokes_box_verification,
    rossby_wave_errors,
)
from pderepro.verification.table import COLUMNS

CPU = "cpu"
TWO_PI = 2.0 * math.pi


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _box(**kwargs) -> NavierStokesProblem:
    defaults = {
        "viscosity": 1e-2, "drag": 0.2, "beta": 2.0, "box_size": TWO_PI, "t_final": 0.5,
        "time_step": 0.01, "resolution": 16, "record_interval": 0.5,
        "forcing_kind": "kolmogorov", "forcing_amplitude": 1.0, "forcing_wavenumber": 2,
    }  # fmt: skip
    return NavierStokesProblem(**{**defaults, **kwargs})


def _field(n: int = 16, samples: int = 2, seed: int = 3, peak: float = 2.0) -> torch.Tensor:
    w = sample_vorticity_grf(samples, n, seed=seed, device=CPU)
    return w * (peak / w.abs().amax(dim=(1, 2), keepdim=True))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("box_size", 0.0),
        ("box_size", float("inf")),
        ("drag", -0.1),
        ("drag", float("nan")),
        ("beta", float("nan")),
        ("forcing_kind", "sine"),
        ("forcing_wavenumber", 0),
        ("forcing_wavenumber", 2.0),
        ("forcing_wavenumber", True),
    ],
)
def test_problem_rejects_bad_new_values(field, value):
    with pytest.raises(ValueError, match=field):
        _box(**{field: value})


def test_defaults_are_the_fno_unit_torus_and_grid_forcing_scale_with_the_box():
    p = NavierStokesProblem()
    assert (p.box_size, p.drag, p.beta, p.forcing_kind) == (1.0, 0.0, 0.0, "fno")
    box = _box(forcing_kind="fno", forcing_amplitude=0.1)
    np.testing.assert_array_equal(box.grid, TWO_PI * np.arange(16) / 16)
    # the FNO forcing keeps its grid values (one wave of x + y across any box)
    unit = dataclasses.replace(box, box_size=1.0)
    np.testing.assert_array_equal(box.forcing(), unit.forcing())
    kolmogorov = _box(forcing_amplitude=0.5, forcing_wavenumber=3).forcing()
    y = box.grid
    np.testing.assert_allclose(kolmogorov[5], 0.5 * np.cos(3 * y), atol=1e-15)
    np.testing.assert_array_equal(kolmogorov[0], kolmogorov[7])  # independent of x


def test_two_direction_kolmogorov_forcing_values_and_modes():
    p = _box(forcing_kind="kolmogorov_xy", forcing_amplitude=0.5, forcing_wavenumber=3)
    f, x = p.forcing(), p.grid
    np.testing.assert_allclose(f, 0.5 * (np.cos(3 * x)[:, None] + np.cos(3 * x)[None, :]),
                               rtol=0, atol=1e-14)  # fmt: skip
    # Fourier content: A n^2 / 2 at (+-k_f, 0) and (0, +-k_f) (x on axis 0), nothing else
    f_hat = np.fft.fft2(f)
    modes = {(3, 0), (-3, 0), (0, 3), (0, -3)}
    for kx, ky in modes:
        assert f_hat[kx, ky] == pytest.approx(0.5 * 16**2 / 2, abs=1e-12)
    others = np.ones(f_hat.shape, dtype=bool)
    others[tuple(zip(*modes, strict=True))] = False
    assert np.abs(f_hat[others]).max() < 1e-12
    # the y part is the single-direction forcing, the x part its transpose
    single = _box(forcing_amplitude=0.5, forcing_wavenumber=3).forcing()
    np.testing.assert_allclose(f, single + single.T, rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="below resolution / 3"):
        _box(forcing_kind="kolmogorov_xy", forcing_wavenumber=6)


def test_defaults_equal_explicit_unit_box_without_drag_or_beta_bit_for_bit():
    w0 = _field(32, peak=1.0)
    base = NavierStokesProblem(t_final=0.2, time_step=0.01, resolution=32, record_interval=0.1)
    explicit = dataclasses.replace(
        base, box_size=1.0, drag=0.0, beta=0.0, forcing_kind="fno", forcing_wavenumber=7
    )
    a = solve_navier_stokes(w0, base, device=CPU)
    b = solve_navier_stokes(w0, explicit, device=CPU)
    assert torch.equal(a, b)
    with_drag = solve_navier_stokes(w0, dataclasses.replace(base, drag=1e-3), device=CPU)
    assert not torch.equal(a, with_drag)


def test_box_size_is_a_rescaling_of_the_unit_torus():
    """On ``[0, L)^2`` with ``(nu, mu, beta)`` the grid values evolve as on the unit box with
    ``(nu / L^2, mu, beta L)``, nonlinear term included (vorticity is scale-free in length)."""
    w0 = _field()
    box = _box()
    unit = dataclasses.replace(box, box_size=1.0, viscosity=1e-2 / TWO_PI**2, beta=2.0 * TWO_PI)
    a = solve_navier_stokes(w0, box, device=CPU)[:, -1]
    b = solve_navier_stokes(w0, unit, device=CPU)[:, -1]
    torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    wrong = dataclasses.replace(unit, viscosity=1e-2)
    assert (solve_navier_stokes(w0, wrong, device=CPU)[:, -1] - a).abs().max() > 1e-2


def test_drag_decay_is_exact_and_second_order():
    kwargs = {"viscosity": 1e-2, "drag": 0.5, "t_final": 1.0, "wavenumber": 3}
    errors = [drag_decay_error(16, dt, **kwargs) for dt in (0.04, 0.02)]
    assert errors[1] < 2e-5
    assert math.log2(errors[0] / errors[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)
    # the amplitude falls by the drag's factor too, 2 nu m^2 + mu with m = 3 on the 2 pi box
    problem = _box(drag=0.5, beta=0.0, forcing_amplitude=0.0, t_final=1.0, record_interval=1.0)
    s = np.sin(3 * problem.grid)
    w = solve_navier_stokes(s[:, None] * s[None, :], problem, device=CPU)
    ratio = float(w[-1].abs().max() / w[0].abs().max())
    assert ratio == pytest.approx(math.exp(-(2 * 1e-2 * 9 + 0.5)), rel=1e-4)


def test_rossby_wave_speed_and_direction():
    kwargs = {"viscosity": 1e-2, "drag": 0.1, "t_final": 1.0, "wavevector": (2, 1)}
    runs = [rossby_wave_errors(16, dt, beta=10.0, **kwargs) for dt in (0.02, 0.01)]
    field, speed = zip(*runs, strict=True)
    assert field[1] < 5e-3 and speed[1] < 5e-4
    assert math.log2(field[0] / field[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)
    assert math.log2(speed[0] / speed[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)
    # beta > 0 sends the wave west (omega = -beta k_x / |k|^2 < 0): the eastward wave differs
    problem = _box(beta=10.0, viscosity=0.0, drag=0.0, forcing_amplitude=0.0, t_final=1.0,
                   record_interval=1.0)  # fmt: skip
    x = problem.grid
    phase = 2 * x[:, None] + x[None, :]
    w = solve_navier_stokes(np.cos(phase), problem, device=CPU)[-1].numpy()
    omega = -10.0 * 2 / 5
    assert np.abs(w - np.cos(phase - omega)).max() < 0.02
    assert np.abs(w - np.cos(phase + omega)).max() > 1.0


def test_beta_rotates_modes_beyond_the_dealiasing_columns_without_damping():
    """Modes with ``k_y >= kc`` skip the advection but must still feel the beta term; CN keeps
    the amplitude of the purely imaginary operator."""
    beta, h, steps = 3.0, 0.05, 40
    problem = _box(beta=beta, viscosity=0.0, drag=0.0, forcing_amplitude=0.0, time_step=h,
                   t_final=h * steps, record_interval=h * steps)  # fmt: skip
    stepper = NavierStokesStepper(problem, device=CPU)
    assert stepper.kc == 6
    x = problem.grid
    w_hat = torch.fft.rfft2(torch.as_tensor(np.cos(x[:, None] + 6 * x[None, :]))[None])
    start = w_hat[0, 1, 6].clone()
    for _ in range(steps):
        stepper.step_(w_hat)
    ratio = complex(w_hat[0, 1, 6] / start)
    omega = -beta * 1 / 37
    cn_angle = -2.0 * math.atan(omega * h / 2.0) * steps  # CN's turn of exp(-i omega t)
    assert abs(ratio) == pytest.approx(1.0, abs=1e-13)
    assert math.atan2(ratio.imag, ratio.real) == pytest.approx(cn_angle, abs=1e-12)


def test_kolmogorov_laminar_flow_is_exact_and_ignores_beta():
    kwargs = {"viscosity": 1e-2, "drag": 0.3, "t_final": 1.0, "forcing_wavenumber": 2}
    errors = [kolmogorov_laminar_error(16, dt, beta=5.0, **kwargs) for dt in (0.04, 0.02)]
    assert errors[1] < 1e-5
    assert math.log2(errors[0] / errors[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)
    # both directions: the x part is a forced Rossby wave under beta, the steady state exact
    xy = [
        kolmogorov_laminar_error(16, dt, beta=5.0, forcing_kind="kolmogorov_xy", **kwargs)
        for dt in (0.04, 0.02)
    ]
    assert xy[1] < 2e-4  # the Rossby wave's CN phase error, (omega h)^2 with omega h = 0.05
    assert math.log2(xy[0] / xy[1]) == pytest.approx(AB2CN_ORDER, abs=0.05)
    # without beta, long after the start: w = A (cos k x + cos k y) / (mu + nu k^2), which
    # AB2/CN holds exactly (drag 1: the cellular flow is stable, exp(-40) of the start left)
    steady = kolmogorov_laminar_error(
        16, 0.05, beta=0.0, viscosity=1e-2, drag=1.0, t_final=40.0, forcing_wavenumber=2,
        forcing_kind="kolmogorov_xy",
    )  # fmt: skip
    assert steady < 1e-13
    for k_f in (6, 14):  # outside the advected modes of 16 points; 14 would alias onto 2
        with pytest.raises(ValueError, match="below resolution / 3"):
            _box(forcing_wavenumber=k_f)


def test_advection_is_unchanged_by_the_linear_terms():
    w_hat = torch.fft.rfft2(_field())
    plain = NavierStokesStepper(_box(beta=0.0, drag=0.0), device=CPU).nonlinear_hat(w_hat)
    loaded = NavierStokesStepper(_box(beta=7.0, drag=2.0), device=CPU).nonlinear_hat(w_hat)
    torch.testing.assert_close(plain, loaded, rtol=0, atol=1e-12 * float(plain.abs().max()))


def test_matches_the_independent_if_rk4_and_sees_advection_and_beta():
    w0 = _field()
    errors = [box_reference_difference(_box(time_step=dt), w0, 2.5e-3) for dt in (0.02, 0.01)]
    assert errors[1] < 1e-3
    assert math.log2(errors[0] / errors[1]) == pytest.approx(AB2CN_ORDER, abs=0.1)
    ours = solve_navier_stokes(w0, _box(time_step=0.01), device=CPU)[:, -1].numpy()
    kwargs = {"box_size": TWO_PI, "viscosity": 1e-2, "drag": 0.2, "t_final": 0.5,
              "time_step": 2.5e-3}  # fmt: skip
    forcing = _box().forcing()
    for beta, sign in ((2.0, 0.0), (-2.0, 1.0)):
        other = box_if_rk4(w0.numpy(), forcing, beta=beta, advection_sign=sign, **kwargs)
        assert np.abs(ours - other).max() / np.abs(other).max() > 50 * errors[1]


def test_box_verification_table_small():
    table = navier_stokes_box_verification(
        resolution=16, time_steps=(0.04, 0.02), t_final=1.0, turbulent_resolution=16,
        turbulent_time_steps=(0.02, 0.01), turbulent_t_final=0.5, reference_step=2.5e-3,
    )  # fmt: skip
    assert list(table.columns) == COLUMNS
    assert len(table) == 12
    for _, rows in table.groupby("case", sort=False):
        assert rows["observed_order"].iloc[-1] == pytest.approx(AB2CN_ORDER, abs=0.1)
