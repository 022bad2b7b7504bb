"""Training of one operator run: Adam on the physics-informed :class:`Budget`'s schedule,
fresh inputs every step (or batches of solver pairs for the supervised method).

Every ``budget.log_every`` iterations the history records the last step's loss and the
relative L2 error on the test instances (a fraction, mean over instances); ``wall_s``
excludes those evaluations. A run may carry a time limit, checked after one warm-up and
:data:`~pderepro.training.run_limits.PROBE_ITERATIONS` timed iterations, and a run longer
than a cluster job trains in resumable segments, as
:func:`~pderepro.training.pinn.loop.train_pinn` does.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
from torch import nn

from pderepro.models.fno2d import FNO2d, FNO3d
from pderepro.training.pinn.loop import Budget
from pderepro.training.pinn.run_state import Segment
from pderepro.training.resumable import load_training_state, save_training_state
from pderepro.training.run_limits import TimeLimitProbe, peak_memory_mb, synchronize
from pderepro.training.spectral.problems import OperatorProblem, method_kind, relative_l2

logger = logging.getLogger(__name__)

#: Version tag of a segment's saved state.
SEGMENT_FORMAT = "pderepro-operator-segment-v1"


@dataclass
class OperatorRun:
    """What :func:`train_operator` returns (seconds; errors as fractions)."""

    history: list[dict[str, Any]]
    rel_l2: float = math.nan
    rel_l2_per_instance: np.ndarray = field(default_factory=lambda: np.array([]))
    s_per_iteration: float = math.nan
    train_s: float = math.nan
    inference_s_per_instance: float = math.nan
    peak_memory_mb: float = math.nan
    projected_s: float = math.nan  # where the run stopped over its time limit
    prediction: np.ndarray | None = None  # (S, *grid) of the final network


def build_operator_network(network: Mapping[str, Any], problem: OperatorProblem, *,
                           seed: int | None = None) -> FNO2d | FNO3d:  # fmt: skip
    """The problem's network from keys ``width, modes, layers, projection`` (optional
    ``padding``, else the problem's; ``modes_time``, a 3-D network's temporal modes, else
    ``modes``), its input channels; ``seed`` seeds torch before the weights are drawn.

    ``problem.network_dims`` 2: an FNO2d with periodic coordinates; 3: an FNO3d (periodic
    space, the time axis padded by ``padding``), called as ``net(frames, n_t)``.
    """
    if seed is not None:
        torch.manual_seed(seed)
    common = {
        "in_channels": problem.network_channels,
        "modes": int(network["modes"]),
        "width": int(network["width"]),
        "layers": int(network["layers"]),
        "projection": int(network["projection"]),
    }
    padding = int(network.get("padding", problem.network_padding))
    if problem.network_dims == 3:
        modes_time = int(network.get("modes_time", network["modes"]))
        return FNO3d(**common, modes_time=modes_time, time_padding=padding)
    if problem.network_dims != 2:
        raise ValueError(f"network_dims must be 2 or 3, got {problem.network_dims}")
    return FNO2d(**common, periodic=True, padding=padding)


def evaluate_operator(problem: OperatorProblem, net: nn.Module, inputs: np.ndarray,
                      reference: np.ndarray, method: Mapping[str, Any],
                      grid_sizes: Mapping[str, int], *, batch_size: int,
                      device: torch.device | str = "cpu",
                      ) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """Relative L2 per instance, the prediction ``(S, *grid)`` and the seconds
    :meth:`~OperatorProblem.predict` took over all instances (in batches)."""
    device = torch.device(device)
    predictions, seconds = [], 0.0
    was_training = net.training
    net.eval()
    with torch.no_grad():
        for start in range(0, len(inputs), batch_size):
            x = torch.as_tensor(inputs[start : start + batch_size], dtype=torch.float32,
                                device=device)  # fmt: skip
            synchronize(device)
            tick = time.perf_counter()
            u = problem.predict(net, x, method, grid_sizes)
            synchronize(device)
            seconds += time.perf_counter() - tick
            predictions.append(u.double().cpu().numpy())
    net.train(was_training)
    prediction = np.concatenate(predictions)
    errors = relative_l2(torch.from_numpy(prediction), torch.from_numpy(reference)).numpy()
    return errors, prediction, seconds


def train_operator(
    problem: OperatorProblem,
    net: nn.Module,
    *,
    method: Mapping[str, Any],
    budget: Budget,
    batch_size: int,
    seed: int,
    test_inputs: np.ndarray,
    test_reference: np.ndarray,
    grid_sizes: Mapping[str, int],
    train_data: tuple[np.ndarray, np.ndarray] | None = None,
    time_limit_s: float | None = None,
    device: torch.device | str = "cpu",
    segment: Segment | None = None,
) -> OperatorRun:
    """Train ``net`` by the method's loss; see the module docstring.

    Parameters
    ----------
    problem, net
        The problem and its network (:func:`build_operator_network`), moved to ``device``.
    method : mapping
        ``{"kind": "spectral" | "grid" | "supervised", "n": ...}``.
    budget : Budget
        Adam iterations, rate and schedule, ``log_every`` (no L-BFGS).
    batch_size, seed : int
        Instances per step; ``seed`` seeds the numpy generator of the inputs (the network's
        initial weights are the caller's).
    test_inputs, test_reference : numpy.ndarray
        Node values ``(S, ...)`` and the reference on the test grid ``(S, *grid)``.
    grid_sizes : mapping
        The test grid (:meth:`OperatorProblem.test_grid`).
    train_data : (inputs, solutions), optional
        The supervised method's pairs, solutions on ``problem.method_grid(method)``.
    time_limit_s : float, optional
        A run projected over it after the probe stops there, ``projected_s`` set, error NaN.
    device : torch.device or str
        Where the network and the losses run.
    segment : Segment, optional
        The part of the run this call trains (default: all of it): from a saved state, up
        to an Adam iteration, saving the state (weights, Adam and its schedule, the input
        stream, the history, the last evaluation) for the next call, which then ends
        with the uninterrupted run's weights.

    The run's ``peak_memory_mb`` is what training added to the process's peak resident set
    (CPU), or torch's peak allocation (GPU).
    """
    if budget.lbfgs_iterations:
        raise ValueError("operator runs are Adam only: lbfgs_iterations must be 0")
    kind = method_kind(method)
    if kind == "supervised" and train_data is None:
        raise ValueError("the supervised method needs train_data")
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    memory_before = 0.0 if device.type == "cuda" else peak_memory_mb(device)
    net.to(device)
    net.train()
    # the run's own stream: default_rng(seed) pads to [seed, 0], the test inputs' seed
    rng = np.random.default_rng([seed, 2])
    optimizer = torch.optim.Adam(net.parameters(), lr=budget.learning_rate)
    schedule = budget.scheduler(optimizer)
    run = OperatorRun(history=[])

    def as_tensor(a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(a, dtype=torch.float32, device=device)

    def evaluate() -> tuple[np.ndarray, np.ndarray, float]:
        return evaluate_operator(problem, net, test_inputs, test_reference, method, grid_sizes,
                                 batch_size=batch_size, device=device)  # fmt: skip

    last = None
    eval_s, start = 0.0, time.perf_counter()
    probe = TimeLimitProbe(time_limit_s, budget.iterations, device)
    segment = segment or Segment()
    if segment.stop is not None and segment.save is None:
        raise ValueError("a segment that stops needs a path to save its state to")
    stateful = {"net": net, "optimizer": optimizer, "schedule": schedule}

    def save(iteration: int, finished: bool) -> None:
        progress = SimpleNamespace(rng=rng, last=last, eval_s=eval_s)
        where = {"iteration": iteration, "elapsed_s": time.perf_counter() - start,
                 "finished": finished}  # fmt: skip
        save_training_state(segment.save, format=SEGMENT_FORMAT, where=where,
                            stateful=stateful,
                            objects={"run": run, "probe": probe, "progress": progress})  # fmt: skip

    first = 0
    if segment.resume is not None:
        progress = SimpleNamespace(rng=rng, last=None, eval_s=0.0)
        where = load_training_state(segment.resume, format=SEGMENT_FORMAT, stateful=stateful,
                                    objects={"run": run, "probe": probe,
                                             "progress": progress})  # fmt: skip
        first, last, eval_s = where["iteration"], progress.last, progress.eval_s
        start = time.perf_counter() - where["elapsed_s"]
        logger.info("resuming from %s at iteration %d", segment.resume, first)
        if where["finished"]:  # an earlier segment stopped the run at its time limit
            if segment.save is not None:
                save(first, True)
            return run

    for iteration in range(first, budget.iterations):
        if kind == "supervised":
            assert train_data is not None
            n_train = len(train_data[0])
            idx = rng.choice(n_train, batch_size, replace=batch_size > n_train)
            x, targets = as_tensor(train_data[0][idx]), as_tensor(train_data[1][idx])
        else:
            x, targets = as_tensor(problem.sample_inputs(batch_size, rng)), None
        optimizer.zero_grad(set_to_none=True)
        loss = problem.loss(net, x, method, targets)
        loss.backward()
        optimizer.step()
        schedule.step()
        done = iteration + 1
        stop = probe.over(done)
        if stop is not None:
            run.s_per_iteration, run.projected_s = stop
            run.train_s = time.perf_counter() - start
            run.history.append({"phase": "adam", "iteration": done, "loss": float(loss.detach()),
                                "rel_l2": math.nan, "wall_s": run.train_s})  # fmt: skip
            run.peak_memory_mb = peak_memory_mb(device) - memory_before
            run.rel_l2_per_instance = np.full(len(test_inputs), np.nan)
            run.prediction = np.full(test_reference.shape, np.nan)
            if segment.save is not None:
                save(done, True)
            return run
        if done % budget.log_every == 0 or done == budget.iterations:
            synchronize(device)
            tick = time.perf_counter()
            last = evaluate()
            row = {"phase": "adam", "iteration": done, "loss": float(loss.detach()),
                   "rel_l2": float(np.mean(last[0])), "wall_s": tick - start - eval_s}  # fmt: skip
            run.history.append(row)
            if done % (10 * budget.log_every) == 0 or done == budget.iterations:
                logger.info("%s %d/%d: loss %.3e, test rel L2 %.3g", kind, done,
                            budget.iterations, row["loss"], row["rel_l2"])  # fmt: skip
            eval_s += time.perf_counter() - tick
        if segment.stop is not None and done == segment.stop and done < budget.iterations:
            synchronize(device)
            save(done, False)
            logger.info("segment done at iteration %d of %d: state saved to %s", done,
                        budget.iterations, segment.save)  # fmt: skip
            return run
    synchronize(device)
    run.train_s = time.perf_counter() - start - eval_s
    run.s_per_iteration = run.train_s / budget.iterations if budget.iterations else math.nan
    run.peak_memory_mb = peak_memory_mb(device) - memory_before
    if last is None:  # no iteration
        last = evaluate()
    # the final iterate: errors of its last evaluation; inference timed once more, warm
    _, _, seconds = evaluate()
    run.rel_l2_per_instance, run.prediction = last[0], last[1]
    run.rel_l2 = float(np.mean(last[0]))
    run.inference_s_per_instance = seconds / max(len(test_inputs), 1)
    return run
