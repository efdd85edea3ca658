"""The figure of the page *Against the authors' code* (``book/authors_code.md``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures

LABELS = {"relu": "ReLU", "gdln": "GDLN"}


def plot_losses(runs: dict, titles: dict):
    """The scripts' loss curves (solid) and the engine's (dashed) of every experiment
    of ``runs`` (:class:`helpers.chapters.authors_code.Run` by name), ReLU network and
    GDLN, seeds faint and the median bold, one panel per experiment titled from
    ``titles``; Figure ``fig-authors-code-loss``.

    Returns:
        The figure.
    """
    colors = {"relu": figures.PALETTE["relu"], "gdln": figures.PALETTE["reln"]}
    n = len(runs)
    cols = min(n, 3)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False
    )
    for ax, (name, r) in zip(axes.flat, runs.items()):
        for key in ("relu", "gdln"):
            for curves, style, who in (
                (r.theirs, "-", "authors"),
                (r.ours, "--", "engine"),
            ):
                c = curves[key]
                t = np.arange(1, c.shape[1] + 1)
                for one in c:
                    ax.plot(t, one, style, color=colors[key], alpha=0.2, lw=0.7)
                ax.plot(
                    t,
                    np.median(c, axis=0),
                    style,
                    color=colors[key],
                    lw=1.8,
                    label=f"{LABELS[key]} ({who})",
                )
        ax.set_yscale("log")
        ax.set_title(titles[name], fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("summed loss")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    return fig
