"""The figures of the page *Against the authors' code* (``book/authors_code.md``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures

LABELS = {"relu": "ReLU", "gdln": "GDLN"}


def _grid(n: int, height: float):
    """A figure of ``n`` panels, at most three a row, each ``height`` inches tall."""
    cols = min(n, 3)
    rows = int(np.ceil(n / cols))
    return plt.subplots(rows, cols, figsize=(4.2 * cols, height * rows), squeeze=False)


def _label(ax, title: str, ylabel: str) -> None:
    """A panel's log scale, title and axis labels (epochs along x)."""
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set(xlabel="epoch", ylabel=ylabel)


def _finish(fig, axes, n: int, legend_size: int):
    """Blanks the panels after the first ``n``, puts the legend on the first."""
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=legend_size)
    fig.tight_layout()
    return fig


def plot_losses(runs: dict, titles: dict):
    """Figure ``fig-authors-code-loss``: the scripts' loss curves (solid) and the
    engine's (dashed) of every experiment of ``runs`` (:class:`~.experiments.Run` by
    name), ReLU network and GDLN, seeds faint and the median bold, one panel per
    experiment titled from ``titles``."""
    colors = {"relu": figures.PALETTE["relu"], "gdln": figures.PALETTE["reln"]}
    fig, axes = _grid(len(runs), 3.4)
    for ax, (name, r) in zip(axes.flat, runs.items()):
        for key in ("relu", "gdln"):
            for curves, style, who in (
                (r.theirs, "-", "authors"),
                (r.ours, "--", "engine"),
            ):
                c, col, label = curves[key], colors[key], f"{LABELS[key]} ({who})"
                t = np.arange(1, c.shape[1] + 1)
                for one in c:
                    ax.plot(t, one, style, color=col, alpha=0.2, lw=0.7)
                ax.plot(t, np.median(c, axis=0), style, color=col, lw=1.8, label=label)
        _label(ax, titles[name], "summed loss")
    return _finish(fig, axes, len(runs), 8)


def plot_same_start(same: dict, titles: dict, tol: float):
    """Figure ``fig-authors-code-same-start``: run for run, per experiment of ``same``
    (:class:`~.run_for_run.SameStart` by name), ``|engine - script| / script's loss``
    at every epoch on a log scale, one line per seed (epochs equal bit for bit leave a
    gap), the tolerance ``tol`` dashed and the epoch each seed parts marked; one panel
    per experiment titled from ``titles``."""
    fig, axes = _grid(len(same), 3.2)
    colors = plt.get_cmap("viridis")
    for ax, (name, r) in zip(axes.flat, same.items()):
        rel = r.relative()
        t = np.arange(r.epochs)
        for i, seed in enumerate(r.seeds):
            c = colors(i / max(len(r.seeds) - 1, 1) * 0.85)
            shown = np.where(rel[i] > 0, rel[i], np.nan)
            ax.plot(t, shown, color=c, lw=0.6, label=f"seed {seed}")
            if r.part[i] < r.epochs:
                ax.plot(r.part[i], rel[i, r.part[i]], "o", color=c, ms=4)
        ax.axhline(tol, color="k", ls="--", lw=0.8)
        _label(ax, titles[name], "|engine - script| / script's loss")
    return _finish(fig, axes, len(same), 7)


def plot_race(r, color: str = "#2ca02c"):
    """Figure ``fig-authors-code-race``: Fig. 4a's race prediction two ways
    (:class:`~.race.RaceCheck` ``r``): left, the loss of the authors' ``race.py`` as
    stored (solid) and of the book's re-implementation (dashed), log scale; right, their
    relative difference at every epoch, with and without the one-epoch alignment of the
    recorded epochs, and float32's epsilon dotted.  ``color``: the race's (green, as
    the contexts page draws it)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    t = np.arange(1, r.theirs.size + 1)
    a.plot(t, r.theirs, "-", color=color, lw=2.4, alpha=0.5, label="authors' race.py")
    a.plot(t, r.ours, "--", color="k", lw=1.0, label="book (contexts page)")
    a.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    a.legend(fontsize=8)
    aligned = np.where(r.relative > 0, r.relative, np.nan)
    b.plot(t, aligned, color=color, lw=0.8, label="aligned (loss after each update)")
    b.plot(t, r.unshifted, color="0.6", lw=0.8, label="one epoch off")
    b.axhline(np.finfo(np.float32).eps, color="k", ls=":", lw=0.8)
    b.set(yscale="log", xlabel="epoch", ylabel="|book - race.py| / race.py")
    b.legend(fontsize=8)
    fig.tight_layout()
    return fig
