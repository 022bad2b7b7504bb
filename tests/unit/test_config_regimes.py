"""Config of the regimes kind (the FNO paper's Navier-Stokes table): the paper preset's
2-D sizes, one resolution unit per regime, and bad regimes studies refused by key."""

import pytest
import yaml

from pderepro.config import ConfigError
from pderepro.studies.regimes import regime_units, superresolution_dataset
from tests.unit.test_config import BASE, _set, _study_dir, resolve


def test_paper_preset_plans_the_fno_papers_2d_sizes():
    cfg = resolve({**BASE, "preset": "paper"})
    darcy = cfg["study"]["fno_darcy"]
    assert darcy["dataset"]["base_resolution"] == 421
    assert darcy["resolutions"] == [85, 141, 211, 421]
    assert darcy["training"]["epochs"] == 500 and darcy["dataset"]["n_train"] == 1000
    ns = cfg["study"]["fno_navier_stokes"]
    assert ns["dataset"]["base_resolution"] == 256 and ns["dataset"]["time_step"] == 1e-4
    assert ns["resolutions"] == [64]
    runs = {k: (r["viscosity"], r["t_final"], r["n_train"]) for k, r in ns["regimes"].items()}
    assert runs == {
        "nu1e-3": (1e-3, 50.0, 1000),
        "nu1e-4": (1e-4, 30.0, 1000),
        "nu1e-4_n10000": (1e-4, 30.0, 10000),
        "nu1e-5": (1e-5, 20.0, 1000),
    }
    assert all(r["run"] for r in ns["regimes"].values())
    assert ns["superresolution"]["regime"] == "nu1e-4"


def test_regimes_expand_to_one_resolution_study_each():
    ns = resolve({**BASE, "preset": "paper"})["study"]["fno_navier_stokes"]
    subs = regime_units("fno_navier_stokes", ns)
    assert list(subs) == [f"fno_navier_stokes/{k}" for k in ns["regimes"]]
    one = subs["fno_navier_stokes/nu1e-5"]
    assert one["kind"] == "resolution" and one["regime"] == "nu1e-5"
    assert one["dataset"]["name"] == "navier_stokes_nu1e_5"
    assert one["dataset"]["viscosity"] == 1e-5 and one["dataset"]["t_final"] == 20.0
    fine = superresolution_dataset(ns)
    assert fine["records_per_time"] == 4 and fine["base_resolution"] == 256


def test_a_preset_may_not_set_a_regimes_science(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: None)
    path = config_dir / "presets/quick.yaml"
    preset = yaml.safe_load(path.read_text())
    preset["fno_navier_stokes"]["regimes"]["nu1e-3"]["viscosity"] = 0.1
    path.write_text(yaml.safe_dump(preset))
    with pytest.raises(ConfigError, match=r"regimes\.nu1e-3\.viscosity"):
        resolve(BASE, config_dir=config_dir)


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (("superresolution.model", "tfnet"), "superresolution.model"),
        (("models.fno3d.hparams.time_padding", 0), "modes_time"),
        (("dataset.grf.exponent", -1.0), "exponent"),
        (("published.values.fno3d.nu1e-6", 0.01), "published.values.fno3d.nu1e-6"),
        (("published.unverified.fno3d", ["nu1e-6"]), "published.unverified.fno3d"),
        (("published.unverified.tfnet", ["nu1e-4"]), "published.unverified.tfnet"),
        (("published.regimes.nu1e-3.n_trian", 1000), "published.regimes.nu1e-3.n_trian"),
        (("published.regimes.nu1e-3.t_final", 0), "published.regimes.nu1e-3.t_final"),
        (("published.regimes.nu1e-6", {"n_train": 1, "t_final": 1.0}), "published.regimes.nu1e-6"),
    ],
)
def test_bad_regimes_studies_fail_naming_the_key(tmp_path, edit, key):
    config_dir = _study_dir(tmp_path, _set(*edit), name="fno_navier_stokes")
    with pytest.raises(ConfigError, match=key):
        resolve(BASE, config_dir=config_dir)


def test_a_published_regime_needs_the_papers_n_and_t(tmp_path):
    config_dir = _study_dir(
        tmp_path, lambda study: study["published"]["regimes"].pop("nu1e-5"), "fno_navier_stokes"
    )
    with pytest.raises(ConfigError, match=r"published\.regimes\.nu1e-5': required"):
        resolve(BASE, config_dir=config_dir)
