"""A small explicit training loop with resumable, self-describing checkpoints, and
checkpoint selection on a validation split (the weights of the epoch with the lowest
validation loss are the ones kept)."""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from pderepro.models.normalised import NormalisedModel
from pderepro.training.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pderepro.training.losses import LOSSES

log = logging.getLogger(__name__)


#: Column of the training history that records each loss of
#: :data:`~pderepro.training.losses.LOSSES` (per-sample
#: losses ``(batch, *grid) -> (batch,)``, summed over a batch as the paper does).
HISTORY_COLUMNS = {"relative_l2": "train_rel_l2", "mse": "train_mse"}
#: Column of the history that records the validation loss (per-sample mean).
VALIDATION_COLUMNS = {"relative_l2": "val_rel_l2", "mse": "val_mse"}
#: Validation samples per forward pass.
VALIDATION_BATCH = 32


def selected_epoch(history: list[dict[str, float]]) -> int | None:
    """The epoch whose weights a run keeps: the first with the lowest validation loss
    (``None`` when the history has no validation column: then the last epoch's)."""
    column = next((c for c in VALIDATION_COLUMNS.values() if history and c in history[0]), None)
    if column is None:
        return None
    best = min(history, key=lambda row: row[column])
    return int(best["epoch"])


@torch.no_grad()
def validation_loss(
    model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor, loss: str
) -> float:
    """Mean per-sample ``loss`` of ``model`` on validation pairs ``(N, *grid)`` (already
    on the model's device), in evaluation mode and in float32."""
    model.eval()
    total = 0.0
    for first in range(0, len(inputs), VALIDATION_BATCH):
        batch = slice(first, first + VALIDATION_BATCH)
        total += LOSSES[loss](model(inputs[batch]).float(), targets[batch]).sum().item()
    return total / len(inputs)


class TrainingDivergedError(RuntimeError):
    """The training loss became NaN or infinite."""


@dataclass(frozen=True)
class TrainingConfig:
    """Optimisation settings of one training run (Adam + learning-rate schedule).

    Attributes
    ----------
    epochs : int
        Passes over the training set.
    batch_size : int
        Samples per optimiser step.
    learning_rate, weight_decay : float
        Adam settings (weight decay as L2 penalty, as in the FNO paper).
    scheduler : str
        ``step`` (StepLR every ``step_fraction * epochs`` epochs, factor ``gamma``: the
        paper's StepLR(100, 0.5) at 500 epochs is ``step_fraction=0.2``), ``cosine``
        (cosine annealing to zero over all epochs) or ``constant``.
    checkpoint_every : int
        Epochs between resumable checkpoints.
    amp_bf16 : bool
        bf16 autocast on CUDA (ignored on CPU).
    loss : str
        ``relative_l2`` (per-sample relative L2, the FNO paper's loss) or ``mse`` (mean
        squared error per sample, for closures whose targets pass through zero).
    devices : int
        Processes training together with DistributedDataParallel (GPUs, or CPU
        processes with gloo); each takes its share of every batch.
    """

    epochs: int
    batch_size: int = 20
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    scheduler: str = "step"
    step_fraction: float = 0.2
    gamma: float = 0.5
    checkpoint_every: int = 10
    amp_bf16: bool = False
    devices: int = 1
    loss: str = "relative_l2"

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"training.loss: unknown {self.loss!r}; use one of {sorted(LOSSES)}")

    @classmethod
    def from_mapping(cls, cfg: Mapping[str, Any]) -> TrainingConfig:
        """Build from a config mapping, ignoring keys that are not optimisation settings."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in cfg.items() if k in names})


def _make_scheduler(
    optimizer: torch.optim.Optimizer, cfg: TrainingConfig
) -> torch.optim.lr_scheduler.LRScheduler:
    if cfg.scheduler == "step":
        step = max(1, round(cfg.step_fraction * cfg.epochs))
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=step, gamma=cfg.gamma)
    if cfg.scheduler == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    if cfg.scheduler == "constant":
        return torch.optim.lr_scheduler.ConstantLR(optimizer, factor=1.0, total_iters=0)
    raise ValueError(f"training.scheduler: unknown {cfg.scheduler!r}; use step, cosine or constant")


def _global_sum(value: torch.Tensor, world_size: int) -> float:
    """Sum of a scalar over all ranks (the value itself without distribution)."""
    if world_size > 1:
        value = value.clone()
        torch.distributed.all_reduce(value)
    return value.item()


def _resume_state(resume_path: Path, identity: dict[str, Any]) -> dict | None:
    """The saved state if ``resume_path`` holds a checkpoint of this very run."""
    if not resume_path.exists():
        return None
    saved = load_checkpoint(resume_path)
    saved_identity = saved["metadata"].get("identity", {})
    if saved_identity == identity:
        return saved
    same_run = {k: v for k, v in saved_identity.items() if k != "data_fingerprint"} == {
        k: v for k, v in identity.items() if k != "data_fingerprint"
    }
    if same_run:
        raise CheckpointError(
            f"{resume_path}: was trained on different data (fingerprint "
            f"{saved_identity.get('data_fingerprint', '?')[:12]} vs "
            f"{identity['data_fingerprint'][:12]}); delete it to start over"
        )
    log.warning("%s belongs to a different configuration; starting from scratch", resume_path)
    return None


def train(
    model: NormalisedModel,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    cfg: TrainingConfig,
    *,
    seed: int,
    device: torch.device,
    identity: dict[str, Any],
    resume_path: str | Path,
    validation: tuple[torch.Tensor, torch.Tensor] | None = None,
    progress: bool = True,
    rank: int = 0,
    world_size: int = 1,
    stop_epoch: int | None = None,
) -> list[dict[str, float]]:
    """Train ``model`` in place with Adam and ``cfg.loss``, resuming when possible.

    With ``validation`` pairs, the loss on them is measured after every epoch and the
    model ends with the weights of the epoch where it was lowest (:func:`selected_epoch`);
    without, with the last epoch's.

    Parameters
    ----------
    model : NormalisedModel
        Freshly initialised (seeded by the caller); moved to ``device``.
    inputs, targets : torch.Tensor
        Training pairs ``(N, *grid)`` in physical units, float32.
    cfg : TrainingConfig
        Optimisation settings.
    seed : int
        Seed of the batch shuffling.
    device : torch.device
        Where to train.
    identity : dict
        What makes this run this run (architecture, hyperparameters, seed, data
        fingerprint); a checkpoint at ``resume_path`` is used only if it matches.
    resume_path : path
        Resumable checkpoint, written every ``cfg.checkpoint_every`` epochs (by rank 0).
    validation : tuple of torch.Tensor, optional
        Validation inputs and targets ``(N_val, *grid)`` in physical units, float32;
        every rank scores all of them (the weights are the same on every rank).
    rank, world_size : int
        Position in a DistributedDataParallel group (initialised by the caller). Each
        rank takes every ``world_size``-th sample of each global batch and its loss is
        scaled by ``world_size``, so the averaged gradients equal the single-process
        gradient of the whole batch.
    stop_epoch : int, optional
        End this call after that many epochs (counted from the run's start, below
        ``cfg.epochs``), saving the full state (weights, optimiser, scheduler, shuffling
        RNG, history, best weights so far) to ``resume_path``: one segment of a training
        longer than a cluster job may run. The next call resumes from it, and the
        segments together give the weights and history of one uninterrupted call.

    Returns
    -------
    list of dict
        One row per epoch: ``epoch, train_rel_l2`` (or ``train_mse``), with validation
        ``val_rel_l2`` (or ``val_mse``), ``lr, seconds``.
    """
    resume_path = Path(resume_path)
    model.to(device)
    optimizer = torch.optim.Adam(
        model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay
    )
    scheduler = _make_scheduler(optimizer, cfg)
    shuffle = torch.Generator().manual_seed(seed)
    history: list[dict[str, float]] = []
    start_epoch = 0
    best_state: dict[str, torch.Tensor] | None = None  # weights of the selected epoch (CPU)
    saved = _resume_state(resume_path, identity)
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        shuffle.set_state(saved["rng"])
        history = saved["metadata"]["history"]
        start_epoch = saved["metadata"]["epoch"]
        best_state = saved.get("best_model")
        log.info("resuming from %s at epoch %d", resume_path, start_epoch)

    inputs, targets = inputs.to(device), targets.to(device)
    if validation is not None:
        validation = (validation[0].to(device), validation[1].to(device))
    n = inputs.shape[0]
    forward = model
    if world_size > 1:
        from torch.nn.parallel import DistributedDataParallel

        forward = DistributedDataParallel(
            model, device_ids=[device] if device.type == "cuda" else None
        )
    use_amp = cfg.amp_bf16 and device.type == "cuda"
    loss_fn, loss_key = LOSSES[cfg.loss], HISTORY_COLUMNS[cfg.loss]
    end = cfg.epochs if stop_epoch is None else min(stop_epoch, cfg.epochs)
    bar = tqdm(
        range(start_epoch, end),
        initial=start_epoch,
        total=cfg.epochs,
        desc="train",
        disable=not progress or rank != 0,
        mininterval=5.0,
    )
    for epoch in bar:
        model.train()
        tic = time.perf_counter()
        order = torch.randperm(n, generator=shuffle).to(device)
        total = 0.0
        for first in range(0, n, cfg.batch_size):
            batch = order[first : first + cfg.batch_size][rank::world_size]
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=use_amp):
                pred = forward(inputs[batch])  # (batch, *grid)
            loss = loss_fn(pred.float(), targets[batch]).sum()  # summed, as the paper
            optimizer.zero_grad(set_to_none=True)
            (loss * world_size).backward()  # DDP averages gradients over ranks
            optimizer.step()
            total += _global_sum(loss.detach(), world_size)
        if not math.isfinite(total):
            raise TrainingDivergedError(
                f"training loss is {total} at epoch {epoch + 1}; lower training.learning_rate"
            )
        lr = optimizer.param_groups[0]["lr"]
        scheduler.step()
        row = {"epoch": epoch + 1, loss_key: total / n}
        if validation is not None:
            val_key = VALIDATION_COLUMNS[cfg.loss]
            row[val_key] = validation_loss(model, *validation, cfg.loss)
            if not math.isfinite(row[val_key]):
                raise TrainingDivergedError(
                    f"validation loss is {row[val_key]} at epoch {epoch + 1}; lower "
                    "training.learning_rate"
                )
            if selected_epoch([*history, row]) == epoch + 1:
                best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        row.update(lr=lr, seconds=time.perf_counter() - tic)
        history.append(row)
        bar.set_postfix(loss=f"{row[loss_key]:.3e}", lr=f"{lr:.1e}", refresh=False)
        log.debug("epoch %d: %s", epoch + 1, row)
        done = epoch + 1
        segment_end = done == end and end < cfg.epochs
        due = done % cfg.checkpoint_every == 0 or segment_end
        if due and done < cfg.epochs and rank == 0:
            save_checkpoint(
                resume_path,
                metadata={"identity": identity, "epoch": done, "history": history},
                model=model.state_dict(),
                optimizer=optimizer.state_dict(),
                scheduler=scheduler.state_dict(),
                rng=shuffle.get_state(),
                **({"best_model": best_state} if best_state is not None else {}),
            )
    bar.close()
    if end < cfg.epochs:  # a segment: the state is saved, the next segment goes on from it
        return history
    if best_state is not None:
        model.load_state_dict(best_state)
        log.info("kept the weights of epoch %d (lowest validation loss)", selected_epoch(history))
    return history
