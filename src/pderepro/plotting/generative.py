"""The figure of a generative-surrogate study: ``samples``, a few samples of the solver's
test split and of every method (rows), each as its permeability over its pressure, titled
with the method's residual."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from pderepro.plotting.style import apply_theme, save_figure


def plot_samples(
    sets: Mapping[str, np.ndarray],
    labels: Mapping[str, str],
    residuals: Mapping[str, float],
    *,
    title: str,
    paths: Sequence[str],
) -> None:
    """``sets[name]``: ``(n, 2, s, s)`` samples (channels K, p; vertex values ``[i, j]`` at
    ``(x_i, y_j)``), drawn with x across; ``residuals[name]``: the table's RMS residual."""
    apply_theme()
    n = max(len(v) for v in sets.values())
    fig, axes = plt.subplots(len(sets), 2 * n, squeeze=False,
                             figsize=(1.5 * 2 * n, 1.6 * len(sets) + 0.6))  # fmt: skip
    for row, (name, samples) in enumerate(sets.items()):
        for j in range(2 * n):
            axes[row, j].set_axis_off()
        for i, sample in enumerate(samples):
            for c, cmap in enumerate(("viridis", "magma")):
                ax = axes[row, 2 * i + c]
                ax.imshow(sample[c].T, origin="lower", cmap=cmap, interpolation="nearest")
                ax.set_title(("K", "p")[c], fontsize=6)
        score = residuals.get(name, float("nan"))
        axes[row, 0].text(-0.1, 0.5, f"{labels[name]}\nresidual {score:.3g}", fontsize=6,
                          transform=axes[row, 0].transAxes, ha="right", va="center")  # fmt: skip
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0.12, 0, 1, 1))
    save_figure(fig, *paths)
