"""One seaborn theme for every figure; headless matplotlib."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # figures are made in batch jobs without a display

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from pderepro.data.io import atomic_write  # noqa: E402


def apply_theme() -> None:
    """Apply the project's plotting theme."""
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=1.1)


def legend_outside(ax: plt.Axes, **kwargs) -> None:
    """A legend right of ``ax``, outside every panel, so it never hides a curve."""
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), **kwargs)


def save_figure(fig: plt.Figure, *paths: str) -> None:
    """Save ``fig`` atomically to each path (format from the suffix) and close it."""
    for path in paths:
        suffix = str(path).rsplit(".", 1)[-1]
        atomic_write(
            path, lambda tmp, s=suffix: fig.savefig(tmp, format=s, dpi=150, bbox_inches="tight")
        )
    plt.close(fig)
