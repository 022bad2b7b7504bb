"""Two- and three-dimensional Fourier neural operators (Li et al., 2021) for the Darcy and
Navier-Stokes studies: :class:`FNO2d` (Darcy ``a -> u``; recurrent Navier-Stokes, one
frame per step) and :class:`FNO3d` (Navier-Stokes, convolution in space-time).

Parameter counts at the paper's Navier-Stokes settings (width 20, 4 layers, projection
128, 10 input frames; complex weights counted as two reals), against the published
FNO-3D 6,558,537 and FNO-2D 414,517:

=====================  ==========================  ==========================
part                   FNO3d (modes 8, 8, 8)       FNO2d (modes 8)
=====================  ==========================  ==========================
lifting                (10 + 3) * 20 + 20 = 280    (10 + 2) * 20 + 20 = 260
spectral, 4 layers     4 * 4*20*20*8*8*8 * 2       4 * 2*20*20*8*8 * 2
                       = 6,553,600                 = 409,600
pointwise W, 4 layers  4 * (20*20 + 20) = 1,680    1,680
projection             20*128+128 + 128+1 = 2,817  2,817
**total (ours)**       **6,558,377**               **414,357**
=====================  ==========================  ==========================

Both published numbers are exactly ours + 160: the original models declare four
batch-norm layers of width 20 (2 * 20 affine parameters each) that their forward pass
never uses, and the published count includes them.  We leave them out.  The FNO-2D count
corresponds to modes 8; with modes 12 (the later script) ours would be 926,357.
"""

from __future__ import annotations

import logging

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from pderepro.models.hparams import HParamsMixin
from pderepro.models.layers import ChannelLinear
from pderepro.models.rollout import RolloutMixin, check_frames
from pderepro.models.spectral_nd import SpectralConv2d, SpectralConv3d

logger = logging.getLogger(__name__)

__all__ = ["FNO2d", "FNO3d", "coordinates"]


def coordinates(n: int, periodic: bool, like: Tensor) -> Tensor:
    """Grid coordinates in ``[0, 1]``, shape ``(n,)``, on ``like``'s device and dtype.

    ``periodic``: ``x_j = j / n`` (the right end is the left end again); otherwise
    ``linspace(0, 1, n)``, both ends included (a closed domain such as Darcy's).
    """
    if periodic:
        return torch.arange(n, device=like.device, dtype=like.dtype) / n  # (n,)
    return torch.linspace(0.0, 1.0, n, device=like.device, dtype=like.dtype)  # (n,)


class _FourierLayers(nn.Module):
    """``layers`` Fourier layers ``v <- act(K v + W v)``, no activation after the last.

    ``K`` is a spectral convolution with the given modes, ``W`` a pointwise linear map
    (:class:`ChannelLinear`); input and output ``(batch, width, *grid)``.
    """

    def __init__(self, width: int, layers: int, modes: tuple[int, ...]) -> None:
        super().__init__()
        spectral = {2: SpectralConv2d, 3: SpectralConv3d}[len(modes)]
        self.spectral = nn.ModuleList(spectral(width, width, modes) for _ in range(layers))
        self.pointwise = nn.ModuleList(ChannelLinear(width, width) for _ in range(layers))

    def forward(self, v: Tensor) -> Tensor:
        last = len(self.spectral) - 1
        for i, (spectral, pointwise) in enumerate(zip(self.spectral, self.pointwise, strict=True)):
            v = spectral(v) + pointwise(v)  # (batch, width, *grid)
            if i < last:
                v = F.gelu(v)
        return v


def _check_positive(**values: int) -> None:
    bad = [name for name, value in values.items() if value < 1]
    if bad:
        raise ValueError(f"{', '.join(bad)} must be positive")


class _FourierOperator(HParamsMixin, nn.Module):
    """Pointwise lifting, :class:`_FourierLayers` and the projection ``width -> projection
    -> 1`` (GELU between) of :class:`FNO2d` and :class:`FNO3d`, created in that order.

    Parameters
    ----------
    in_channels : int
        Input fields; the model appends ``grid_channels`` coordinates before lifting.
    grid_channels : int
        Coordinate channels (one per grid axis).
    width, layers, projection : int
        As :class:`FNO2d`.
    modes : tuple of int
        Retained modes per grid axis (:class:`_FourierLayers`).
    """

    def __init__(
        self, in_channels: int, grid_channels: int, width: int, layers: int, projection: int,
        modes: tuple[int, ...],
    ) -> None:  # fmt: skip
        super().__init__()
        self.in_channels, self.width, self.layers = in_channels, width, layers
        self.projection = projection
        self.lift = ChannelLinear(in_channels + grid_channels, width)
        self.fourier = _FourierLayers(width, layers, modes)
        self.proj_hidden = ChannelLinear(width, projection)
        self.proj_out = ChannelLinear(projection, 1)

    def project(self, v: Tensor) -> Tensor:
        """The projection of the Fourier layers' output, ``(batch, width, *grid)`` to
        ``(batch, *grid)``."""
        v = F.gelu(self.proj_hidden(v))  # (batch, projection, *grid)
        return self.proj_out(v)[:, 0]  # (batch, *grid)


class FNO2d(RolloutMixin, _FourierOperator):
    """Fourier neural operator ``(batch, in_channels, n_y, n_x) -> (batch, n_y, n_x)``.

    The model appends the grid ``(x, y)`` (see :func:`coordinates`) as two channels.
    Architecture: pointwise lifting ``in_channels + 2 -> width``; ``layers`` Fourier
    layers ``v <- act(K v + W v)`` (:class:`SpectralConv2d`, pointwise ``W``, GELU, none
    after the last); pointwise projection ``width -> projection -> 1`` with GELU.

    Parameters
    ----------
    in_channels : int
        Input fields: 1 for Darcy (the coefficient ``a``), 10 for recurrent
        Navier-Stokes (the 10 most recent vorticity frames, oldest first).
    modes : int
        Retained Fourier modes per axis (Darcy paper: 12; Navier-Stokes: 8).
    width : int
        Channel width of the Fourier layers (Darcy: 32; Navier-Stokes: 20).
    layers : int
        Number of Fourier layers (paper: 4).
    projection : int
        Hidden width of the projection (paper: 128).
    periodic : bool
        Periodic domain (Navier-Stokes torus, ``x_j = j / n``) or closed one (Darcy,
        ``linspace(0, 1, n)``).
    padding : int
        Zeros appended right and bottom after lifting, cropped before projection, so the
        implicitly periodic spectral layers need not wrap a non-periodic solution around.
        0 for Navier-Stokes; we use 8 for Darcy at s = 85 (about 10% of the grid).

    Notes
    -----
    Resolution-independent: the same weights apply at any ``n_y + padding >= 2 modes``,
    ``(n_x + padding) // 2 + 1 >= modes``.  :meth:`rollout` predicts several frames.
    """

    hparam_names = ("in_channels", "modes", "width", "layers", "projection", "periodic", "padding")

    def __init__(
        self,
        in_channels: int = 1,
        modes: int = 12,
        width: int = 32,
        layers: int = 4,
        projection: int = 128,
        periodic: bool = False,
        padding: int = 0,
    ) -> None:
        _check_positive(
            in_channels=in_channels, modes=modes, width=width, layers=layers, projection=projection
        )
        if padding < 0:
            raise ValueError(f"padding must be >= 0, got {padding}")
        super().__init__(in_channels, 2, width, layers, projection, (modes, modes))
        self.modes, self.periodic, self.padding = modes, bool(periodic), padding

    def forward(self, a: Tensor) -> Tensor:
        """Map input fields to the output field.

        Parameters
        ----------
        a : Tensor, shape (batch, in_channels, n_y, n_x)
            Input fields on the grid; ``(batch, n_y, n_x)`` is accepted when
            ``in_channels == 1``.

        Returns
        -------
        Tensor, shape (batch, n_y, n_x)
        """
        if a.ndim == 3 and self.in_channels == 1:
            a = a[:, None]  # (batch, 1, n_y, n_x)
        check_frames(a, self.in_channels)
        batch, _, ny, nx = a.shape
        x = coordinates(nx, self.periodic, a)  # (n_x,)
        y = coordinates(ny, self.periodic, a)  # (n_y,)
        grid = torch.stack([x.expand(ny, nx), y[:, None].expand(ny, nx)])  # (2, n_y, n_x)
        v = torch.cat([a, grid.expand(batch, 2, ny, nx)], dim=1)  # (batch, in+2, n_y, n_x)
        v = self.lift(v)  # (batch, width, n_y, n_x)
        if self.padding:
            v = F.pad(v, (0, self.padding, 0, self.padding))  # (batch, width, n_y+p, n_x+p)
        v = self.fourier(v)[..., :ny, :nx]  # (batch, width, n_y, n_x)
        return self.project(v)  # (batch, n_y, n_x)


class FNO3d(_FourierOperator):
    """Fourier neural operator in space-time: the first frames -> the next ``n_time_out``.

    The ``in_channels`` input frames are repeated along a new output-time axis and the
    grid ``(x, y, t)`` appended, giving ``(batch, in_channels + 3, n_t, n_y, n_x)``;
    pointwise lifting to ``width``; zeros appended to the time axis (``time_padding``, time
    is not periodic); ``layers`` Fourier layers with :class:`SpectralConv3d`; time
    cropped; projection ``width -> projection -> 1`` with GELU.

    Parameters
    ----------
    in_channels : int
        Number of input frames (paper: 10).
    modes : int
        Retained spatial modes per axis (paper: 8).
    modes_time : int
        Retained temporal modes (paper: 8).
    width, layers, projection : int
        As in :class:`FNO2d` (paper: 20, 4, 128).
    time_padding : int
        Zero frames appended to the time axis after lifting; needs
        ``n_time_out + time_padding >= 2 * modes_time``.

    Notes
    -----
    Space is the periodic torus (``x_j = j / n``).  The output frames sit at
    ``t_k = k / n_time_out``, ``k = 1 .. n_time_out``: fractions of a fixed output
    window, so changing ``n_time_out`` refines the time sampling of the same window
    (the paper's super-resolution in time), it does not extend the horizon.
    """

    hparam_names = (
        "in_channels", "modes", "modes_time", "width", "layers", "projection", "time_padding"
    )  # fmt: skip

    def __init__(
        self,
        in_channels: int = 10,
        modes: int = 8,
        modes_time: int = 8,
        width: int = 20,
        layers: int = 4,
        projection: int = 128,
        time_padding: int = 6,
    ) -> None:
        _check_positive(
            in_channels=in_channels,
            modes=modes,
            modes_time=modes_time,
            width=width,
            layers=layers,
            projection=projection,
        )
        if time_padding < 0:
            raise ValueError(f"time_padding must be >= 0, got {time_padding}")
        super().__init__(in_channels, 3, width, layers, projection, (modes_time, modes, modes))
        self.modes, self.modes_time, self.time_padding = modes, modes_time, time_padding

    def forward(self, frames: Tensor, n_time_out: int, time_padding: int | None = None) -> Tensor:
        """Predict ``n_time_out`` frames following the input frames.

        Parameters
        ----------
        frames : Tensor, shape (batch, in_channels, n_y, n_x)
            Input frames, oldest first.
        n_time_out : int
            Number of output frames.
        time_padding : int, optional
            Zero frames appended instead of ``self.time_padding``: sampling the output
            window more finely must pad the same time span (:class:`SpaceTime` scales it),
            or every learned temporal mode acts at another frequency.

        Returns
        -------
        Tensor, shape (batch, n_time_out, n_y, n_x)
        """
        padding = self.time_padding if time_padding is None else time_padding
        check_frames(frames, self.in_channels)
        if n_time_out + padding < 2 * self.modes_time:
            raise ValueError(
                f"n_time_out + time_padding = {n_time_out + padding} frames cannot "
                f"hold {self.modes_time} temporal modes (needs {2 * self.modes_time})"
            )
        batch, c, ny, nx = frames.shape
        nt = n_time_out
        x = coordinates(nx, True, frames)  # (n_x,)
        y = coordinates(ny, True, frames)  # (n_y,)
        t = torch.arange(1, nt + 1, device=frames.device, dtype=frames.dtype) / nt  # (n_t,)
        grid = torch.stack(
            [
                x.expand(nt, ny, nx),
                y[:, None].expand(nt, ny, nx),
                t[:, None, None].expand(nt, ny, nx),
            ]
        )  # (3, n_t, n_y, n_x)
        v = frames[:, :, None].expand(batch, c, nt, ny, nx)  # (batch, c, n_t, n_y, n_x)
        v = torch.cat([v, grid.expand(batch, 3, nt, ny, nx)], dim=1)  # (batch, c+3, n_t, ...)
        v = self.lift(v)  # (batch, width, n_t, n_y, n_x)
        if padding:
            v = F.pad(v, (0, 0, 0, 0, 0, padding))  # (batch, width, n_t+p, n_y, n_x)
        v = self.fourier(v)[:, :, :nt]  # (batch, width, n_t, n_y, n_x)
        return self.project(v)  # (batch, n_t, n_y, n_x)
