"""Grid-based baselines of the FNO paper's Burgers and Darcy tables: a fully connected
network on the whole grid (FCN) and PCA + neural network (PCANN, Bhattacharya et al.,
2021), both on 1-D or flattened 2-D grids; and :func:`mlp`, the plain MLP they share
with the Lorenz-96 closures."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

logger = logging.getLogger(__name__)

__all__ = ["FCN", "PCANN", "mlp"]


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Multilayer perceptron with GELU between layers and a linear last layer.

    Parameters
    ----------
    sizes : sequence of int
        Layer widths ``(in, hidden..., out)``, at least two entries.

    Returns
    -------
    nn.Sequential
        Maps ``(..., sizes[0])`` to ``(..., sizes[-1])``.
    """
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"need at least two positive layer sizes, got {sizes}")
    modules: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        if i > 0:
            modules.append(nn.GELU())
        modules.append(nn.Linear(a, b))
    return nn.Sequential(*modules)


class FCN(nn.Module):
    """Fully connected network on the whole grid, ``n -> hidden... -> n``.

    Inputs ``(batch, *grid)`` are flattened to ``n`` values and the output takes the
    input's shape again, so the same model serves 1-D and 2-D grids.

    Parameters
    ----------
    n_points : int
        Values per sample ``n`` (grid points); the model only works at this resolution.
    hidden : sequence of int
        Hidden layer widths (GELU activations).
    """

    def __init__(self, n_points: int, hidden: Sequence[int] = (512, 512, 512)) -> None:
        super().__init__()
        self.n_points = int(n_points)
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp((self.n_points, *self.hidden, self.n_points))

    def hparams(self) -> dict[str, Any]:
        """Constructor arguments other than ``n_points``, JSON-serialisable."""
        return {"hidden": list(self.hidden)}

    def forward(self, u: Tensor) -> Tensor:
        """Parameters: u, Tensor (batch, *grid). Returns: Tensor (batch, *grid)."""
        flat = u.flatten(1)  # (batch, n)
        if flat.shape[1] != self.n_points:
            raise ValueError(f"FCN built for n={self.n_points}, got n={flat.shape[1]}")
        return self.net(flat).reshape(u.shape)  # (batch, *grid)


def _principal_components(data: Tensor, k: int) -> tuple[Tensor, Tensor, Tensor]:
    """Mean ``(n,)``, top-``k`` components ``(k, n)`` and their std ``(k,)`` of ``data (N, n)``.

    Computed in float64; component signs are fixed (largest-magnitude entry
    positive) so refits on the same data give the same basis.
    """
    data = data.to(torch.float64)
    mean = data.mean(dim=0)  # (n,)
    _, s, vh = torch.linalg.svd(data - mean, full_matrices=False)  # s (r,), vh (r, n)
    components = vh[:k]  # (k, n)
    idx = components.abs().argmax(dim=1, keepdim=True)  # (k, 1)
    components = components * torch.sign(components.gather(1, idx))  # (k, n)
    std = s[:k] / max(data.shape[0] - 1, 1) ** 0.5  # (k,)
    # Centering removes one rank, so the last component may carry no variance.
    std = std.clamp_min(1e-6 * float(std[0]) if float(std[0]) > 0 else 1.0)
    return mean, components, std


class PCANN(nn.Module):
    """PCA of inputs and outputs with an MLP between the coefficient vectors.

    ``u -> c = (P_in (u - mean_in)) / std_in -> MLP -> d -> mean_out + P_out^T (d std_out)``.

    Parameters
    ----------
    n_points : int
        Values per sample ``n`` (grid points; inputs ``(batch, *grid)`` are flattened);
        the model only works at this resolution.
    components : int
        Requested number of principal components (inputs and outputs alike); the
        effective number is ``min(components, n_points, n_train)``.
    hidden : sequence of int
        Hidden widths of the MLP between coefficient vectors (GELU activations).
    n_train : int or None
        Size of the training split the PCA is fitted on (``None``: no clip).
    whiten : bool
        Scale output coefficients to unit variance and input coefficients by the leading
        component's standard deviation (keeps the MLP's inputs and targets O(1)).

    Notes
    -----
    The PCA buffers have fixed shapes from construction, so ``load_state_dict``
    works on a freshly built model; they are filled by :meth:`fit_to_data`.
    """

    def __init__(
        self,
        n_points: int,
        components: int = 128,
        hidden: Sequence[int] = (128, 128),
        n_train: int | None = None,
        whiten: bool = True,
    ) -> None:
        super().__init__()
        self.n_points = int(n_points)
        k = min(int(components), self.n_points)
        if n_train is not None:
            k = min(k, int(n_train))
        if k < 1:
            raise ValueError(f"effective number of components is {k}; need at least 1")
        if k < components:
            logger.info("PCANN: clipping components %d -> %d", components, k)
        self.components = k
        self.hidden = tuple(int(h) for h in hidden)
        self.whiten = bool(whiten)
        n = self.n_points
        self.register_buffer("in_mean", torch.zeros(n))
        self.register_buffer("in_basis", torch.zeros(k, n))
        self.register_buffer("in_std", torch.ones(k))
        self.register_buffer("out_mean", torch.zeros(n))
        self.register_buffer("out_basis", torch.zeros(k, n))
        self.register_buffer("out_std", torch.ones(k))
        self.register_buffer("fitted", torch.tensor(False))
        self.net = mlp((k, *self.hidden, k))

    def hparams(self) -> dict[str, Any]:
        """Effective constructor arguments other than ``n_points``/``n_train``."""
        return {"components": self.components, "hidden": list(self.hidden), "whiten": self.whiten}

    @torch.no_grad()
    def fit_to_data(self, inputs: Tensor, targets: Tensor) -> None:
        """Fit the input and output PCA on the training split.

        Parameters
        ----------
        inputs : Tensor, shape (N, *grid)
            Training inputs (normalised as the model will see them).
        targets : Tensor, shape (N, *grid)
            Training targets.
        """
        inputs, targets = inputs.flatten(1), targets.flatten(1)  # (N, n)
        n, k = self.n_points, self.components
        for name, data in (("inputs", inputs), ("targets", targets)):
            if data.ndim != 2 or data.shape[1] != n:
                raise ValueError(f"{name} must have shape (N, {n}), got {tuple(data.shape)}")
            if data.shape[0] < k:
                raise ValueError(f"{name}: {data.shape[0]} samples < {k} components")
        for prefix, data in (("in", inputs), ("out", targets)):
            mean, basis, std = _principal_components(data, k)
            getattr(self, f"{prefix}_mean").copy_(mean)
            getattr(self, f"{prefix}_basis").copy_(basis)
            if prefix == "in":
                # One scale for all input components: per-component whitening would blow
                # the tiny trailing (noise) components up to unit size and overfit them.
                std = std[:1].expand_as(std)
            getattr(self, f"{prefix}_std").copy_(std if self.whiten else torch.ones_like(std))
        self.fitted.fill_(True)

    def forward(self, u: Tensor) -> Tensor:
        """Parameters: u, Tensor (batch, *grid). Returns: Tensor (batch, *grid)."""
        flat = u.flatten(1)  # (batch, n)
        if flat.shape[1] != self.n_points:
            raise ValueError(f"PCANN built for n={self.n_points}, got n={flat.shape[1]}")
        if not bool(self.fitted):
            raise RuntimeError("PCANN: call fit_to_data (or load a state_dict) before forward")
        c = (flat - self.in_mean) @ self.in_basis.T / self.in_std  # (batch, k)
        d = self.net(c) * self.out_std  # (batch, k)
        return (d @ self.out_basis + self.out_mean).reshape(u.shape)  # (batch, *grid)
