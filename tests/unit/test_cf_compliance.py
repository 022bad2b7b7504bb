"""Every kind of NetCDF file the pipeline writes passes a real CF checker.

The IOOS compliance checker (``compliance-checker``, maintained, runs offline; its CF
suite implements the CF 1.10 conformance document) reads one tiny file of each kind:
raw and processed fields (1-D, 2-D and 2-D + time), normalisation statistics, Lorenz-96
truth (pairs and climate) and coarse-grained closure pairs. Its errors (high-priority
findings) must be empty, except the one CF cannot avoid here: model time is in the
papers' dimensionless units, and CF knows no time coordinate without "<unit> since
<date>" (see ``pderepro.data.conventions``).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.unit.configs import dataset, study
from tests.unit.tiny_data import make_raw, preprocess

runner = pytest.importorskip("compliance_checker.runner")

CF = "cf:1.10"
#: Findings about the dimensionless model-time coordinates, the one known exception.
MODEL_TIME = re.compile(
    r"^(time|time_in) does not have correct time units$"
    r"|^Coordinate variable '(time|time_in)' should have standard_name='time'"
)


def cf_errors(path, tmp_path) -> list[str]:
    """High-priority findings of the CF checker on ``path``, model time excepted."""
    report = tmp_path / "report.json"
    runner.CheckSuite.load_all_available_checkers()
    runner.ComplianceChecker.run_checker(
        str(path), [CF], 0, "normal", output_filename=str(report), output_format="json"
    )
    findings = json.loads(report.read_text())[CF]["high_priorities"]
    messages = [f"{item['name']}: {m}" for item in findings for m in item["msgs"]]
    return [m for m in messages if not MODEL_TIME.search(m.split(": ", 1)[1])]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One tiny file of each kind the pipeline writes."""
    from pderepro.stages import run_coarse_grain, run_generate, run_generate_truth

    root = tmp_path_factory.mktemp("cf")
    make_raw(root, n_train=2, n_test=1)
    preprocess(root, 32, "res32")
    run_generate(
        dataset=dataset("fno_darcy", base_resolution=9), split="test", start=0, count=1,
        output=str(root / "darcy.nc"),
    )  # fmt: skip
    ns = dataset("fno_navier_stokes", t_final=11.0, time_step=1e-2, base_resolution=8)
    run_generate(dataset=ns, split="test", start=0, count=1, output=str(root / "ns.nc"))
    closures = study(
        "l96_closures",
        system={"J": 4, "time_step": 0.005},
        truth={"save_interval": 0.01, "climate_save_interval": 0.05, "spinup_time": 0.5,
               "pair_trajectories": 1, "pair_time": 3.0, "climate_members": 2,
               "climate_time": 2.0},
        coarse={"time_step": 0.01},
        online={"acf_max_lag": 0.5},
    )  # fmt: skip
    for role in ("pairs", "climate"):
        run_generate_truth(
            system=closures["system"], forcing=10.0, role=role, truth=closures["truth"],
            seed=1, output=str(root / f"{role}.nc"), title="cf check",
        )  # fmt: skip
    run_coarse_grain(
        raw=str(root / "pairs.nc"),
        outputs={s: str(root / f"pairs-{s}.nc") for s in ("train", "validation", "test")},
        coarse_step=0.01, coupling=1.0,
        split={"train": 0.6, "validation": 0.2, "test": 0.2, "gap_time": 0.2},
    )  # fmt: skip
    return {
        "raw 1-D (Burgers)": root / "train.nc",
        "processed 1-D": root / "res32-train.nc",
        "statistics": root / "res32-stats.nc",
        "raw 2-D (Darcy)": root / "darcy.nc",
        "raw 2-D + time (Navier-Stokes)": root / "ns.nc",
        "truth pairs (Lorenz-96)": root / "pairs.nc",
        "truth climate (Lorenz-96)": root / "climate.nc",
        "coarse-grained pairs": root / "pairs-train.nc",
    }


@pytest.mark.parametrize(
    "kind",
    [
        "raw 1-D (Burgers)",
        "processed 1-D",
        "statistics",
        "raw 2-D (Darcy)",
        "raw 2-D + time (Navier-Stokes)",
        "truth pairs (Lorenz-96)",
        "truth climate (Lorenz-96)",
        "coarse-grained pairs",
    ],
)
def test_cf_checker_finds_no_errors(files, kind, tmp_path):
    assert cf_errors(files[kind], tmp_path) == []


def test_the_checker_can_fail(tmp_path):
    """A file with a fill value on a coordinate variable is reported."""
    import numpy as np
    import xarray as xr

    path = tmp_path / "bad.nc"
    ds = xr.Dataset(coords={"x": ("x", np.linspace(0.0, 1.0, 4), {"units": "1"})})
    ds.attrs["Conventions"] = "CF-1.10"
    ds.to_netcdf(path)  # xarray gives the float coordinate a NaN _FillValue
    assert any("_FillValue" in m for m in cf_errors(path, tmp_path))
