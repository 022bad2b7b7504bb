"""Operator-learning problems of the Neural Spectral Methods study: a registry and the
interface every problem implements.

A problem draws inputs (node values of sources or initial conditions) from its law, gives
the reference solution on a test grid, and, for a network acting on grid values, the
losses of the three method kinds and its prediction on the test grid:

* ``spectral``: the PDE residual of the network's function, computed exactly in the
  coefficients of its basis (Parseval: the loss is the residual's squared L2 norm, up to
  the basis' truncation), from values at collocation nodes;
* ``grid``: the mean squared residual at the ``n``-point grid's nodes by finite
  differences (a grid PINN loss);
* ``supervised``: relative L2 distance per instance (mean over the batch) to the solver's
  solution on the method's ``n``-point grid.

A method is a mapping ``{"kind": ..., "n": ...}`` (the spectral kind's collocation sizes
are optional). Tensors are ``float32`` on the network's device unless said.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np
from torch import Tensor, nn

from pderepro.training.registry import registrar
from pderepro.training.spectral.basis import lobatto_nodes

#: Scale of the network's output in the output transforms (the authors' 1e-3).
OUTPUT_SCALE = 1e-3
METHOD_KINDS = ("spectral", "grid", "supervised")

OPERATOR_PROBLEMS: dict[str, type[OperatorProblem]] = {}


register_operator_problem = registrar(OPERATOR_PROBLEMS, "operator problem")


def build_operator_problem(name: str, parameters: Mapping[str, Any]) -> OperatorProblem:
    """The registered problem ``name`` with ``parameters`` (defaults for those left out)."""
    if name not in OPERATOR_PROBLEMS:
        raise ValueError(
            f"unknown operator problem {name!r}; choose from {sorted(OPERATOR_PROBLEMS)}"
        )
    return OPERATOR_PROBLEMS[name](**dict(parameters))


def method_kind(method: Mapping[str, Any]) -> str:
    kind = method.get("kind")
    if kind not in METHOD_KINDS:
        raise ValueError(f"unknown method kind {kind!r}; choose from {METHOD_KINDS}")
    if kind != "spectral" and "n" not in method:
        raise ValueError(f"a {kind} method needs its grid size 'n'")
    return kind


def relative_l2(u: Tensor, target: Tensor) -> Tensor:
    """``||u - target|| / ||target||`` per instance over all but the first axis, ``(B,)``."""
    diff = (u - target).flatten(1).norm(dim=1)
    return diff / target.flatten(1).norm(dim=1)


class OperatorProblem(ABC):
    """A parametric PDE problem: input law, reference, losses and predictions."""

    name: str = ""
    #: Input channels of the network (the problem's fields and coordinates it adds).
    network_channels: int = 1
    #: Zero padding of the network's non-periodic axes (FNO3d: the time axis).
    network_padding: int = 0
    #: 2: an FNO2d on ``(B, channels, n_1, n_2)``; 3: an FNO3d in space-time, called as
    #: ``net(frames, n_t)`` with frames ``(B, channels, n, n)``.
    network_dims: int = 2

    def __init__(self, **parameters: Any) -> None:
        self._parameters = dict(parameters)

    def parameters(self) -> dict[str, Any]:
        """The problem's parameters, JSON-serialisable."""
        return dict(self._parameters)

    @abstractmethod
    def sample_inputs(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` inputs' node values, float64."""

    @abstractmethod
    def test_grid(self, sizes: Mapping[str, int]) -> tuple[np.ndarray, ...]:
        """Coordinates of the test grid's axes, in the order of the solution's axes."""

    @abstractmethod
    def method_grid(self, method: Mapping[str, Any]) -> dict[str, int]:
        """Grid sizes where a grid or supervised method's network (and data) live."""

    @abstractmethod
    def reference(
        self,
        inputs: np.ndarray,
        grid_sizes: Mapping[str, int],
        reference: Mapping[str, Any] | None = None,
    ) -> np.ndarray:
        """The reference solution on the grid ``grid_sizes``, ``(S, *grid)`` float64."""

    @abstractmethod
    def solve(
        self, inputs: np.ndarray, resolution: Mapping[str, int], grid_sizes: Mapping[str, int]
    ) -> tuple[np.ndarray, float]:
        """Our solver at ``resolution``: its solution on the grid ``grid_sizes`` and the
        seconds the solve took (interpolation onto the grid excluded)."""

    @abstractmethod
    def predict(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any],
                grid_sizes: Mapping[str, int]) -> Tensor:  # fmt: skip
        """The network's solution on the test grid, ``(S, *grid)``."""

    @abstractmethod
    def method_fields(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any]
                      ) -> tuple[Tensor, ...]:  # fmt: skip
        """The network's solution on the method's grid (first) and whatever else the
        residuals take (e.g. the source), for :meth:`loss`."""

    @abstractmethod
    def spectral_loss(self, *fields: Tensor) -> Tensor:
        """The residual's squared L2 norm from its basis coefficients (Parseval), scalar."""

    @abstractmethod
    def grid_residual(self, *fields: Tensor) -> Tensor:
        """The residual at the grid's nodes by finite differences, shaped like the solution."""

    def loss(self, net: nn.Module, inputs: Tensor, method: Mapping[str, Any],
             targets: Tensor | None = None) -> Tensor:  # fmt: skip
        """The method's scalar training loss on a batch of inputs: the spectral residual,
        the grid residual's mean square, or the mean relative L2 distance to ``targets``."""
        kind = method_kind(method)
        fields = self.method_fields(net, inputs, method)
        if kind == "spectral":
            return self.spectral_loss(*fields)
        if kind == "grid":
            return self.grid_residual(*fields).square().mean()
        if targets is None:
            raise ValueError("the supervised loss needs targets")
        return relative_l2(fields[0], targets).mean()

    @abstractmethod
    def no_learning(self, inputs: np.ndarray, reference: np.ndarray) -> tuple[str, np.ndarray]:
        """A label and the field of the no-learning baseline, shaped like ``reference``."""

    def _space_time_nodes(self, method: Mapping[str, Any]) -> tuple[np.ndarray, int]:
        """A space-time problem's method nodes in (scaled) time, in ``[0, 1]``, and its
        points per space axis: Lobatto nodes for the spectral kind, else uniform."""
        grid = self.method_grid(method)
        if method_kind(method) == "spectral":
            return lobatto_nodes(grid["nt"]), grid["nx"]
        return np.linspace(0.0, 1.0, grid["nt"]), grid["nx"]

    def solve_timed(
        self, inputs: np.ndarray, resolution: Mapping[str, int], grid_sizes: Mapping[str, int]
    ) -> tuple[np.ndarray, float]:
        """Our solver's solution on the test grid ``grid_sizes`` and the seconds per
        instance of its solve at ``resolution`` (the interpolation onto the grid excluded)."""
        u, seconds = self.solve(inputs, resolution, grid_sizes)
        return u, seconds / max(len(inputs), 1)
