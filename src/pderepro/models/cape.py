"""CAPE: channel attention guided by PDE parameter embeddings (Takamoto, Alesiani and
Niepert, ICML 2023), implemented from the paper's description (docs/references.md),
and the autoregressive FNO-1D and U-Net-1D that use it.

The :class:`CAPE` module maps the last frame ``u_t`` and the PDE parameters to an estimate
of ``u_{t+1}``; the base network then sees that estimate as one more input channel next
to the context frames, and the estimate is returned too, so an auxiliary loss can train
it against ``u_{t+1}``.  The base network gets the parameters only through CAPE.

Where the description is silent, the choices here are:

- lifting: a kernel-3 circular convolution ``1 -> channels`` (not 1x1, which would give
  ``channels`` copies of ``u``: a 3-point stencil gives each channel its own mix of
  ``u``, ``u_x``, ``u_xx``-like features for the branches to weight);
- attention: ONE MLP ``n_params -> hidden -> 3 * channels`` (GELU), split into the three
  branches' vectors, with a linear output (no sigmoid) and PyTorch's default
  initialisation (not zero): unbounded signed weights let a branch act like a
  finite-difference term scaled by the parameter (e.g. ``-beta dt u_x``), and with a
  non-zero initialisation the output depends on the parameters from the first step
  (``gate="linear"``). ``gate="sigmoid"`` bounds each weight to (0, 1), as the gates of
  squeeze-and-excitation channel attention, so that a parameter outside the training
  range cannot scale a branch beyond anything seen in training;
- spectral branch: coarsen by a centred ``[1, 2, 1] / 4`` average and keeping every
  other cell (an average pool whose coarse cells sit on fine cells, so no half-cell shift
  enters the weights), :class:`SpectralConv1d` with ``modes`` modes on the coarse grid,
  and exact trigonometric interpolation back (its output has only those modes, so the
  upsampling is exact and periodic); needs ``n`` even and ``n >= 4 * modes``;
- layer norm (``norm="x"``): over ``x`` of the one output channel, without per-cell
  weights (they would tie the module to one resolution) but with a learned scalar gain
  (initially 1) and bias (initially 0), then the residual ``u_t + ...``.  So the increment
  ``estimate - u_t`` has the same spread over ``x`` (``|gain|``) in every sample, whatever
  the parameters: the size of the step (``beta dt``, the decay at large ``nu``) is lost
  and the base network has to recover it. ``norm="none"`` drops the normalisation (the
  same gain and bias remain). The pdebench_cape study uses ``"none"`` with linear gates,
  chosen on validation (the measurements are in its study file).

Parameter counts at the defaults (1 context frame, one PDE parameter; counts do not
depend on the grid), with the plain baseline widened to match
(:func:`pderepro.models.registry.match_cape_baseline`):

============================  =========  ==========  ==================================
model                         total      of it CAPE  matched plain baseline
============================  =========  ==========  ==================================
FNO1dCAPE, width 20           46,878     3,901       FNO1dStep, width 21: 47,192
UNet1dCAPE, init_features 32  2,715,700  7,795       UNet1dStep, init_features 32: 2,707,809
============================  =========  ==========  ==================================

The CAPE paper widens the FNO baseline to 36 (134,717 parameters here), which would take
a CAPE module of about 88,000 parameters: either the paper's module is larger than its
description implies (wider channels, more modes) or its baseline differs from this FNO.
Unresolved; the matched width here follows the module as described.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.layers import ChannelLinear, SpectralConv1d, truncated_dft_bases
from pderepro.models.step1d import (
    FNO_BODY_HPARAMS,
    UNET_BODY_HPARAMS,
    StepModel,
    StepOutput,
    fno_body,
    unet_body,
)

__all__ = ["CAPE", "CAPE_GATES", "CAPE_HPARAMS", "CAPE_NORMS", "FNO1dCAPE", "UNet1dCAPE"]

#: Normalisations of the CAPE estimate's increment: layer norm over x, or none.
CAPE_NORMS = ("x", "none")
#: Outputs of the attention MLP: unbounded, or sigmoid gates.
CAPE_GATES = ("linear", "sigmoid")


class CAPE(nn.Module):
    """Parameter-conditioned one-step estimate ``(u_t, params) -> u_{t+1}`` on a periodic
    1-D grid (see the module docstring for the choices the paper leaves open).

    ``v = lift(u)``; ``a_1, a_2, a_3 = MLP(params)``;
    ``w = conv1x1(GELU(a_1 * conv1x1(v) + a_2 * dwconv5(v) + a_3 * spectral_coarse(v)))``;
    ``estimate = u + gain * layer_norm_x(w) + bias`` (``norm="x"``), or
    ``u + gain * w + bias`` (``norm="none"``).

    Parameters
    ----------
    n_params : int
        Number of PDE parameters (>= 1).
    channels : int
        Channels of the branches (the paper: half the base model's width).
    modes : int
        Fourier modes of the spectral branch on the coarsened grid.
    hidden : int
        Hidden width of the attention MLP.
    norm : {"x", "none"}
        Layer norm of the output channel over ``x`` (the paper's description), or none.
    gate : {"linear", "sigmoid"}
        The attention MLP's output: unbounded, or a sigmoid gate in (0, 1).
    """

    def __init__(
        self,
        n_params: int,
        channels: int,
        modes: int,
        hidden: int = 64,
        norm: str = "x",
        gate: str = "linear",
    ) -> None:
        super().__init__()
        if min(n_params, channels, modes, hidden) < 1:
            raise ValueError("n_params, channels, modes and hidden must be positive")
        if norm not in CAPE_NORMS:
            raise ValueError(f"CAPE norm must be one of {CAPE_NORMS}, got {norm!r}")
        if gate not in CAPE_GATES:
            raise ValueError(f"CAPE gate must be one of {CAPE_GATES}, got {gate!r}")
        self.norm, self.gate = norm, gate
        self.channels = int(channels)
        self.modes = int(modes)
        self.lift = nn.Conv1d(1, channels, 3, padding=1, padding_mode="circular")
        self.pointwise = ChannelLinear(channels, channels)
        self.depthwise = nn.Conv1d(
            channels, channels, 5, padding=2, padding_mode="circular", groups=channels
        )
        self.spectral = SpectralConv1d(channels, channels, modes)
        self.attention = nn.Sequential(
            nn.Linear(n_params, hidden), nn.GELU(), nn.Linear(hidden, 3 * channels)
        )
        self.out = ChannelLinear(channels, 1)
        self.norm_gain = nn.Parameter(torch.ones(()))
        self.norm_bias = nn.Parameter(torch.zeros(()))

    def coarse_spectral(self, v: Tensor) -> Tensor:
        """Spectral convolution on the grid coarsened by 2, interpolated back.

        Parameters
        ----------
        v : Tensor, shape (batch, channels, n)
            ``n`` even and ``>= 4 * modes``.

        Returns
        -------
        Tensor, shape (batch, channels, n)
        """
        n = v.shape[-1]
        if n % 2 or n < 4 * self.modes:
            raise ValueError(f"CAPE with {self.modes} modes needs an even n >= {4 * self.modes}")
        # Centred average: coarse cell j sits on fine cell 2j (a plain pairwise average
        # would put it half a fine cell off, a shift that depends on n).
        smooth = (torch.roll(v, 1, -1) + 2 * v + torch.roll(v, -1, -1)) / 4  # (batch, c, n)
        coarse = self.spectral(smooth[..., ::2])  # (batch, c, n/2), modes < self.modes only
        fwd, _ = truncated_dft_bases(n // 2, self.modes, v.device, v.dtype)  # (n/2, 2m)
        _, inv = truncated_dft_bases(n, self.modes, v.device, v.dtype)  # (2m, n)
        # rfft coefficients scale with the number of points: twice as many on the fine grid.
        # With m <= n/4 no coarse Nyquist mode is kept, so this interpolation is exact.
        return 2.0 * (coarse @ fwd) @ inv  # (batch, c, 2m) -> (batch, c, n)

    def forward(self, u: Tensor, params: Tensor) -> Tensor:
        """Estimate the next frame.

        Parameters
        ----------
        u : Tensor, shape (batch, n)
            The last frame.
        params : Tensor, shape (batch, n_params)
            PDE parameters, in the caller's transform.

        Returns
        -------
        Tensor, shape (batch, n)
            The estimate of the next frame, in ``u``'s units.
        """
        batch, n = u.shape
        v = self.lift(u[:, None])  # (batch, c, n)
        attention = self.attention(params.to(u.dtype))  # (batch, 3c)
        if self.gate == "sigmoid":
            attention = torch.sigmoid(attention)
        a = attention.view(batch, 3, self.channels, 1)  # (batch, 3, c, 1)
        mixed = (
            a[:, 0] * self.pointwise(v)
            + a[:, 1] * self.depthwise(v)
            + a[:, 2] * self.coarse_spectral(v)
        )  # (batch, c, n)
        w = self.out(F.gelu(mixed))[:, 0]  # (batch, n)
        if self.norm == "x":
            w = F.layer_norm(w, (n,))  # (batch, n), zero mean and unit variance over x
        return u + self.norm_gain * w + self.norm_bias  # (batch, n)


#: hparams of a CAPE model's CAPE module, after those of its base network.
CAPE_HPARAMS = ("cape_channels", "cape_modes", "cape_hidden", "cape_norm", "cape_gate")


class _CAPEStep(StepModel):
    """A base body on ``(context frames, CAPE estimate)`` with the CAPE estimate returned.

    Builds :attr:`cape` from the ``cape_*`` arguments (:class:`CAPE`'s ``channels``,
    ``modes``, ``hidden``, ``norm`` and ``gate``); subclasses then set :attr:`body` and say
    which plain model is their baseline.
    """

    has_cape = True
    #: Registry name of the plain counterpart, and its hparam that sets its size.
    baseline_architecture: str
    baseline_size: str

    def __init__(
        self,
        context: int,
        n_params: int,
        cape_channels: int,
        cape_modes: int,
        cape_hidden: int,
        cape_norm: str,
        cape_gate: str,
    ) -> None:
        if n_params < 1:
            raise ValueError(f"a CAPE model needs n_params >= 1, got {n_params}")
        super().__init__(context, n_params)
        self.cape_channels = int(cape_channels)
        self.cape_modes, self.cape_hidden = int(cape_modes), int(cape_hidden)
        self.cape = CAPE(
            n_params, self.cape_channels, cape_modes, cape_hidden, cape_norm, cape_gate
        )

    @property
    def cape_norm(self) -> str:
        """Normalisation of the CAPE increment (:class:`CAPE`'s ``norm``)."""
        return self.cape.norm

    @property
    def cape_gate(self) -> str:
        """Output of CAPE's attention MLP (:class:`CAPE`'s ``gate``)."""
        return self.cape.gate

    def step(self, frames: Tensor, params: Tensor | None) -> StepOutput:
        estimate = self.cape(frames[:, -1], params)  # (batch, n)
        v = torch.cat([frames, estimate[:, None]], dim=1)  # (batch, context + 1, n)
        return StepOutput(self.body(v), estimate)  # (batch, n) twice

    def baseline_hparams(self) -> dict[str, Any]:
        """hparams of the plain model without CAPE or parameter input, at this model's size
        (without ``context``, which comes from the data's shapes)."""
        hparams = {k: v for k, v in self.hparams().items() if not k.startswith("cape_")}
        hparams.pop("context")
        return {**hparams, "n_params": 0}


class FNO1dCAPE(_CAPEStep):
    """Autoregressive FNO-1D with a CAPE module (the CAPE protocol: 1 context frame, modes
    12, width 20).

    Parameters
    ----------
    context : int
        Input frames (CAPE protocol: 1).
    n_params : int
        PDE parameters (>= 1), seen only by the CAPE module.
    modes, width, layers, projection, padding, grid
        As :class:`~pderepro.models.step1d.FNO1dStep`.
    cape_channels : int, optional
        Channels of the CAPE branches; default ``width // 2`` (the paper's ``w/2``).
    cape_modes : int
        Fourier modes of CAPE's spectral branch on the coarsened grid.
    cape_hidden : int
        Hidden width of CAPE's attention MLP.
    cape_norm : {"x", "none"}
        Normalisation of CAPE's increment (:class:`CAPE`).
    cape_gate : {"linear", "sigmoid"}
        Output of CAPE's attention MLP (:class:`CAPE`).
    """

    baseline_architecture = "fno1d_step"
    baseline_size = "width"
    hparam_names = (*StepModel.hparam_names, *FNO_BODY_HPARAMS, *CAPE_HPARAMS)

    def __init__(
        self, context: int = 1, n_params: int = 1,
        modes: int = 12, width: int = 20, layers: int = 4, projection: int = 128,
        padding: int = 0, grid: bool = True,
        cape_channels: int | None = None, cape_modes: int = 8, cape_hidden: int = 64,
        cape_norm: str = "x", cape_gate: str = "linear",
    ) -> None:  # fmt: skip
        channels = max(width // 2, 1) if cape_channels is None else cape_channels
        super().__init__(context, n_params, channels, cape_modes, cape_hidden, cape_norm, cape_gate)
        self.body = fno_body(self, context + 1, modes, width, layers, projection, padding, grid)


class UNet1dCAPE(_CAPEStep):
    """Autoregressive U-Net-1D with a CAPE module.

    Parameters
    ----------
    context : int
        Input frames (CAPE protocol: 1).
    n_params : int
        PDE parameters (>= 1), seen only by the CAPE module.
    init_features, levels : int
        As :class:`~pderepro.models.step1d.UNet1dStep`.
    norm : {"group", "batch"}
        Normalisation of the U-Net's levels, as :class:`~pderepro.models.step1d.UNet1dStep`.
    cape_channels : int, optional
        Channels of the CAPE branches; default ``init_features // 2``.
    cape_modes, cape_hidden, cape_norm, cape_gate
        As :class:`FNO1dCAPE`.
    """

    baseline_architecture = "unet1d_step"
    baseline_size = "init_features"
    hparam_names = (*StepModel.hparam_names, *UNET_BODY_HPARAMS, *CAPE_HPARAMS)

    def __init__(
        self, context: int = 1, n_params: int = 1,
        init_features: int = 32, levels: int = 4, norm: str = "group",
        cape_channels: int | None = None, cape_modes: int = 8, cape_hidden: int = 64,
        cape_norm: str = "x", cape_gate: str = "linear",
    ) -> None:  # fmt: skip
        channels = max(init_features // 2, 1) if cape_channels is None else cape_channels
        super().__init__(context, n_params, channels, cape_modes, cape_hidden, cape_norm, cape_gate)
        self.body = unet_body(self, context + 1, init_features, levels, norm)

    def step(self, frames: Tensor, params: Tensor | None) -> StepOutput:
        # Check before CAPE runs, so the error names the U-Net's constraint.
        self.body.check_resolution(frames.shape[-1])
        return super().step(frames, params)
