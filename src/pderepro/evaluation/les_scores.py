"""Scores of LES closures of 2-D turbulence: loading a fitted closure, offline and a posteriori.

- :func:`load_les_closure` rebuilds the LES closure
  (:class:`pderepro.solvers.turbulence.les_closures.Closure`) of a checkpoint of the ``fit_closure``
  stage: a classical closure from its name and constant, the CNN from its weights, SMARL from its
  exported policy.
- :func:`offline_scores`: the closure's ``Pi`` against the exact one on held-out filtered DNS
  (correlation over all points, RMSE).
- :func:`a_posteriori_scores`: statistics of LES runs against the reference (the filtered DNS):
  log errors of the enstrophy and energy spectra over the shells the LES advects, the Hellinger
  distance of the vorticity PDF, and the tail ratio beyond ``n_sigma`` reference standard
  deviations (conventions of :mod:`pderepro.evaluation.turbulence`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
import xarray as xr

from pderepro.evaluation.climate import hellinger
from pderepro.evaluation.turbulence import spectrum_log_error, tail_mass
from pderepro.evaluation.turbulence_truth import truth_statistics
from pderepro.models.les_cnn import CnnClosure, build_cnn_closure_model
from pderepro.models.smarl import SmarlClosure, SmarlPolicy
from pderepro.solvers.turbulence.les_closures import Closure, make_closure
from pderepro.solvers.turbulence.les_filters import advected_part
from pderepro.training.checkpoint import CheckpointError, load_checkpoint

__all__ = [
    "CLASSICAL_KINDS",
    "a_posteriori_scores",
    "advected_shells",
    "field_statistics",
    "load_les_closure",
    "offline_scores",
]

#: Closure kinds with nothing to fit (their constants are the textbook ones or given).
CLASSICAL_KINDS = ("none", "smagorinsky", "leith", "dynamic_smagorinsky")


def advected_shells(n_les: int) -> int:
    """Largest shell ``K`` all of whose modes an ``n_les`` LES advects (2/3 rule,
    ``|k_x|, |k_y| < n_les / 3``): the top of the range its spectra are scored on."""
    return (n_les - 1) // 3


def load_les_closure(
    path: str | Path, *, expect: Mapping[str, Any] | None = None
) -> tuple[Closure, dict]:
    """The LES closure in a ``fit_closure`` checkpoint and its metadata.

    Parameters
    ----------
    path : path
        Checkpoint written by :func:`pderepro.stages.turbulence.run_fit_closure_turbulence`.
    expect : mapping, optional
        Metadata entries that must match (e.g. ``{"closure": "cnn"}``).

    Raises
    ------
    CheckpointError
        If an expected entry does not match.
    """
    checkpoint = load_checkpoint(path, expect=expect)
    meta = checkpoint["metadata"]
    kind = meta["kind"]
    if kind in CLASSICAL_KINDS:
        options = {"coefficient": meta["constant"]} if meta.get("constant") is not None else {}
        return make_closure(kind, **options), meta
    if kind == "cnn":
        model = build_cnn_closure_model(meta["hparams"], meta["stats"])
        model.load_state_dict(checkpoint["model"])
        return CnnClosure(model), meta
    if kind == "smarl":
        policy = SmarlPolicy(hidden=tuple(meta["hidden"]))
        policy.load_state_dict(checkpoint["policy"])
        closure = SmarlClosure(
            policy.eval(), agents_per_side=meta["agents_per_side"], cs_max=meta["cs_max"],
            scales=np.asarray(meta["scales"]),
            steps_per_action=meta["steps_per_action"],  # as in training
        )  # fmt: skip
        return closure, meta
    raise CheckpointError(f"{path}: unknown LES closure kind {kind!r}")


def offline_scores(
    closure: Closure, w_bar: np.ndarray, pi: np.ndarray, box_size: float, *, chunk: int = 64
) -> tuple[dict[str, float], np.ndarray]:
    """The closure's ``Pi`` on resolved fields against the exact one.

    Parameters
    ----------
    closure : Closure
        Applied to each field once (a fresh SMARL closure acts on each); its ``Pi`` is scored
        on the modes the LES advects, the only ones the LES uses.
    w_bar, pi : numpy.ndarray
        Filtered vorticity (1/time) and exact subgrid term (1/time^2), ``(N, n, n)``, both on
        the advected modes (:func:`~pderepro.solvers.turbulence.les_filters.advected_part`).
    box_size : float
        Box side ``L``.

    Returns
    -------
    (dict, numpy.ndarray)
        ``pi_correlation`` (Pearson, over all grid points of the advected parts; NaN for a
        closure that predicts zero) and
        ``pi_rmse`` (1/time^2); the predictions ``(N, n, n)``.
    """
    preds = []
    for first in range(0, len(w_bar), chunk):
        if hasattr(closure, "reset"):
            closure.reset()
        w = torch.as_tensor(w_bar[first : first + chunk], dtype=torch.float64)
        with torch.no_grad():  # the LES keeps only the advected part of a closure's Pi
            preds.append(advected_part(closure(w, box_size)).numpy())
    pred = np.concatenate(preds)
    p, t = pred.ravel(), np.asarray(pi, dtype=np.float64).ravel()
    correlation = float(np.corrcoef(p, t)[0, 1]) if p.std() > 0 and t.std() > 0 else np.nan
    return {"pi_correlation": correlation, "pi_rmse": float(np.sqrt(np.mean((p - t) ** 2)))}, pred


def field_statistics(
    w: np.ndarray, box_size: float, edges: np.ndarray, n_sigma: float = 3.0
) -> xr.Dataset | None:
    """Mean spectra, PDF, mean and ``sigma`` of the finite fields of ``w`` (..., n, n) (those of
    blown-up runs are NaN and left out); :func:`~pderepro.evaluation.turbulence_truth.
    truth_statistics` of them. ``None`` if no field is finite."""
    fields = np.asarray(w, dtype=np.float64).reshape(-1, *w.shape[-2:])
    fields = fields[np.isfinite(fields).all(axis=(1, 2))]
    if len(fields) == 0:
        return None
    ds = xr.Dataset({"w": (("member", "time", "x", "y"), fields[None])},
                    attrs={"box_size": float(box_size)})  # fmt: skip
    return truth_statistics(ds, edges=edges, n_sigma=n_sigma)


def a_posteriori_scores(
    stats: xr.Dataset | None, reference: xr.Dataset, fields: np.ndarray, *, k_max: int,
    n_sigma: float = 3.0,
) -> dict[str, float]:  # fmt: skip
    """Statistics of LES runs scored against the reference's.

    Parameters
    ----------
    stats, reference : xarray.Dataset
        :func:`field_statistics` of the LES fields (``None`` if all blew up) and of the
        reference (the filtered DNS), on the same PDF bins and grid; the reference's tail mass
        beyond the same ``n_sigma``.
    fields : numpy.ndarray
        The LES fields ``(..., n, n)`` behind ``stats`` (for the tail mass).
    k_max : int
        Largest shell scored (:func:`advected_shells`); shells ``1 .. k_max``.
    n_sigma : float
        Tail threshold in reference standard deviations from the reference mean.

    Returns
    -------
    dict
        ``enstrophy_spectrum_log_error``, ``energy_spectrum_log_error``, ``pdf_hellinger`` and
        ``tail_ratio`` (LES tail mass over the reference's); NaN where every run blew up.
    """
    if stats is None:
        names = ("enstrophy_spectrum_log_error", "energy_spectrum_log_error", "pdf_hellinger",
                 "tail_ratio")  # fmt: skip
        return dict.fromkeys(names, float("nan"))
    mean, sigma = float(reference["mean"]), float(reference["sigma"])
    ref_tail = float(reference["tail_mass"])
    tail = tail_mass(fields, mean=mean, sigma=sigma, n_sigma=n_sigma)
    return {
        "enstrophy_spectrum_log_error": spectrum_log_error(
            stats["enstrophy_spectrum"].to_numpy(), reference["enstrophy_spectrum"].to_numpy(),
            k_max=k_max,
        ),
        "energy_spectrum_log_error": spectrum_log_error(
            stats["energy_spectrum"].to_numpy(), reference["energy_spectrum"].to_numpy(),
            k_max=k_max,
        ),
        "pdf_hellinger": hellinger(stats["pdf"].to_numpy(), reference["pdf"].to_numpy()),
        "tail_ratio": tail / ref_tail if ref_tail > 0 else float("nan"),
    }  # fmt: skip
