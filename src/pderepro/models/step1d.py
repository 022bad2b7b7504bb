"""One-step autoregressive surrogates on a periodic 1-D grid (PDEBench 1-D advection and
Burgers; Takamoto et al., 2022), and their rollout.

A one-step model maps the last ``context`` frames ``u(x, t_{i-context+1..i})`` (oldest
first) and optionally the PDE parameters to the next frame ``u(x, t_{i+1})``, one data
time step later (the spacing of the stored frames). Every one-step model returns a
:class:`StepOutput` ``(frame, cape)``; ``cape`` is the intermediate CAPE estimate of
:mod:`pderepro.models.cape` models and ``None`` here, so training and evaluation code can
treat all of them alike.

PDE parameters (``beta``, ``nu``, ...) arrive as a float tensor ``(batch, n_params)`` in
whatever transform the caller chose (e.g. ``log10 nu``). ``n_params = 0`` means the model
has no parameter input: passing a non-empty parameter tensor to it is an error rather
than silently ignored, so a configuration that meant to condition on the parameters
cannot quietly train an unconditioned model. With ``n_params > 0`` the plain models take
the parameters as constant input channels.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from pderepro.models.hparams import HParamsMixin
from pderepro.models.nets1d import FNOBody1d, UNetBody1d

__all__ = [
    "FNO1dStep",
    "RolloutOutput",
    "StepModel",
    "StepOutput",
    "UNet1dStep",
    "fno_body",
    "rollout",
    "unet_body",
]

#: hparams of an FNO-1D body, after ``context`` and ``n_params`` (:func:`fno_body`).
FNO_BODY_HPARAMS = ("modes", "width", "layers", "projection", "padding", "grid")
#: hparams of a U-Net-1D body, after ``context`` and ``n_params`` (:func:`unet_body`).
UNET_BODY_HPARAMS = ("init_features", "levels", "norm")


class StepOutput(NamedTuple):
    """What a one-step model returns.

    Attributes
    ----------
    frame : Tensor, shape (batch, n)
        Predicted next frame, in the units of the input frames.
    cape : Tensor or None, shape (batch, n)
        The CAPE module's estimate of the same frame (the target of the auxiliary loss);
        ``None`` for models without CAPE.
    """

    frame: Tensor
    cape: Tensor | None


class RolloutOutput(NamedTuple):
    """What :func:`rollout` returns.

    Attributes
    ----------
    frames : Tensor, shape (batch, steps, n)
        The predicted frames, one data time step apart.
    cape : Tensor or None, shape (batch, steps, n)
        The CAPE estimates made at each step; ``None`` for models without CAPE.
    """

    frames: Tensor
    cape: Tensor | None


class StepModel(HParamsMixin, nn.Module):
    """Base of the one-step models: holds ``context`` and ``n_params`` and checks inputs.

    Parameters
    ----------
    context : int
        Input frames per step (PDEBench protocol: 10; CAPE protocol: 1).
    n_params : int
        Number of PDE parameters the model takes; 0 for none.
    """

    #: Whether ``forward`` returns a CAPE estimate (``StepOutput.cape`` not ``None``).
    has_cape: bool = False
    hparam_names = ("context", "n_params")

    def __init__(self, context: int, n_params: int) -> None:
        super().__init__()
        if context < 1:
            raise ValueError(f"context must be >= 1, got {context}")
        if n_params < 0:
            raise ValueError(f"n_params must be >= 0, got {n_params}")
        self.context = int(context)
        self.n_params = int(n_params)

    def check_inputs(self, frames: Tensor, params: Tensor | None) -> Tensor | None:
        """Validate shapes; return the parameters, ``None`` for a model without them.

        Parameters
        ----------
        frames : Tensor, shape (batch, context, n)
        params : Tensor of shape (batch, n_params), or None

        Raises
        ------
        ValueError
            Wrong frame shape; parameters missing, of the wrong shape, or given (non-empty)
            to a model with ``n_params = 0``.
        """
        if frames.ndim != 3 or frames.shape[1] != self.context:
            shape = tuple(frames.shape)
            raise ValueError(f"expected frames (batch, {self.context}, n), got {shape}")
        if self.n_params == 0:
            if params is not None and params.numel():
                raise ValueError(
                    f"{type(self).__name__} has no parameter input (n_params=0) but got "
                    f"params of shape {tuple(params.shape)}; pass None"
                )
            return None
        if params is None:
            raise ValueError(f"{type(self).__name__} needs params (batch, {self.n_params})")
        if params.shape != (frames.shape[0], self.n_params):
            raise ValueError(
                f"expected params ({frames.shape[0]}, {self.n_params}), got {tuple(params.shape)}"
            )
        return params

    def input_channels(self, frames: Tensor, params: Tensor | None) -> Tensor:
        """The frames followed by each parameter as a constant channel, ``(batch, c, n)``."""
        if params is None:
            return frames  # (batch, context, n)
        const = params[:, :, None].expand(-1, -1, frames.shape[-1])  # (batch, n_params, n)
        return torch.cat([frames, const.to(frames.dtype)], dim=1)  # (batch, ctx + n_params, n)

    def forward(self, frames: Tensor, params: Tensor | None = None) -> StepOutput:
        """Predict the next frame.

        Parameters
        ----------
        frames : Tensor, shape (batch, context, n)
            The last ``context`` frames, oldest first.
        params : Tensor, shape (batch, n_params), optional
            PDE parameters; ``None`` (or zero-width) when ``n_params = 0``.

        Returns
        -------
        StepOutput
            ``frame`` (batch, n); ``cape`` (batch, n) or ``None``.
        """
        params = self.check_inputs(frames, params)
        return self.step(frames, params)

    def step(self, frames: Tensor, params: Tensor | None) -> StepOutput:
        """The network itself, on checked inputs; subclasses implement it."""
        raise NotImplementedError


def rollout(model: StepModel, frames: Tensor, params: Tensor | None, steps: int) -> RolloutOutput:
    """Autoregressive rollout: each prediction joins the input window, the oldest frame
    leaves it.

    Parameters
    ----------
    model : StepModel
        The one-step model.
    frames : Tensor, shape (batch, context, n)
        Initial window, oldest first.
    params : Tensor, shape (batch, n_params), or None
        PDE parameters, the same at every step.
    steps : int
        Frames to predict (>= 0).

    Returns
    -------
    RolloutOutput
        ``frames`` (batch, steps, n) and ``cape`` (batch, steps, n) or ``None``;
        differentiable through the whole trajectory.
    """
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    window = frames  # (batch, context, n)
    predicted: list[Tensor] = []
    estimates: list[Tensor] = []
    for _ in range(steps):
        out = model(window, params)
        predicted.append(out.frame)  # (batch, n)
        if out.cape is not None:
            estimates.append(out.cape)  # (batch, n)
        window = torch.cat([window[:, 1:], out.frame[:, None]], dim=1)  # (batch, context, n)
    if not predicted:
        empty = frames.new_zeros(frames.shape[0], 0, frames.shape[-1])  # (batch, 0, n)
        return RolloutOutput(empty, empty.clone() if model.has_cape else None)
    cape = torch.stack(estimates, dim=1) if estimates else None  # (batch, steps, n)
    return RolloutOutput(torch.stack(predicted, dim=1), cape)  # (batch, steps, n)


def fno_body(
    model: StepModel,
    in_channels: int,
    modes: int,
    width: int,
    layers: int,
    projection: int,
    padding: int,
    grid: bool,
) -> FNOBody1d:
    """The FNO-1D body of a one-step model, its hparams stored on the model.

    Parameters
    ----------
    model : StepModel
        Gets the attributes :data:`FNO_BODY_HPARAMS` (``padding`` and ``grid`` as int and
        bool), which its ``hparams`` reports.
    in_channels : int
        Input channels of the body (context frames and whatever the model adds).
    modes, width, layers, projection, padding, grid
        As :class:`~pderepro.models.nets1d.FNOBody1d`.

    Returns
    -------
    FNOBody1d
        ``(batch, in_channels, n) -> (batch, n)``.
    """
    model.modes, model.width, model.layers, model.projection = modes, width, layers, projection
    model.padding, model.grid = int(padding), bool(grid)
    return FNOBody1d(in_channels, modes, width, layers, projection, padding, grid)


def unet_body(
    model: StepModel, in_channels: int, init_features: int, levels: int, norm: str
) -> UNetBody1d:
    """The U-Net-1D body of a one-step model, its hparams stored on the model.

    Parameters
    ----------
    model : StepModel
        Gets the attributes :data:`UNET_BODY_HPARAMS` (the sizes as int), which its
        ``hparams`` reports.
    in_channels : int
        Input channels of the body (context frames and whatever the model adds).
    init_features, levels, norm
        As :class:`~pderepro.models.nets1d.UNetBody1d`.

    Returns
    -------
    UNetBody1d
        ``(batch, in_channels, n) -> (batch, n)``.
    """
    model.init_features, model.levels, model.norm = int(init_features), int(levels), norm
    return UNetBody1d(in_channels, init_features, levels, norm)


class FNO1dStep(StepModel):
    """Autoregressive FNO-1D, PDEBench's baseline: the context frames (then the parameters,
    if any, then ``x``) as input channels of a Fourier neural operator.

    Parameters
    ----------
    context : int
        Input frames (PDEBench: 10).
    n_params : int
        PDE parameters taken as constant channels; 0 (PDEBench, and the CAPE comparison's
        baseline) for none.
    modes, width, layers, projection : int
        Fourier modes per layer, channel width, Fourier layers, projection width
        (PDEBench: 12, 20, 4, 128).
    padding : int
        Zero cells appended before the Fourier layers; 0 on the periodic PDEBench grid.
    grid : bool
        Append the coordinate ``x`` as a channel (PDEBench does).

    Notes
    -----
    Resolution-independent: the same weights apply at any ``n >= 2 * modes``.
    """

    hparam_names = (*StepModel.hparam_names, *FNO_BODY_HPARAMS)

    def __init__(
        self,
        context: int = 10,
        n_params: int = 0,
        modes: int = 12,
        width: int = 20,
        layers: int = 4,
        projection: int = 128,
        padding: int = 0,
        grid: bool = True,
    ) -> None:
        super().__init__(context, n_params)
        self.body = fno_body(
            self, context + n_params, modes, width, layers, projection, padding, grid
        )

    def step(self, frames: Tensor, params: Tensor | None) -> StepOutput:
        v = self.input_channels(frames, params)  # (batch, context + n_params, n)
        return StepOutput(self.body(v), None)  # (batch, n)


class UNet1dStep(StepModel):
    """Autoregressive U-Net-1D, PDEBench's other baseline, on the context frames (then the
    parameters, if any) as input channels; circular padding throughout (periodic grid).

    Parameters
    ----------
    context : int
        Input frames (PDEBench: 10).
    n_params : int
        PDE parameters taken as constant channels; 0 for none.
    init_features : int
        Channels at full resolution (PDEBench: 32).
    levels : int
        Downsamplings (PDEBench: 4); the grid size must be divisible by ``2**levels``,
        else ``forward`` raises ``ValueError``.
    norm : {"group", "batch"}
        Normalisation of every level (PDEBench: batch; see
        :class:`~pderepro.models.nets1d.UNetBody1d`).
    """

    hparam_names = (*StepModel.hparam_names, *UNET_BODY_HPARAMS)

    def __init__(
        self,
        context: int = 10,
        n_params: int = 0,
        init_features: int = 32,
        levels: int = 4,
        norm: str = "group",
    ) -> None:
        super().__init__(context, n_params)
        self.body = unet_body(self, context + n_params, init_features, levels, norm)

    def step(self, frames: Tensor, params: Tensor | None) -> StepOutput:
        v = self.input_channels(frames, params)  # (batch, context + n_params, n)
        return StepOutput(self.body(v), None)  # (batch, n)
