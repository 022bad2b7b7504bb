"""Test error of pderepro's FNO against ``neuralop.models.FNO`` trained alike (run by hand).

Both models are trained on the quick preset's processed files with the same budget
(epochs, batch size, Adam learning rate and weight decay, schedule, relative L2 loss
summed over the batch, inputs and targets normalised by the scalar train mean and std),
the same seeds and the same batch order per seed, one after the other per seed
(ours, theirs, ours, ...).  Ours is trained by :func:`pderepro.training.loop.train`;
neuraloperator's (an optional benchmark dependency) by the minimal loop below, which does
the same thing.  Both keep the last epoch's weights (no validation-based selection), and
both are scored on the validation and the test split; choose settings on validation.

- ``burgers``: FNO-1D ``u0 -> u(., 1)`` at s = 1024 (``data/processed/burgers/res1024``).
- ``darcy``: FNO-2D ``a -> u`` at s = 85 (``data/processed/darcy/res85``).

neuraloperator is configured as in ``fno1d_vs_neuraloperator.py`` and
``fno2d3d_vs_neuraloperator.py`` (same retained modes, single linear lifting, linear skip,
no channel MLP, projection ``width -> 128 -> 1``, the same padded grid for Darcy); the
parameter counts are printed and agree.

``--ablation`` runs a variant that changes one difference between the two (or one
setting of both); each value is one variant, ``a+b`` combines switches, ``none`` is the
baseline.  Runs a variant leaves unchanged on one side are trained once and reused.
``--list-ablations`` describes them.

Example::

    python benchmarks/fno_peer_accuracy.py --problem burgers --seeds 0 1
    python benchmarks/fno_peer_accuracy.py --problem darcy --ablation none,ours-paper-init
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import xarray as xr
from torch import nn

from pderepro.config import deep_merge, load_yaml
from pderepro.models import build_model
from pderepro.models.normalised import NormalisedModel
from pderepro.training.loop import TrainingConfig, train

sys.path.insert(0, str(Path(__file__).parent))
from _neuralop import real_parameter_count  # noqa: E402  (beside this script)
from fno_peer_variants import ABLATIONS, Variant, build_theirs, make_variant  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Problem:
    """One comparison: where its files are and which study and preset give its budget."""

    study: str
    subdir: str
    input: str
    target: str


PROBLEMS = {
    "burgers": Problem("fno_burgers", "burgers/res1024", "u0", "u"),
    "darcy": Problem("fno_darcy", "darcy/res85", "a", "u"),
}


# --------------------------------------------------------------------------- data


def load_split(directory: Path, split: str, problem: Problem) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and targets of one split, ``(N, *grid)`` float32."""
    with xr.open_dataset(directory / f"{split}.nc") as ds:
        inputs = torch.from_numpy(ds[problem.input].to_numpy()).float()
        targets = torch.from_numpy(ds[problem.target].to_numpy()).float()
    return inputs, targets


def scalar_stats(directory: Path, problem: Problem) -> dict[str, float]:
    """The pipeline's normalisation: scalar train mean and std, read from stats.nc."""
    with xr.open_dataset(directory / "stats.nc") as ds:
        return {
            "input_mean": float(ds[f"{problem.input}_mean"]),
            "input_std": float(ds[f"{problem.input}_std"]),
            "target_mean": float(ds[f"{problem.target}_mean"]),
            "target_std": float(ds[f"{problem.target}_std"]),
        }


def quick_budget(problem: Problem) -> tuple[dict[str, Any], dict[str, Any]]:
    """Model hparams and training settings of the study merged with the quick preset."""
    study = load_yaml(ROOT / "config/studies" / f"{problem.study}.yaml")
    preset = load_yaml(ROOT / "config/presets/quick.yaml").get(problem.study, {})
    merged = deep_merge(study, preset)
    return merged["models"]["fno"]["hparams"], merged["training"]


# --------------------------------------------------------------------------- models


def build_ours(problem: Problem, hparams: dict[str, Any], shape: tuple[int, ...]) -> nn.Module:
    arch = "fno1d" if len(shape) == 1 else "fno2d"
    return build_model(arch, hparams, resolution=shape[-1], n_train=1, input_shape=shape)


def normalise(net: nn.Module, stats: dict[str, float], pointwise: dict | None) -> NormalisedModel:
    model = NormalisedModel(net, stats)
    if pointwise is not None:  # replace the scalar buffers by (*grid) ones
        for name, value in pointwise.items():
            setattr(model, name, value.clone())
    return model


def pointwise_stats(inputs: torch.Tensor, targets: torch.Tensor) -> dict[str, torch.Tensor]:
    """Per-grid-point train mean and std ``(*grid)``; a floor keeps Darcy's boundary (where
    u = 0 in every sample) from dividing by zero."""
    eps = 1e-6
    return {
        "input_mean": inputs.mean(0),
        "input_std": inputs.std(0).clamp_min(eps * inputs.std()),
        "target_mean": targets.mean(0),
        "target_std": targets.std(0).clamp_min(eps * targets.std()),
    }


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-sample ``||pred - target|| / ||target||``, ``(batch, *grid) -> (batch,)``."""
    diff = (pred - target).flatten(1).norm(dim=1)  # (batch,)
    return diff / target.flatten(1).norm(dim=1)


@torch.no_grad()
def score(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> float:
    """Mean per-sample relative L2 error in evaluation mode."""
    model.eval()
    errors = [
        relative_l2(model(inputs[i : i + 25]), targets[i : i + 25])
        for i in range(0, len(inputs), 25)
    ]
    return torch.cat(errors).mean().item()


def train_minimal(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    cfg: TrainingConfig,
    seed: int,
    mean_loss: bool,
) -> list[float]:
    """The peer's loop: Adam with L2 weight decay, the same schedule and batch order as
    :func:`pderepro.training.loop.train`, relative L2 summed (or averaged) over the batch;
    returns the seconds of each epoch."""
    opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    if cfg.scheduler == "step":
        step = max(1, round(cfg.step_fraction * cfg.epochs))
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=step, gamma=cfg.gamma)
    elif cfg.scheduler == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    else:
        raise ValueError(f"scheduler {cfg.scheduler!r} not supported here")
    shuffle = torch.Generator().manual_seed(seed)
    n = inputs.shape[0]
    seconds = []
    for _ in range(cfg.epochs):
        model.train()
        tic = time.perf_counter()
        order = torch.randperm(n, generator=shuffle)
        for first in range(0, n, cfg.batch_size):
            batch = order[first : first + cfg.batch_size]
            losses = relative_l2(model(inputs[batch]), targets[batch])  # (batch,)
            loss = losses.mean() if mean_loss else losses.sum()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        sched.step()
        seconds.append(time.perf_counter() - tic)
    return seconds


@dataclass
class Run:
    validation: float
    test: float
    epoch_seconds: float  # median
    parameters: int


def run_side(
    side: str,
    seed: int,
    variant: Variant,
    data: dict[str, tuple[torch.Tensor, torch.Tensor]],
    stats: dict[str, float],
    hparams: dict[str, Any],
    training: dict[str, Any],
    problem: Problem,
) -> Run:
    train_x, train_y = data["train"]
    shape = tuple(train_x.shape[1:])
    torch.manual_seed(seed)
    net = build_ours(problem, hparams, shape) if side == "ours" else build_theirs(hparams, shape)
    for edit in variant.ours if side == "ours" else variant.theirs:
        edit(net)
    extra = variant.ours_training if side == "ours" else variant.theirs_training
    cfg = TrainingConfig.from_mapping({**training, **extra, "checkpoint_every": 10**6})
    point = pointwise_stats(train_x, train_y) if variant.pointwise else None
    model = normalise(net, stats, point)
    if side == "ours":
        with tempfile.TemporaryDirectory() as tmp:
            history = train(
                model,
                train_x,
                train_y,
                cfg,
                seed=seed,
                device=torch.device("cpu"),
                identity={"benchmark": "fno_peer_accuracy"},
                resume_path=Path(tmp) / "resume.pt",
                validation=None,  # both sides keep the last epoch
                progress=False,
            )
        seconds = [row["seconds"] for row in history]
    else:
        seconds = train_minimal(model, train_x, train_y, cfg, seed, variant.mean_loss)
    return Run(
        validation=score(model, *data["validation"]),
        test=score(model, *data["test"]),
        epoch_seconds=statistics.median(seconds),
        parameters=real_parameter_count(net),
    )


def side_key(side: str, variant: Variant) -> str:
    """What determines one side's run besides the seed (runs with equal keys are shared)."""
    keys = variant.ours_keys if side == "ours" else variant.theirs_keys
    extra = variant.ours_training if side == "ours" else variant.theirs_training
    return json.dumps(
        [side, sorted(keys), variant.mean_loss, variant.pointwise, sorted(extra.items())]
    )


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=sorted(PROBLEMS), default="burgers")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epochs", type=int, help="override the quick preset's epochs")
    parser.add_argument("--batch-size", type=int, help="override the quick preset's batch size")
    parser.add_argument(
        "--ablation",
        action="append",
        help="variant to run (repeatable, or comma-separated; a+b combines); default none",
    )
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data/processed")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--list-ablations", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args(argv)

    if args.list_ablations:
        for name, (text, _) in ABLATIONS.items():
            print(f"{name:18s} {text}")
        return 0
    try:
        import neuralop  # noqa: F401
    except ImportError as exc:
        print(f"neuraloperator is not importable ({exc}); nothing to compare. Skipping.")
        return 0

    torch.set_num_threads(args.threads)
    problem = PROBLEMS[args.problem]
    directory = args.data_dir / problem.subdir
    hparams, training = quick_budget(problem)
    training = {k: v for k, v in training.items() if k not in ("seeds", "checkpoint_every")}
    if args.epochs:
        training["epochs"] = args.epochs
    if args.batch_size:
        training["batch_size"] = args.batch_size
    data = {
        split: load_split(directory, split, problem) for split in ("train", "validation", "test")
    }
    stats = scalar_stats(directory, problem)
    cfg = TrainingConfig.from_mapping(training)
    print(
        f"[{args.problem}] {directory}: train {len(data['train'][0])}, validation "
        f"{len(data['validation'][0])}, test {len(data['test'][0])}, grid "
        f"{tuple(data['train'][0].shape[1:])}; model {hparams}",
        flush=True,
    )
    print(
        f"[{args.problem}] budget (both sides): {cfg.epochs} epochs, batch {cfg.batch_size}, "
        f"Adam lr {cfg.learning_rate:g}, weight decay {cfg.weight_decay:g}, "
        f"{cfg.scheduler} schedule"
        + (
            f" (x{cfg.gamma:g} every {cfg.step_fraction:g} of the run)"
            if cfg.scheduler == "step"
            else ""
        )
        + f", relative L2 summed over the batch, scalar normalisation, last epoch kept, "
        f"{args.threads} threads",
        flush=True,
    )

    specs = [s for a in (args.ablation or ["none"]) for s in a.split(",") if s]
    cache: dict[tuple[str, int], Run] = {}
    results: dict[str, dict[int, dict[str, Run]]] = {}
    for spec in specs:
        variant = make_variant(spec, training)
        results[spec] = {}
        for seed in args.seeds:
            runs = {}
            for side in ("ours", "theirs"):
                key = (side_key(side, variant), seed)
                reused = key in cache
                if not reused:
                    cache[key] = run_side(
                        side, seed, variant, data, stats, hparams, training, problem
                    )
                runs[side] = run = cache[key]
                print(
                    f"[{args.problem}] {spec:24s} seed {seed} {side:6s}: validation "
                    f"{run.validation:.5f}, test {run.test:.5f}, epoch {run.epoch_seconds:.2f} s"
                    f"{' (reused)' if reused else ''}  [{run.parameters:,} parameters]",
                    flush=True,
                )
            results[spec][seed] = runs

    print(
        f"\n[{args.problem}] errors: mean over seeds {args.seeds}; epoch time: fastest run's "
        "median epoch per side; ratios ours / theirs"
    )
    header = f"{'variant':24s} {'val ours':>9s} {'val theirs':>10s} {'ratio':>6s} "
    header += f"{'test ours':>9s} {'test theirs':>11s} {'ratio':>6s} {'epoch o/t':>9s}"
    print(header)
    summary = {}
    for spec, by_seed in results.items():
        mean = {
            (side, what): statistics.mean(getattr(r[side], what) for r in by_seed.values())
            for side in ("ours", "theirs")
            for what in ("validation", "test", "epoch_seconds")
        }
        v_ratio = mean["ours", "validation"] / mean["theirs", "validation"]
        t_ratio = mean["ours", "test"] / mean["theirs", "test"]
        # A shared machine's load comes and goes over whole runs, and only slows one
        # down: the fastest run of each side is the better estimate of its speed.
        fastest = {
            side: min(r[side].epoch_seconds for r in by_seed.values())
            for side in ("ours", "theirs")
        }
        e_ratio = fastest["ours"] / fastest["theirs"]
        print(
            f"{spec:24s} {mean['ours', 'validation']:9.5f} {mean['theirs', 'validation']:10.5f} "
            f"{v_ratio:6.3f} {mean['ours', 'test']:9.5f} {mean['theirs', 'test']:11.5f} "
            f"{t_ratio:6.3f} {e_ratio:9.2f}"
        )
        summary[spec] = {
            "seeds": {
                str(seed): {side: dataclasses.asdict(run) for side, run in r.items()}
                for seed, r in by_seed.items()
            },
            "validation_ratio": v_ratio,
            "test_ratio": t_ratio,
            "epoch_time_ratio": e_ratio,
        }
    if args.json:
        args.json.write_text(
            json.dumps({"problem": args.problem, "budget": training, **summary}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
