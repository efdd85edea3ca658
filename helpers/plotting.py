"""Plot style and the few plots that several chapters share."""
from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

__all__ = ["setup", "loss_curves", "PALETTE"]

PALETTE = {
    "relu": "#222222",
    "reln": "#d62728",
    "prediction": "#1f77b4",
    "closed_form": "#1f77b4",
    "linear": "#2ca02c",
    "xor": "#9467bd",
    "single": "#ff7f0e",
    "mixed": "#d62728",
    "common": "#7f7f7f",
}


def setup():
    """A small, deterministic figure style (fixed size, dpi, no timestamps)."""
    mpl.rcParams.update(
        {
            "figure.figsize": (6.4, 3.6),
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "legend.frameon": False,
            "font.size": 10,
            "svg.hashsalt": "haste",
        }
    )


def loss_curves(ax, curves, label, color, log=True, alpha_runs=0.25, epochs=None):
    """Plot one curve per run faded and their median bold."""
    curves = np.atleast_2d(np.asarray(curves, float))
    t = np.arange(curves.shape[1]) if epochs is None else epochs
    for c in curves:
        ax.plot(t, c, color=color, alpha=alpha_runs, lw=0.8)
    ax.plot(t, np.median(curves, axis=0), color=color, lw=2, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("summed loss")
    return ax
