"""One end-to-end run of the smoke preset in a temporary directory."""

import html
import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import yaml

from pderepro.evaluation.cost import COST_COLUMNS, SOLVER_LABEL
from pderepro.evaluation.tables import REGIME_COLUMNS, RESOLUTION_COLUMNS
from tests.workflow.helpers import copy_workflow, planned_after_edit, snakemake

pytestmark = pytest.mark.slow
STUDY = "results/fno_burgers"


def test_tables_hold_finite_numbers(smoke_run):
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/resolution.csv")
    assert list(table.columns) == RESOLUTION_COLUMNS
    assert (table["ci_low"] <= table["rel_l2_mean"]).all()
    assert (table["rel_l2_mean"] <= table["ci_high"]).all()
    learned = table["n_params"] > 0
    # each trained run kept an epoch chosen on validation; references have none
    assert table.loc[learned, "val_rel_l2"].map(math.isfinite).all()
    assert table.loc[~learned, "val_rel_l2"].isna().all()
    assert set(table["model"]) == {"FNO", "FCN", "PCANN", "heat equation (no learning)"}
    assert table["rel_l2_mean"].map(math.isfinite).all()
    assert (table["rel_l2_mean"] > 0).all()
    cost = pd.read_csv(smoke_run / f"{STUDY}/tables/cost.csv")
    assert list(cost.columns) == COST_COLUMNS
    assert set(cost["model"]) == {"FNO", "FCN", "PCANN", SOLVER_LABEL}
    assert (cost["solver_s_per_sample"] > 0).all()
    learned = cost[cost["model"] != SOLVER_LABEL]
    assert (learned[["data_s_per_sample", "train_s", "inference_s_per_sample"]] > 0).all().all()
    assert (learned["breakeven_queries"] > 0).all()
    validation = pd.read_csv(smoke_run / "results/validation/solvers.csv")
    assert validation["max_abs_error"].map(math.isfinite).all()


def test_claims_list_every_claim_of_every_study_file(smoke_run):
    """results/claims.csv holds one row per claim of every study file, each with a verdict."""
    from pderepro.evaluation.claims import CLAIMS_COLUMNS
    from pderepro.evaluation.claims_checks import NOT_RUN

    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert list(claims.columns) == CLAIMS_COLUMNS
    expected = {
        (path.stem, claim["id"])
        for path in sorted((smoke_run / "config/studies").glob("*.yaml"))
        for claim in yaml.safe_load(path.read_text()).get("claims", [])
    }
    assert set(zip(claims["study"], claims["claim_id"], strict=True)) == expected
    assert len(claims) == len(expected)
    assert claims["verdict"].isin(["reproduced", "not reproduced", "inconclusive", NOT_RUN]).all()
    assert (claims.loc[claims["verdict"] == NOT_RUN, "reason"] != "").all()
    assert (smoke_run / "results/claims.md").read_text().startswith("# Paper claims")


def test_a_learned_model_beats_the_no_learning_reference(smoke_run):
    """Learning shows even at the smoke preset: on Burgers the FNO's error is well under
    the linear heat equation's at every resolution (smoke trains it long enough)."""
    table = pd.read_csv(smoke_run / f"{STUDY}/tables/resolution.csv").set_index(
        ["model", "resolution"]
    )["rel_l2_mean"]
    for resolution in (128, 256):
        fno = table["FNO", resolution]
        heat = table["heat equation (no learning)", resolution]
        assert fno < 0.5 * heat, (resolution, fno, heat)


def test_figures_and_summary_exist(smoke_run):
    for name in ("error_vs_resolution.png", "error_vs_resolution.pdf", "samples.png"):
        assert (smoke_run / f"{STUDY}/figures/{name}").stat().st_size > 1000
    summary = (smoke_run / "results/summary.md").read_text()
    assert "preset: `smoke`" in summary and "| FNO" in summary and "train_model" in summary
    assert "nan" not in (smoke_run / f"{STUDY}/tables/resolution.md").read_text()


def test_study_files_rewritten_with_sorted_keys_replan_nothing(smoke_run):
    """Reordering and reformatting a config (as a YAML formatter does) reruns nothing:
    params reach Snakemake in canonical form."""
    studies = sorted((smoke_run / "config/studies").glob("*.yaml"))
    originals = {path: path.read_text() for path in studies}
    try:
        for path, text in originals.items():
            path.write_text(yaml.safe_dump(yaml.safe_load(text), sort_keys=True))
        result = snakemake("-n", "--config", "preset=smoke", cwd=smoke_run)
    finally:
        for path, text in originals.items():
            path.write_text(text)
    assert result.returncode == 0, result.stderr
    assert "Nothing to be done" in result.stdout + result.stderr, result.stdout[-3000:]


def test_changing_an_fno_hyperparameter_reruns_only_fno_jobs(smoke_run):
    assert planned_after_edit(smoke_run, "fno_burgers", "width: 64", "width: 32") == {
        "train_model": 2,
        "evaluate_model": 2,
        "make_table": 1,
        "cost_table": 1,
        "plot_resolution": 1,
        "plot_samples": 1,
        "summary": 1,
        "results_page": 1,
        "all": 1,
    }


CLOSURES = "results/l96_closures"


def test_closure_tables_hold_every_closure_setup_and_the_noise_floor(smoke_run):
    offline = pd.read_csv(smoke_run / f"{CLOSURES}/tables/offline.csv")
    online = pd.read_csv(smoke_run / f"{CLOSURES}/tables/online.csv")
    assert list(offline.columns) == ["closure", "setup", "r2", "rmse"]
    assert list(online.columns) == [
        "closure", "setup", "hellinger", "kl", "wasserstein", "acf_rmse",
        "forecast_rmse_1mtu", "blowups",
    ]  # fmt: skip
    setups, closures = {"F20", "F16", "F18", "F24"}, {"none", "cubic", "cubic_ar1", "mlp", "fno"}
    assert set(offline["setup"]) == setups and set(offline["closure"]) == closures
    assert set(online["closure"]) == closures | {"truth"}
    assert len(online) == len(setups) * (len(closures) + 1)
    metrics = online[["hellinger", "kl", "wasserstein", "acf_rmse"]]
    assert np.isfinite(metrics.to_numpy()).all() and np.isfinite(offline["rmse"]).all()
    for name in ("climate_pdfs", "autocorrelation", "forecast_skill", "offline_fit"):
        assert (smoke_run / f"{CLOSURES}/figures/{name}.png").stat().st_size > 1000
    summary = (smoke_run / "results/summary.md").read_text()
    assert "l96_closures" in summary and "noise floor" in summary


def test_changing_a_closure_hyperparameter_reruns_only_that_closure(smoke_run):
    planned = planned_after_edit(smoke_run, "l96_closures", "hidden: [32, 32]", "hidden: [16]")
    assert planned == {
        "fit_closure": 1,
        "evaluate_offline": 1,
        "evaluate_online": 1,
        "closure_tables": 1,
        "plot_closures_lorenz96": 1,
        "claims": 1,  # the stability claim reads the online table at every preset
        "summary": 1,
        "results_page": 1,
        "all": 1,
    }


def test_darcy_and_navier_stokes_tables_and_figures(smoke_run):
    darcy = pd.read_csv(smoke_run / "results/fno_darcy/tables/resolution.csv")
    assert set(darcy["model"]) == {"FNO", "FCN", "PCANN", "training-mean field (no learning)"}
    assert set(darcy["resolution"]) == {22, 43}
    assert darcy["rel_l2_mean"].map(math.isfinite).all()
    ns = smoke_run / "results/fno_navier_stokes"
    regimes = pd.read_csv(ns / "tables/regimes.csv")
    assert list(regimes.columns) == REGIME_COLUMNS
    # models in canonical (key) order, then the no-learning references in key order
    assert list(regimes["model"]) == [
        "FNO-2D", "FNO-3D", "ResNet", "U-Net",
        "linear extrapolation of w(9), w(10) (no learning)",
        "persistence of w(10) (no learning)", "training-mean trajectory (no learning)",
    ]  # fmt: skip
    assert regimes["rel_l2_mean"].map(math.isfinite).all()
    assert list(regimes["published"][:4]) == [0.0128, 0.0086, 0.0701, 0.0245]  # the study's
    assert regimes["published"][4:].isna().all()
    # the paper's N and T beside ours (smoke: N = 10, T = 20); nu = 1e-3 is verified
    assert set(regimes["t_final"]) == {20.0} and set(regimes["published_t_final"][:4]) == {50.0}
    assert set(regimes["published_n_train"][:4]) == {1000}
    assert regimes["published_verified"][:4].all()
    superres = pd.read_csv(ns / "superresolution/metrics.csv")
    assert superres["test_resolution"].item() == 2 * superres["train_resolution"].item()
    assert math.isfinite(superres["rel_l2"].item())
    for name in ("error_vs_time", "superresolution"):
        assert (ns / f"figures/{name}.png").stat().st_size > 1000
    assert (smoke_run / "results/fno_darcy/figures/samples.png").stat().st_size > 1000
    summary = (smoke_run / "results/summary.md").read_text()
    assert "fno_darcy" in summary and "| FNO-3D" in summary and "super-resolution" in summary


def test_changing_an_fno3d_hyperparameter_reruns_only_its_jobs(smoke_run):
    planned = planned_after_edit(
        smoke_run,
        "fno_navier_stokes",
        "width: 20, layers: 4, projection: 128, time_padding",
        "width: 12, layers: 4, projection: 128, time_padding",
    )
    assert planned == {
        "train_model": 1,
        "evaluate_model": 1,
        "regimes_table": 1,
        "cost_table": 1,
        "plot_error_vs_time": 1,
        "evaluate_superresolution": 1,
        "plot_superresolution": 1,
        "summary": 1,
        "results_page": 1,
        "all": 1,
    }


def test_report_builds_and_holds_the_results_page(smoke_run):
    result = snakemake("--report", "results/report.html", "--config", "preset=smoke", cwd=smoke_run)
    assert result.returncode == 0, result.stderr[-3000:]
    report = (smoke_run / "results/report.html").read_text()
    assert len(report) > 10_000
    assert "results/report/index.html" in report  # the page of every table and figure


class _Sections(HTMLParser):
    """Tables, images and text of each <section id=...> of a rendered page."""

    def __init__(self):
        super().__init__()
        self.sections, self.current = {}, None

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.current = dict(attrs)["id"]
            self.sections[self.current] = {"table": 0, "img": 0, "text": ""}
        elif self.current and tag in ("table", "img"):
            self.sections[self.current][tag] += 1

    def handle_data(self, data):
        if self.current:
            self.sections[self.current]["text"] += data


CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


BROWSER = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
_PROBE = """<script>window.addEventListener("load", () => {
  const probe = document.createElement("pre"); probe.id = "layout-probe";
  probe.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth});
  document.body.appendChild(probe); });</script>"""


def _layout(page, width, tmp_path):
    """The page's scroll and client widths in a ``width`` px wide window (a copy of the
    page with a script that writes them into the DOM Chromium dumps)."""
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
    dom = subprocess.run(
        [*BROWSER, f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
         probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="layout-probe">(.*?)</pre>', dom)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_results_page_shows_every_table_and_figure_in_a_browser(smoke_run, tmp_path):
    """Headless Chromium renders the page: the claims come first and the solver
    verification last, every study's claims, tables and figures are in the DOM it built,
    the page needs no horizontal scroll in a 1400 px window, and a screenshot is kept
    under results/report/."""
    page = smoke_run / "results/report/index.html"
    dom = subprocess.run(
        [*BROWSER, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    parser = _Sections()
    parser.feed(dom)
    expected = {  # tables (the study's claims table first) and figures per section
        "claims": (1, 0),  # every claim of every study file, first on the page
        "fno_burgers": (3, 2),  # claims, the resolution and cost tables
        "fno_darcy": (3, 2),
        "fno_navier_stokes": (4, 2),  # claims, regimes, super-resolution, cost
        "l96_closures": (3, 5),
        "pdebench_cape": (4, 3),  # claims, parameters, cape_gains, pdebench
        "basic_forms": (2, 1),
        "les_turbulence": (3, 4),  # claims, offline, online
        "r3_sampling": (2, 3),  # claims, errors
        "pig": (2, 2),  # claims, errors; error against iteration, predictions
        "schrodinger": (2, 3),  # and the energy against iteration
        "sdgd": (3, 2),  # claims, errors, scaling; error against iteration, scaling
        "rann": (3, 1),  # claims, errors, slopes; error against N
        "nsm": (3, 1),  # claims, errors, speed; error against training time
        "sw_closures": (3, 4),  # claims, offline, online; solutions, error and energy, regimes, fit
        "hoyer_design": (3, 2),  # claims, tasks, wins; the designs, the compliance curves
        "pbfm_darcy": (2, 1),  # claims, samples; the generated samples
        "validation": (1, 0),  # the solver verification, last
    }
    found = {k: (v["table"], v["img"]) for k, v in parser.sections.items()}
    assert found == expected
    assert list(found) == list(expected)  # in this order
    claims = pd.read_csv(smoke_run / "results/claims.csv", keep_default_na=False)
    assert all(c in parser.sections["claims"]["text"] for c in claims["claim_id"])
    assert "heat equation (no learning)" in parser.sections["fno_burgers"]["text"]
    assert "Published: Li et al. 2021" in parser.sections["fno_navier_stokes"]["text"]
    layout = _layout(page, 1400, tmp_path)
    assert layout["scroll"] <= 1400, layout  # wide tables scroll in their own box
    shot = smoke_run / "results/report/screenshot.png"
    subprocess.run(
        [*BROWSER, "--window-size=1400,2400", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_a_second_clean_run_gives_identical_data_and_metrics(smoke_run, tmp_path):
    again = copy_workflow(tmp_path)
    result = snakemake(
        "--cores",
        "2",
        "--config",
        "preset=smoke",
        "studies=[fno_burgers]",
        "--until",
        "make_table",
        cwd=again,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-5000:]
    for split in ("train", "test"):
        first = xr.open_dataset(smoke_run / f"data/raw/burgers/{split}.nc")
        second = xr.open_dataset(again / f"data/raw/burgers/{split}.nc")
        xr.testing.assert_equal(first, second)  # values and coordinates, not creation times
    table = f"{STUDY}/tables/resolution.csv"
    assert (smoke_run / table).read_text() == (again / table).read_text()
