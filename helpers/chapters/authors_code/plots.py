"""The figures of the page *Against the authors' code* (``book/authors_code.md``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...figures import PALETTE


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
    """Figure ``fig-authors-code-loss``: per experiment of ``runs`` (a panel titled
    from ``titles``), the scripts' loss curves (solid) and the engine's (dashed), ReLU
    network and GDLN, seeds faint and the median bold."""
    fig, axes = _grid(len(runs), 3.4)
    for ax, (name, r) in zip(axes.flat, runs.items()):
        sides = ((r.theirs, "-", "authors"), (r.ours, "--", "engine"))
        for key, net, pal in (("relu", "ReLU", "relu"), ("gdln", "GDLN", "reln")):
            for curves, style, who in sides:
                c, label = curves[key], f"{net} ({who})"
                t = np.arange(1, c.shape[1] + 1)
                for one in c:
                    ax.plot(t, one, style, color=PALETTE[pal], alpha=0.2, lw=0.7)
                med = np.median(c, axis=0)
                ax.plot(t, med, style, color=PALETTE[pal], lw=1.8, label=label)
        _label(ax, titles[name], "summed loss")
    return _finish(fig, axes, len(runs), 8)


def plot_same_start(same: dict, titles: dict, tol: float):
    """Figure ``fig-authors-code-same-start``: per experiment of ``same`` (a panel
    titled from ``titles``), ``|engine - script| / script's loss`` per epoch and seed
    (equal bits leave a gap), the tolerance ``tol`` dashed, each parting marked."""
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
    """Figure ``fig-authors-code-race``: Fig. 4a's race (:class:`~.race.RaceCheck`
    ``r``, drawn in ``color``) by the authors' ``race.py`` (solid) and by the book
    (dashed), and their relative difference per epoch, aligned and one epoch off, with
    float32's epsilon dotted."""
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
