"""Reporting stages: tables, figures, solver verification, the summary and the results page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from pderepro.data.io import atomic_write, open_netcdf
from pderepro.evaluation.climate import KL_FLOOR
from pderepro.evaluation.results_page import render_results_page
from pderepro.evaluation.summary import render_summary
from pderepro.evaluation.tables import (
    OFFLINE_COLUMNS,
    ONLINE_COLUMNS,
    closure_table,
    resolution_table,
    write_table,
)


def run_table(
    *,
    metrics: Sequence[str],
    csv: str,
    markdown: str,
    published: Mapping[str, Mapping[Any, Mapping[str, Any]]],
    caption: str,
    n_train: int,
    model_order: Sequence[str],
) -> None:
    """Aggregate per-run metrics into the resolution table beside the published numbers.

    ``published`` holds the published cells (value, the paper's N and T, verified flag)
    and ``caption`` their source and conditions; ``n_train`` is our N.
    """
    frame = pd.concat([pd.read_csv(p) for p in metrics], ignore_index=True)
    table = resolution_table(frame, published=published, n_train=n_train, model_order=model_order)
    write_table(table, csv, markdown, caption=caption)


def run_plot_resolution(*, table: str, figures: Sequence[str], title: str) -> None:
    """Figure of error against resolution, with its intervals, from the table."""
    from pderepro.plotting.figures import plot_error_vs_resolution

    plot_error_vs_resolution(pd.read_csv(table), *figures, title=title)


def run_plot_samples(*, predictions: Sequence[str], figures: Sequence[str], n_samples: int) -> None:
    """Figure of test samples with every model's prediction (curves in 1-D, fields in 2-D)."""
    from pderepro.plotting.fields import plot_samples_2d
    from pderepro.plotting.figures import plot_samples_1d

    datasets = [open_netcdf(p) for p in predictions]
    plot = plot_samples_2d if "y" in datasets[0].dims else plot_samples_1d
    plot(datasets, *figures, n_samples=n_samples)


def run_closure_tables(
    *,
    offline: Sequence[str],
    online: Sequence[str],
    outputs: Mapping[str, str],
    online_settings: Mapping[str, Any],
) -> None:
    """The offline (R^2, RMSE of U) and online (climate, forecast, stability) tables."""
    off = closure_table([pd.read_csv(p) for p in offline], OFFLINE_COLUMNS)
    write_table(
        off,
        outputs["offline_csv"],
        outputs["offline_md"],
        caption="Offline skill on each setup's test block: R^2 and RMSE of the closure "
        "target U (units of dX/dt); closures were fitted at the training setup only.",
    )
    frames = [pd.read_csv(p) for p in online]
    members = int(max(f["members"].max() for f in frames))
    pdf = online_settings["pdf"]
    width = (pdf["high"] - pdf["low"]) / pdf["bins"]
    caption = (
        "Online: each closure coupled into the coarse model, "
        f"{members} climate runs per setup against a truth ensemble of the same size; "
        "the `truth` rows score a second, independent truth ensemble (the noise floor). "
        "Hellinger distance H = sqrt(1/2 sum (sqrt p - sqrt q)^2) (with the square root; "
        f"Gagne et al. report H^2) on {pdf['bins']} bins of width {width:g} over "
        f"[{pdf['low']:g}, {pdf['high']:g}]; KL(truth || model) in nats with the model PDF "
        f"floored at {KL_FLOOR:g}; Wasserstein-1 in units of X; acf_rmse: RMS difference "
        f"of the autocorrelation of X up to lag {online_settings['acf_max_lag']:g}; "
        f"forecast_rmse_1mtu: ensemble-mean RMSE at lead {online_settings['forecast_lead']:g}"
        f" time units; blowups: climate runs (of {members}) that left |X| <= "
        f"{online_settings['blowup_threshold']:g}, scored on the rest."
    )
    write_table(
        closure_table(frames, ONLINE_COLUMNS),
        outputs["online_csv"],
        outputs["online_md"],
        caption=caption,
    )


def run_plot_closures(
    *,
    offline: Sequence[str],
    online: Sequence[str],
    table: str,
    outputs: Mapping[str, str],
    title: str,
    training_setup: str,
    setups: Mapping[str, float],
) -> None:
    """Every figure of a closure study from the offline and online curves and table."""
    from pderepro.plotting.closures import plot_closure_figures

    plot_closure_figures(
        [open_netcdf(p) for p in offline],
        [open_netcdf(p) for p in online],
        pd.read_csv(table),
        outputs,
        title=title,
        training_setup=training_setup,
        setups=setups,
    )


def run_validate_solvers(*, csv: str, figures: Sequence[str]) -> None:
    """Convergence of every solver against exact solutions: table and figure."""
    # imported here: the solvers bring torch and numba, which the table jobs of this
    # module never need
    from pderepro.plotting.figures import plot_convergence
    from pderepro.verification.allen_cahn import allen_cahn_verification
    from pderepro.verification.burgers import burgers_convergence
    from pderepro.verification.darcy import darcy_convergence
    from pderepro.verification.diffusion_reaction import diffusion_reaction_verification
    from pderepro.verification.elasticity import elasticity_verification
    from pderepro.verification.lorenz96 import lorenz96_convergence
    from pderepro.verification.navier_stokes import navier_stokes_verification
    from pderepro.verification.navier_stokes_box import navier_stokes_box_verification
    from pderepro.verification.nsm import nsm_verification
    from pderepro.verification.pdebench import pdebench_verification
    from pderepro.verification.pdebench_ic import initial_law_verification
    from pderepro.verification.schrodinger import schrodinger_verification
    from pderepro.verification.shallow_water import shallow_water_verification

    studies = [
        burgers_convergence,
        lorenz96_convergence,
        darcy_convergence,
        navier_stokes_verification,
        navier_stokes_box_verification,
        initial_law_verification,
        pdebench_verification,
        diffusion_reaction_verification,
        allen_cahn_verification,
        schrodinger_verification,
        nsm_verification,
        shallow_water_verification,
        elasticity_verification,
    ]
    table = pd.concat([study() for study in studies], ignore_index=True)
    atomic_write(csv, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    plot_convergence(table, *figures)


def run_summary(
    *,
    output: str,
    preset: str,
    studies: Mapping[str, dict],
    claims: str,
    validation: str | None,
    benchmarks: Sequence[str],
) -> None:
    """Write ``results/summary.md``: the claims (``results/claims.csv``) first."""
    text = render_summary(
        preset=preset,
        studies=studies,
        claims_table=claims,
        validation_table=validation,
        benchmark_files=benchmarks,
    )
    atomic_write(output, lambda tmp: Path(tmp).write_text(text))


def run_results_page(
    *,
    output: str,
    preset: str,
    sections: Mapping[str, dict],
    claims: str,
    validation: str | None,
) -> None:
    """Write ``results/report/index.html``: the claims (``results/claims.csv``), then every
    table and figure, on one page."""
    text = render_results_page(
        preset=preset, sections=sections, claims_table=claims, validation_table=validation
    )
    atomic_write(output, lambda tmp: Path(tmp).write_text(text))
