"""A network wrapped with the normalisation of its training data, so it works in physical units."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

__all__ = ["STAT_NAMES", "NormalisedModel"]

#: Normalisation statistics a :class:`NormalisedModel` holds (scalars over the train split).
STAT_NAMES = ("input_mean", "input_std", "target_mean", "target_std")


class NormalisedModel(nn.Module):
    """Wraps a network with the train-split normalisation, stored as buffers.

    ``forward`` maps physical inputs to physical outputs, so a checkpoint carries
    everything needed to use the model.

    Parameters
    ----------
    net : torch.nn.Module
        Network on normalised inputs and outputs.
    stats : mapping of str to float
        The :data:`STAT_NAMES` statistics (``input_mean``, ``input_std``, ``target_mean``,
        ``target_std``). To rebuild a model from a state dict, any values will do: the
        stored ones replace them on ``load_state_dict``.
    """

    def __init__(self, net: nn.Module, stats: Mapping[str, float]) -> None:
        super().__init__()
        self.net = net
        for name in STAT_NAMES:
            self.register_buffer(name, torch.tensor(float(stats[name]), dtype=torch.float32))

    def forward(self, u: torch.Tensor, *args: Any) -> torch.Tensor:
        """Physical ``(batch, *grid)`` in, physical ``(batch, *grid_out)`` out; ``args`` go to
        the network (e.g. a frame count for super-resolution in time)."""
        z = (u - self.input_mean) / self.input_std
        return self.net(z, *args) * self.target_std + self.target_mean
