"""Training of one-step autoregressive surrogates on trajectories, with CAPE's curriculum
from teacher forcing to autoregression (Takamoto et al., ICML 2023; docs/references.md).

At normalised epoch ``e`` in [0, 1] the first ``t_ar = t_train (1 + tanh((e - 1/2) /
0.2)) / 2`` predicted steps of a trajectory are made from the model's own predictions and
the remaining steps from true frames (teacher forcing), so training starts as teacher
forcing and ends as a full rollout. ``curriculum=False`` trains by teacher forcing at
every step (the ablation). The loss is the mean squared error of every predicted frame,
plus, for CAPE models, the same error of the CAPE estimate (the auxiliary loss). Inputs
get Gaussian noise of standard deviation ``input_noise`` (in normalised units).

Trajectories arrive normalised (the caller divides by the train split's statistics);
the model works in those units throughout.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from dataclasses import dataclass

import torch
from torch import Tensor

from pderepro.models.step1d import StepModel, rollout

log = logging.getLogger(__name__)

#: Progress lines per run (one every tenth of the epochs, and the last).
PROGRESS_LINES = 10
#: Width of the curriculum's tanh ramp, in normalised epochs (CAPE: 0.2).
CURRICULUM_WIDTH = 0.2


def autoregressive_steps(progress: float, steps: int) -> int:
    """Predicted steps fed the model's own predictions at normalised epoch ``progress``.

    Parameters
    ----------
    progress : float
        Normalised epoch in [0, 1].
    steps : int
        Predicted steps per trajectory (``t_train``).

    Returns
    -------
    int
        ``floor(steps (1 + tanh((progress - 0.5) / 0.2)) / 2)``, between 0 and ``steps``.
    """
    if not 0.0 <= progress <= 1.0:
        raise ValueError(f"progress must lie in [0, 1], got {progress}")
    share = (1.0 + math.tanh((progress - 0.5) / CURRICULUM_WIDTH)) / 2.0
    return min(steps, int(math.floor(steps * share)))


@dataclass(frozen=True)
class AutoregressiveConfig:
    """Optimisation settings of an autoregressive run (CAPE protocol by default).

    Attributes
    ----------
    epochs, batch_size : int
        Passes over the training trajectories and trajectories per step.
    learning_rate, weight_decay : float
        Adam settings.
    step_epochs : int
        Epochs between halvings of the learning rate (StepLR(20, 0.5) in CAPE).
    gamma : float
        Factor of each halving.
    curriculum : bool
        Teacher forcing to autoregression (True) or teacher forcing throughout.
    input_noise : float
        Standard deviation of the noise added to input frames (normalised units).
    aux_weight : float
        Weight of the CAPE estimate's loss.
    """

    epochs: int
    batch_size: int = 50
    learning_rate: float = 3e-3
    weight_decay: float = 0.0
    step_epochs: int = 20
    gamma: float = 0.5
    curriculum: bool = True
    input_noise: float = 1e-3
    aux_weight: float = 1.0


def _windows(truth: Tensor, context: int, steps: int) -> Tensor:
    """True input windows of every step: ``(batch, steps, context, n)``."""
    return torch.stack([truth[:, k : k + context] for k in range(steps)], dim=1)


def trajectory_loss(
    model: StepModel,
    truth: Tensor,
    params: Tensor | None,
    n_autoregressive: int,
    noise: float = 0.0,
) -> tuple[Tensor, Tensor | None]:
    """Loss of one batch of trajectories: the first ``n_autoregressive`` steps rolled
    out from the true context, the rest teacher-forced.

    Parameters
    ----------
    truth : Tensor
        ``(batch, context + steps, n)`` normalised frames.
    params : Tensor or None
        ``(batch, n_params)``.
    n_autoregressive : int
        Steps fed the model's own predictions.
    noise : float
        Standard deviation of the input noise.

    Returns
    -------
    tuple
        The mean squared error over every predicted frame (a scalar tensor), and the
        CAPE estimates' (``None`` for a model without CAPE); the caller weights the two.
    """
    context = model.context
    steps = truth.shape[1] - context
    if steps < 1:
        raise ValueError(f"trajectories of {truth.shape[1]} frames leave no step after context")
    start = truth[:, :context]
    if noise:
        start = start + noise * torch.randn_like(start)
    preds, estimates = [], []
    if n_autoregressive:
        out = rollout(model, start, params, n_autoregressive)
        preds.append(out.frames)  # (batch, n_ar, n)
        if out.cape is not None:
            estimates.append(out.cape)
    rest = steps - n_autoregressive
    if rest:
        windows = _windows(truth, context, steps)[:, n_autoregressive:]  # (b, rest, c, n)
        if noise:
            windows = windows + noise * torch.randn_like(windows)
        flat = windows.flatten(0, 1)  # (batch * rest, context, n)
        flat_params = None if params is None else params.repeat_interleave(rest, dim=0)
        out = model(flat, flat_params)
        preds.append(out.frame.unflatten(0, (truth.shape[0], rest)))  # (b, rest, n)
        if out.cape is not None:
            estimates.append(out.cape.unflatten(0, (truth.shape[0], rest)))
    target = truth[:, context:]  # (batch, steps, n)
    loss = (torch.cat(preds, dim=1) - target).square().mean()
    if estimates:
        return loss, (torch.cat(estimates, dim=1) - target).square().mean()
    return loss, None


@torch.no_grad()
def rollout_error(model: StepModel, truth: Tensor, params: Tensor | None) -> float:
    """Mean over trajectories of the relative L2 error of a full rollout from the true
    context, over the predicted frames only (normalised units)."""
    model.eval()
    context = model.context
    pred = rollout(model, truth[:, :context], params, truth.shape[1] - context).frames
    target = truth[:, context:]
    errors = (pred - target).flatten(1).norm(dim=1) / target.flatten(1).norm(dim=1)
    return errors.mean().item()


def train_autoregressive(
    model: StepModel,
    trajectories: Tensor,
    params: Tensor | None,
    cfg: AutoregressiveConfig,
    *,
    seed: int,
    validation: tuple[Tensor, Tensor | None] | None = None,
) -> list[dict[str, float]]:
    """Train ``model`` in place; with validation, keep the epoch with the lowest
    validation rollout error.

    Parameters
    ----------
    trajectories : Tensor
        ``(N, context + t_train, n)`` normalised training frames.
    params : Tensor or None
        ``(N, n_params)``.
    validation : tuple, optional
        Validation trajectories and parameters, scored by a full rollout.

    Returns
    -------
    list of dict
        Per epoch: ``epoch, n_autoregressive, train_loss, aux_loss, val_rollout_rel_l2,
        lr``.
    """
    optimizer = torch.optim.Adam(
        model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay
    )
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, cfg.step_epochs, cfg.gamma)
    shuffle = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the input noise
    steps = trajectories.shape[1] - model.context
    history: list[dict[str, float]] = []
    best, best_state = math.inf, None
    tic = time.perf_counter()
    every = max(1, cfg.epochs // PROGRESS_LINES)
    for epoch in range(cfg.epochs):
        progress = epoch / max(1, cfg.epochs - 1)
        n_ar = autoregressive_steps(progress, steps) if cfg.curriculum else 0
        model.train()
        order = torch.randperm(len(trajectories), generator=shuffle)
        totals = [0.0, 0.0]
        for first in range(0, len(order), cfg.batch_size):
            batch = order[first : first + cfg.batch_size]
            loss, aux = trajectory_loss(
                model,
                trajectories[batch],
                None if params is None else params[batch],
                n_ar,
                cfg.input_noise,
            )
            total = loss if aux is None else loss + cfg.aux_weight * aux
            optimizer.zero_grad(set_to_none=True)
            total.backward()
            optimizer.step()
            totals[0] += loss.item() * len(batch)
            totals[1] += 0.0 if aux is None else aux.item() * len(batch)
        if not math.isfinite(totals[0]):
            raise FloatingPointError(f"training loss is {totals[0]} at epoch {epoch + 1}")
        row = {
            "epoch": epoch + 1,
            "n_autoregressive": n_ar,
            "train_loss": totals[0] / len(order),
            "aux_loss": totals[1] / len(order),
            "lr": optimizer.param_groups[0]["lr"],
        }
        scheduler.step()
        if validation is not None:
            row["val_rollout_rel_l2"] = rollout_error(model, *validation)
            if row["val_rollout_rel_l2"] < best:
                best, best_state = row["val_rollout_rel_l2"], copy.deepcopy(model.state_dict())
        history.append(row)
        if (epoch + 1) % every == 0 or epoch + 1 == cfg.epochs:
            log.info(
                "epoch %d/%d: loss %.3e, validation rollout %.3e, %d autoregressive steps, "
                "%.0f s", epoch + 1, cfg.epochs, row["train_loss"],
                row.get("val_rollout_rel_l2", math.nan), n_ar, time.perf_counter() - tic,
            )  # fmt: skip
    if best_state is not None:
        model.load_state_dict(best_state)
    return history
