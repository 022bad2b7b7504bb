"""The 2-D turbulence closure figures, on small synthetic curve files."""

from __future__ import annotations

from pathlib import Path

import matplotlib.axes
import numpy as np
import pandas as pd
import pytest
import xarray as xr

from pderepro.plotting.turbulence import NO_RL_TEXT, _legend_label, plot_turbulence_figures

FIGURES = ("spectra", "vorticity_pdfs", "rl_training", "vorticity_fields")
CASES = {"beta20": 20.0, "kf4": 0.0}  # deliberately not in beta order
N_LES, N_DNS, SHELLS, BINS = 16, 32, 8, 41
CLOSURES = {"none": "no closure", "smag": "Smagorinsky", "leith": "Leith", "smarl": "SMARL"}


def _online(closure: str, label: str, rng: np.random.Generator, *, blown: bool = False):
    """One online curve file of the documented format (truth floor when ``closure="truth"``)."""
    cases, members, records = list(CASES), 2, 5
    shells = np.arange(SHELLS)
    spectrum = (1.0 + shells) ** -3.0 * (1 + 0.1 * rng.random((len(cases), SHELLS)))
    w_value = np.linspace(-10.0, 10.0, BINS)
    pdf = np.exp(-0.5 * (w_value / 2.0) ** 2)
    pdf = np.tile(pdf / pdf.sum(), (len(cases), 1))
    pdf[:, :3] = 0.0  # empty tail bins must be masked on the log axis
    field = rng.standard_normal((len(cases), N_LES, N_LES))
    curve = np.full_like(spectrum, np.nan) if blown else spectrum * 1.2
    grid = np.linspace(0, 2 * np.pi, N_LES, endpoint=False)
    ds = xr.Dataset(
        {
            "enstrophy_spectrum": (("case", "shell"), curve),
            "energy_spectrum": (("case", "shell"), curve / (1.0 + shells) ** 2),
            "enstrophy_spectrum_truth": (("case", "shell"), spectrum),
            "energy_spectrum_truth": (("case", "shell"), spectrum / (1.0 + shells) ** 2),
            "pdf": (("case", "bin"), np.full_like(pdf, np.nan) if blown else pdf),
            "pdf_truth": (("case", "bin"), pdf),
            "enstrophy_series": (
                ("case", "member", "record"),
                rng.random((len(cases), members, records)),
            ),  # fmt: skip
            "energy_series": (
                ("case", "member", "record"),
                rng.random((len(cases), members, records)),
            ),  # fmt: skip
            "w_final": (("case", "x", "y"), np.full_like(field, np.nan) if blown else field),
            "blowup_time": (
                ("case", "member"),
                np.full((len(cases), members), 3.0 if blown else np.nan),
            ),  # fmt: skip
            "sigma_truth": (("case",), np.full(len(cases), 2.0)),
        },
        coords={
            "case": cases,
            "shell": shells,
            "bin": np.arange(BINS),
            "w_value": ("bin", w_value),
            "member": np.arange(members),
            "record": np.arange(records),
            "time": ("record", 0.5 * np.arange(records)),
            "x": grid,
            "y": grid,
        },  # fmt: skip
        attrs={"closure": closure, "label": label, "k_max": 5, "tail_sigma": 3.0},
    )
    if closure == "truth":
        grid_dns = np.linspace(0, 2 * np.pi, N_DNS, endpoint=False)
        ds = ds.assign_coords(x_dns=grid_dns, y_dns=grid_dns)
        ds["w_dns"] = (("case", "x_dns", "y_dns"), rng.standard_normal((len(cases), N_DNS, N_DNS)))
        ds["w_filtered"] = (("case", "x", "y"), field)
    return ds


def _offline(closure: str, label: str, rng: np.random.Generator) -> xr.Dataset:
    pi_true = rng.standard_normal(50)
    ds = xr.Dataset(
        {"pi_true": ("point", pi_true), "pi_pred": ("point", pi_true + rng.standard_normal(50))},
        attrs={
            "closure": closure,
            "label": label,
            "case": "kf4",
            "pi_correlation": 0.7,
            "kind": "smarl" if closure == "smarl" else "physics",
        },  # fmt: skip
    )
    if closure == "smarl":
        steps = np.arange(1, 11) * 1000
        ds["rl_timesteps"] = ("iteration", steps)
        ds["rl_reward"] = ("iteration", -1.0 / np.sqrt(steps))
        ds["rl_mean_cs"] = ("iteration", 0.1 + 0.05 * (1 - np.exp(-steps / 3000)))
    return ds


def _table(closures: dict[str, str], blown: set[str]) -> pd.DataFrame:
    rows = [{"closure": c, "case": case, "enstrophy_spectrum_log_error": 0.1,
             "energy_spectrum_log_error": 0.1, "pdf_hellinger": 0.05, "tail_ratio": 1.0,
             "blowups": 2 if c in blown else 0, "cost_ratio": 0.01}
            for c in [*closures, "truth"] for case in CASES]  # fmt: skip
    return pd.DataFrame(rows)


def _outputs(tmp_path: Path) -> dict[str, str]:
    return {f"{name}_{ext}": str(tmp_path / f"{name}.{ext}")
            for name in FIGURES for ext in ("png", "pdf")}  # fmt: skip


def _check(outputs: dict[str, str], stubs: tuple[str, ...] = ()) -> None:
    """Every figure exists as PNG and PDF; a stub (one line of text) may be smaller."""
    for name in FIGURES:
        png, pdf = Path(outputs[f"{name}_png"]), Path(outputs[f"{name}_pdf"])
        assert png.exists() and png.stat().st_size > (3_000 if name in stubs else 10_000), name
        assert pdf.exists() and pdf.stat().st_size > 2_000, name


def _study(closures: dict[str, str], blown: set[str]):
    rng = np.random.default_rng(0)
    online = [_online("truth", "filtered DNS", rng)]
    online += [_online(c, label, rng, blown=c in blown) for c, label in closures.items()]
    offline = [_offline(c, label, rng) for c, label in closures.items()]
    return offline, online, _table(closures, blown)


@pytest.fixture
def drawn_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every string drawn with ``Axes.text`` during the test (what a panel says)."""
    seen: list[str] = []
    original = matplotlib.axes.Axes.text

    def spy(self, x, y, s, *args, **kwargs):
        seen.append(str(s))
        return original(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "text", spy)
    return seen


def test_all_figures_written(tmp_path):
    offline, online, table = _study(CLOSURES, blown=set())
    outputs = _outputs(tmp_path)
    plot_turbulence_figures(offline, online, table, outputs, title="2-D turbulence",
                            training_setup="kf4", setups=CASES)  # fmt: skip
    _check(outputs)


def test_blown_up_closure_and_no_rl_still_plot(tmp_path, drawn_texts):
    closures = {k: v for k, v in CLOSURES.items() if k != "smarl"}
    offline, online, table = _study(closures, blown={"leith"})
    outputs = _outputs(tmp_path)
    with np.errstate(all="ignore"):
        plot_turbulence_figures(offline, online, table, outputs, title="2-D turbulence",
                                training_setup="kf4", setups=CASES)  # fmt: skip
    _check(outputs, stubs=("rl_training",))
    assert NO_RL_TEXT in drawn_texts
    assert "blew up" in drawn_texts  # the Leith field panel


def test_legend_counts_blowups():
    _, online, table = _study(CLOSURES, blown={"leith"})
    leith = next(ds for ds in online if ds.attrs["closure"] == "leith")
    assert _legend_label(table, leith) == "Leith (4 blew up)"
    assert _legend_label(table, leith, "kf4") == "Leith (2 blew up)"
    smag = next(ds for ds in online if ds.attrs["closure"] == "smag")
    assert _legend_label(table, smag) == "Smagorinsky"
