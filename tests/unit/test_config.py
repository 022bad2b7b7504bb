"""Config: shipped configs validate; bad configs fail before any job, naming the key."""

import copy
from pathlib import Path

import pytest
import yaml

from pderepro.config import ConfigError, canonical, deep_merge
from pderepro.studies import KINDS, NESTED_PRESET_SECTIONS, resolve_config
from tests.unit.configs import edit_preset

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
BASE = yaml.safe_load((ROOT / "config/config.yaml").read_text())


def resolve(config, config_dir=ROOT / "config"):
    return resolve_config(config, config_dir=config_dir, schema_path=SCHEMA)


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_shipped_presets_validate(preset):
    cfg = resolve({**BASE, "preset": preset})
    study = cfg["study"]["fno_burgers"]
    assert study["training"]["epochs"] >= 1
    assert study["figures"]["samples"] == 4  # defaults filled from the schema


def test_paper_preset_has_the_papers_sizes():
    study = resolve({**BASE, "preset": "paper"})["study"]["fno_burgers"]
    assert study["resolutions"] == [256, 512, 1024, 2048, 4096, 8192]
    assert study["dataset"]["base_resolution"] == 8192
    assert study["dataset"]["n_train"] == 1000
    assert study["training"]["epochs"] == 500 and study["training"]["seeds"] == 3
    assert study["models"]["fno"]["hparams"] == {
        "modes": 16,
        "width": 64,
        "layers": 4,
        "projection": 128,
    }


def test_presets_hold_sizes_only():
    for path in (ROOT / "config/presets").glob("*.yaml"):
        for study, sizes in yaml.safe_load(path.read_text()).items():
            kind = yaml.safe_load((ROOT / f"config/studies/{study}.yaml").read_text())["kind"]
            allowed = KINDS[kind].preset_keys
            for section, value in sizes.items():
                assert section in allowed, (path, section)
                if section in NESTED_PRESET_SECTIONS:  # sizes per regime or PDE
                    for entry in value.values():
                        assert set(entry) <= set(allowed[section]), (path, entry)
                elif isinstance(value, dict):
                    assert set(value) <= allowed[section], (path, section)


def test_resolved_config_is_canonical_whatever_the_files_key_order(tmp_path):
    """Study files rewritten with sorted keys resolve to the same config, in the same
    key order (Snakemake compares params by repr, where dict order shows)."""

    def resort(study):
        items = sorted(study.items(), reverse=True)
        study.clear()
        study.update(items)

    shipped = resolve(copy.deepcopy(BASE))
    reordered = resolve(copy.deepcopy(BASE), config_dir=_study_dir(tmp_path, resort))
    assert repr(reordered) == repr(shipped)
    assert repr(canonical({"b": {"d": 1, "c": [2, {"f": 3, "e": 4}]}, "a": 0})) == repr(
        {"a": 0, "b": {"c": [2, {"e": 4, "f": 3}], "d": 1}}
    )


def test_a_study_file_of_an_unknown_kind_names_the_kind(tmp_path):
    config_dir = _study_dir(tmp_path, _set("kind", "resolutoin"))
    with pytest.raises(ConfigError, match=r"study\.fno_burgers\.kind.*resolutoin"):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


def test_published_values_need_a_source_and_the_papers_n(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: study["published"].pop("n_train"))
    with pytest.raises(ConfigError, match=r"study\.fno_burgers\.published.*'n_train'"):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


def test_darcy_resolutions_must_be_vertex_subsamples(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: None)
    path = config_dir / "presets/quick.yaml"
    preset = yaml.safe_load(path.read_text())
    preset["fno_darcy"]["resolutions"] = [42]  # 84 / 41 is not whole
    path.write_text(yaml.safe_dump(preset))
    with pytest.raises(ConfigError, match="vertex grid"):
        resolve(BASE, config_dir=config_dir)


def test_deep_merge_merges_mappings_and_replaces_the_rest():
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 3}, "d": [2]}) == {
        "a": {"b": 3, "c": 2},
        "d": [2],
    }


def _study_dir(tmp_path, edit, name="fno_burgers"):
    """A copy of config/ with study ``name`` edited by ``edit(study_dict)``."""
    target = tmp_path / "config"
    (target / "studies").mkdir(parents=True)
    (target / "presets").mkdir()
    for p in (ROOT / "config/presets").glob("*.yaml"):
        (target / "presets" / p.name).write_text(p.read_text())
    for p in (ROOT / "config/studies").glob("*.yaml"):
        (target / "studies" / p.name).write_text(p.read_text())
    study = yaml.safe_load((ROOT / f"config/studies/{name}.yaml").read_text())
    edit(study)
    (target / f"studies/{name}.yaml").write_text(yaml.safe_dump(study))
    return target


def resolve_with_preset_sizes(tmp_path, name, sizes, preset="smoke"):
    """The shipped config resolved at ``preset`` from a copy of config/ whose quick preset
    merges ``sizes`` (sections) into study ``name``'s entry."""
    config_dir = _study_dir(tmp_path, lambda study: None, name=name)
    edit_preset(config_dir, lambda quick: quick.setdefault(name, {}).update(sizes))
    return resolve({**BASE, "preset": preset}, config_dir=config_dir)


def _set(path, value):
    def edit(study):
        node = study
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value

    return edit


TOP_LEVEL = [
    ({"preset": "quik"}, "preset"),
    ({"preset": 3}, "preset"),
    ({"studies": []}, "studies"),
    ({"studies": ["fno_burger"]}, "studies"),
    ({"studies": ["../x"]}, "studies.0"),
    ({"studies": "fno_burgers"}, "studies"),
    ({"verification": "yes"}, "verification"),
    ({"prest": "quick"}, "prest"),
    ({"study": {}}, "study"),
]


@pytest.mark.parametrize(("override", "key"), TOP_LEVEL)
def test_bad_top_level_config_names_the_key(override, key):
    with pytest.raises(ConfigError, match=key):
        resolve({**BASE, **override})


STUDY_EDITS = [
    ("models.fno.architecture", "fno9d", "models.fno.architecture"),
    ("models.fno.hparams.mdoes", 3, "mdoes"),
    ("models.fno.hparams.modes", 0, "models.fno.hparams.modes"),
    ("models.fno.hparams.modes", 2.5, "models.fno.hparams.modes"),
    ("models.fno.hparams.modes", 1000, "models.fno.hparams.modes"),
    ("training.learning_rate", -1.0, "training.learning_rate"),
    ("training.learning_rate", float("nan"), "training.learning_rate"),
    ("training.scheduler", "cosin", "training.scheduler"),
    ("training.batchsize", 4, "batchsize"),
    ("dataset.viscosity", 0, "dataset.viscosity"),
    ("dataset.solver", "navier", "dataset.solver"),
    ("dataset.name", "../../etc", "dataset.name"),
    ("dataset.grf.scale", "big", "dataset.grf.scale"),
    ("published.values.fnoo", {256: 0.1}, "published.values.fnoo"),
    ("published.values.fno.256", -0.0149, "published.values.fno.256"),
    ("published.values.fno.256", None, "published.values.fno.256"),  # no number
    ("published.values.fno.256", {"verified": False}, "published.values.fno.256"),
    ("published.verified", {"fno": [256]}, "published.verified"),  # unknown flag key
    ("published.unverified.fno", [128], "published.unverified.fno"),  # no value at s=128
    ("published.unverified.fnoo", [256], "published.unverified.fnoo"),
    ("published.unverified.fno", [], "published.unverified.fno"),
    ("published.n_train", 0, "published.n_train"),
    ("baselines.oracle", {}, "baselines"),
    ("figures.samples", -2, "figures.samples"),
    ("unknown_section", 1, "unknown_section"),
]


@pytest.mark.parametrize(("path", "value", "key"), STUDY_EDITS)
def test_bad_study_config_names_the_key(tmp_path, path, value, key):
    config_dir = _study_dir(tmp_path, _set(path, value))
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


CLOSURE_EDITS = [
    ("training_setup", "F21", "training_setup"),
    ("setups.F20", "twenty", "setups.F20"),
    ("setups.F-1", 5.0, "setups"),
    ("closures.truth", {"kind": "none"}, "closures"),
    ("closures.cubic.kind", "quartic", "closures.cubic.kind"),
    ("closures.cubic.degree", None, "closures.cubic.degree"),
    ("closures.mlp.degree", 3, "closures.mlp.degree"),
    ("closures.fno.hparams.hidden", [0], "closures.fno.hparams.hidden.0"),
    ("closures.cubic_ar1.noise", "ar2", "closures.cubic_ar1.noise"),
    ("coarse.target", "instant", "coarse.target"),
    ("coarse.time_step", 0.0052, "coarse.time_step"),
    ("truth.save_interval", 0.0015, "truth.save_interval"),
    ("online.acf_max_lag", 1000.0, "online.acf_max_lag"),
    ("online.pdf.low", 50.0, "online.pdf.low"),
    ("system.K", 3, "system.K"),
    ("split.gap_time", -1.0, "split.gap_time"),
    ("training.loss", "l1", "training.loss"),
]


@pytest.mark.parametrize(("path", "value", "key"), CLOSURE_EDITS)
def test_bad_closure_study_config_names_the_key(tmp_path, path, value, key):
    def edit(study):
        _set(path, value)(study)
        if value is None:  # delete the key
            node = study
            for part in path.split(".")[:-1]:
                node = node[part]
            del node[path.split(".")[-1]]

    config_dir = _study_dir(tmp_path, edit, name="l96_closures")
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


def test_closure_study_presets_size_the_runs():
    quick = resolve({**BASE, "preset": "quick"})["study"]["l96_closures"]
    paper = resolve({**BASE, "preset": "paper"})["study"]["l96_closures"]
    # the noise floor needs at least 20 members x 250 time units (issue 4)
    assert quick["truth"]["climate_members"] >= 20 and quick["truth"]["climate_time"] >= 250
    truth = paper["truth"]
    assert truth["pair_trajectories"] * truth["pair_time"] == 20_000  # Gagne et al.
    assert paper["forecast"]["starts"] == 300 and paper["forecast"]["members"] == 40


def test_a_preset_that_sets_science_is_rejected(tmp_path):
    config_dir = _study_dir(tmp_path, lambda s: None)
    (config_dir / "presets/quick.yaml").write_text(
        "fno_burgers:\n  training: {weight_decay: 0.1}\n"
    )
    with pytest.raises(ConfigError, match="weight_decay"):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)
    (config_dir / "presets/quick.yaml").write_text("l96_closures:\n  setups: {F30: 30.0}\n")
    with pytest.raises(ConfigError, match="setups"):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


PRESET_EDITS = [
    ("resolutions: [256, 512, 1024]", "resolutions: [100]", "resolutions"),
    ("resolutions: [256, 512, 1024]", "resolutions: [0]", "resolutions.0"),
    ("n_train: 500", "n_train: 0", "dataset.n_train"),
    ("shard_size: 250", "shard_size: -5", "dataset.shard_size"),
    ("epochs: 15, batch_size: 10", "epochs: 0, batch_size: 10", "training.epochs"),
    ("seeds: 2", "seeds: two", "training.seeds"),
    ("batch_size: 10", "batch_size: 0", "training.batch_size"),
    ("scheduler: cosine", "scheduler: linear", "training.scheduler"),
    ("base_resolution: 1024", "base_resolution: .nan", "base_resolution"),
]


@pytest.mark.parametrize(("old", "new", "key"), PRESET_EDITS)
def test_bad_preset_sizes_name_the_key(tmp_path, old, new, key):
    config_dir = _study_dir(tmp_path, lambda s: None)
    preset = config_dir / "presets/quick.yaml"
    assert old in preset.read_text()
    preset.write_text(preset.read_text().replace(old, new))
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        resolve(copy.deepcopy(BASE), config_dir=config_dir)


def test_model_keys_cannot_name_paths_outside_the_project(tmp_path):
    def edit(study):
        study["models"]["../../evil"] = {"architecture": "fcn"}

    with pytest.raises(ConfigError, match="models"):
        resolve(copy.deepcopy(BASE), config_dir=_study_dir(tmp_path, edit))


STUDY_FILES = sorted(p.stem for p in (ROOT / "config/studies").glob("*.yaml"))
PRESETS = sorted(p.stem for p in (ROOT / "config/presets").glob("*.yaml"))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("study", STUDY_FILES)
def test_every_shipped_study_file_validates_with_every_preset(study, preset):
    """Enabled on its own, each study file resolves at each preset (schema and checks)."""
    cfg = resolve({**BASE, "preset": preset, "studies": [study]})
    assert list(cfg["study"]) == [study]


# The measured cases (issue 29): a value a preset replaces, and files not enabled
# in the default run (les_turbulence, pdebench_cape, basic_forms).
UNCHECKED_BEFORE = [
    ("fno_burgers", "training.batch_size", "lots"),  # quick sets batch_size
    ("fno_navier_stokes", "regimes.nu1e-3.t_final", -7),  # quick sets t_final
    ("les_turbulence", "coarse.time_step", -7),
    ("les_turbulence", "split.validation", float("nan")),
    ("les_turbulence", "smarl.snapshots", "lots"),
    ("les_turbulence", "closures.dynamic.kind", "dynamic_smagorinsky_typo"),
    ("basic_forms", "basic_forms.target_fractions.0", -7),
    ("basic_forms", "pdes.diffusion_reaction.seen.2.1", "lots"),
    ("pdebench_cape", "pdes.advection.unknown_option_q", 1),
    ("pdebench_cape", "pdes.burgers.unseen.0", "lots"),
    ("pdebench_cape", "published.values.burgers.nu_typo", 0.01),
]


@pytest.mark.parametrize(("name", "path", "value"), UNCHECKED_BEFORE)
def test_a_malformed_value_is_refused_even_where_a_preset_replaces_it_or_unused(
    tmp_path, name, path, value
):
    def edit(study):
        node = study
        *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in parents:
            node = node[key]
        node[last] = value

    config_dir = _study_dir(tmp_path, edit, name=name)
    with pytest.raises(ConfigError) as err:
        resolve({**BASE, "preset": "quick"}, config_dir=config_dir)
    where = f"{config_dir / 'studies' / name}.yaml: config key 'study.{name}.{path}'"
    assert where in str(err.value)


SHALLOW_WATER_INCONSISTENT = [
    ("system.coarse_resolution", 100),  # does not divide the fine 512 cells
    ("coarse.time_step", 0.004),  # the fluxes are averaged over system.time_step
    ("truth.save_interval", 0.003),  # not whole coarse steps
    ("closures.none.limited", True),  # nothing to limit
    ("closures.diffusion.seeds", 2),  # only networks are fitted from several seeds
]


@pytest.mark.parametrize(("path", "value"), SHALLOW_WATER_INCONSISTENT)
def test_shallow_water_closure_settings_must_agree(tmp_path, path, value):
    def edit(study):
        node = study
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        node[last] = value

    config_dir = _study_dir(tmp_path, edit, name="sw_closures")
    with pytest.raises(ConfigError, match=rf"config key 'study\.sw_closures\.{path}'"):
        resolve({**BASE, "preset": "quick", "studies": ["sw_closures"]}, config_dir=config_dir)


def test_a_preset_entry_for_no_study_file_is_refused(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: None)
    path = config_dir / "presets/paper.yaml"
    path.write_text(path.read_text() + "fno_burger:\n  training: {epochs: 3}\n")
    with pytest.raises(ConfigError, match=r"paper\.yaml: key 'fno_burger' names no study file"):
        resolve({**BASE, "preset": "quick"}, config_dir=config_dir)


def test_a_value_in_another_preset_is_refused_naming_both_files(tmp_path):
    config_dir = _study_dir(tmp_path, lambda study: None)
    path = config_dir / "presets/paper.yaml"
    preset = yaml.safe_load(path.read_text())
    preset["fno_burgers"]["training"]["epochs"] = "lots"
    path.write_text(yaml.safe_dump(preset))
    with pytest.raises(ConfigError) as err:
        resolve({**BASE, "preset": "quick"}, config_dir=config_dir)
    assert f"fno_burgers.yaml with {path}: config key 'study.fno_burgers.training.epochs'" in str(
        err.value
    )
