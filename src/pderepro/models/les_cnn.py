"""The supervised CNN closure of 2-D turbulence LES: ``(w_bar, psi_bar) -> Pi``.

A small fully convolutional network with circular padding (the box is periodic) maps the
resolved vorticity and streamfunction on the LES grid to the exact subgrid term ``Pi`` of
:mod:`pderepro.solvers.turbulence.les_filters` (trained offline on filtered DNS pairs, as in Guan et
al. 2022). Being local and translation-equivariant, it applies to any LES grid with the training
grid's spacing.

:class:`CnnClosureNet` works on normalised fields: it divides its two input channels by their
training standard deviations (buffers, so a checkpoint is self-describing), and the
:class:`~pderepro.models.normalised.NormalisedModel` around it restores ``Pi``'s units.
:class:`CnnClosure` turns the trained model into an LES closure
(``closure(w, box_size) -> Pi``, :class:`pderepro.solvers.turbulence.les_closures.Closure`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import Tensor, nn

from pderepro.models.normalised import NormalisedModel
from pderepro.solvers.turbulence.les_filters import streamfunction

__all__ = ["CnnClosure", "CnnClosureNet", "cnn_inputs"]


class CnnClosureNet(nn.Module):
    """Periodic CNN ``(batch, 2, n, n) -> (batch, n, n)`` on normalised fields.

    Parameters
    ----------
    channels : int
        Channels of each hidden layer.
    layers : int
        Convolutions in all (>= 2): ``layers - 1`` hidden ones with GELU, then a linear one.
    kernel : int
        Kernel size (odd, so that the output stays on the grid).
    input_std : tuple of float
        Training standard deviations of ``w_bar`` (1/time) and ``psi_bar`` (length^2/time).
    """

    def __init__(
        self, channels: int = 32, layers: int = 5, kernel: int = 5,
        input_std: tuple[float, float] = (1.0, 1.0),
    ) -> None:  # fmt: skip
        super().__init__()
        if kernel % 2 == 0 or layers < 2:
            raise ValueError(f"need an odd kernel and >= 2 layers, got {kernel}, {layers}")
        self.channels, self.layers, self.kernel = channels, layers, kernel
        self.register_buffer("input_std", torch.tensor(input_std, dtype=torch.float32))
        widths = [2] + [channels] * (layers - 1) + [1]
        modules: list[nn.Module] = []
        for i, (c_in, c_out) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
            modules.append(
                nn.Conv2d(c_in, c_out, kernel, padding=kernel // 2, padding_mode="circular")
            )
            if i < layers - 1:
                modules.append(nn.GELU())
        self.body = nn.Sequential(*modules)

    @property
    def hparams(self) -> dict[str, Any]:
        """Constructor arguments (without the data statistics)."""
        return {"channels": self.channels, "layers": self.layers, "kernel": self.kernel}

    def forward(self, fields: Tensor) -> Tensor:
        """``fields`` (batch, 2, n, n): ``w_bar``, ``psi_bar``; returns (batch, n, n)."""
        z = fields / self.input_std[None, :, None, None]
        return self.body(z)[:, 0]


def cnn_inputs(w_bar: Tensor, psi_bar: Tensor) -> Tensor:
    """Stack the resolved fields (batch, n, n) each into the network input (batch, 2, n, n)."""
    return torch.stack([w_bar, psi_bar], dim=1)


def build_cnn_closure_model(
    hparams: Mapping[str, Any], stats: Mapping[str, float]
) -> NormalisedModel:
    """The CNN in physical units: ``stats`` holds ``w_std``, ``psi_std`` (input scales) and
    ``pi_mean``, ``pi_std`` (target, vorticity/time^2), all from the train split."""
    net = CnnClosureNet(**hparams, input_std=(stats["w_std"], stats["psi_std"]))
    target = {"target_mean": stats["pi_mean"], "target_std": stats["pi_std"]}
    return NormalisedModel(net, {"input_mean": 0.0, "input_std": 1.0, **target})


class CnnClosure:
    """An LES closure from a trained CNN: ``Pi = model(w, psi(w))`` on the LES grid.

    Parameters
    ----------
    model : NormalisedModel
        From :func:`build_cnn_closure_model`, trained; evaluated in float32 on its device.
    """

    def __init__(self, model: NormalisedModel) -> None:
        self.model = model.eval()

    def __call__(self, w: Tensor, box_size: float) -> Tensor:
        with torch.no_grad():
            fields = cnn_inputs(w, streamfunction(w, box_size)).float()  # (batch, 2, n, n)
            return self.model(fields).to(w.dtype)  # (batch, n, n)
