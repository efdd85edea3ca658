"""Plot style and the few plots that several chapters share."""

from __future__ import annotations

from itertools import combinations
from typing import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .core.datasets import Dataset
from .core.relns import pathway_pattern

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


def loss_curves(
    ax,
    curves,
    label,
    color,
    log=True,
    alpha_runs=0.25,
    epochs=None,
    bold=None,
    lw=2,
    ls="-",
):
    """Plot one loss curve per run faded and one bold: their median, or run index
    ``bold``; ``alpha_runs=0`` draws the bold curve alone; log scale unless ``log``."""
    curves = np.atleast_2d(np.asarray(curves, float))
    t = np.arange(curves.shape[1]) if epochs is None else epochs
    if alpha_runs > 0:
        for k, c in enumerate(curves):
            if k != bold:
                ax.plot(t, c, color=color, alpha=alpha_runs, lw=0.8)
    main = np.median(curves, axis=0) if bold is None else curves[bold]
    ax.plot(t, main, color=color, lw=lw, ls=ls, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("summed loss")
    return ax


def _context_pathway_names(C: int, kind: str) -> list[str]:
    """The pathways :func:`draw_context_reln` draws, top to bottom."""
    sets = []
    if kind in ("mixed", "both"):
        sets += list(combinations(range(C), C - 1))
    if kind in ("single", "both") and not (kind == "both" and C == 2):
        sets += [(c,) for c in range(C)]
    return ["common"] + ["ctx" + "".join(str(c + 1) for c in s) for s in sets]


def _pathway_color(colors: Mapping[str, str], name: str, pattern: str) -> str:
    """A pathway's fill: its own colour, else its class's, else white."""
    kind = "single" if pattern.count("1") == 1 else "mixed"
    return colors.get(name, colors.get("common" if name == "common" else kind, "w"))


def _box(ax, x, y, w, hgt, text, fc, fontsize=8) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - hgt / 2),
            w,
            hgt,
            boxstyle="round,pad=0.01",
            fc=fc,
            ec="0.3",
            lw=0.8,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize)


def _arrow(ax, x0, y0, x1, y1, color="0.5", ls="-") -> None:
    ax.add_patch(
        FancyArrowPatch(
            (x0, y0),
            (x1, y1),
            arrowstyle="-|>",
            mutation_scale=7,
            color=color,
            lw=0.7,
            ls=ls,
            shrinkA=0,
            shrinkB=0,
        )
    )


def draw_context_reln(
    ax,
    ds: Dataset,
    kind: str = "mixed",
    block_names: Sequence[str] | None = None,
    colors: Mapping[str, str] | None = None,
):
    """Draw the ReLN of Sections 4-5 for ``ds`` (any C >= 2; Fig. 3, right).
    ``kind``: ``'mixed'`` (C-1 of C), ``'single'`` or ``'both'``.  Returns the pathway
    names drawn, top to bottom."""
    C = ds.n_contexts
    if C < 2:
        raise ValueError(
            f"{ds.name}: draw_context_reln needs a contextual task (C >= 2)"
        )
    if kind not in ("mixed", "single", "both"):
        raise ValueError(f"kind must be 'mixed', 'single' or 'both', got {kind!r}")
    colors = dict(colors or {})
    names = _context_pathway_names(C, kind)
    n = len(names)
    ys = np.linspace(0.88, 0.12, n)

    y_items, y_ctx = 0.65, 0.3
    _box(ax, 0.08, y_items, 0.13, 0.22, "items\n(8 one-hot)", "0.92")
    _box(ax, 0.08, y_ctx, 0.13, 0.16, f"contexts\n({C} one-hot)", "0.92")
    nb = C + 1
    if block_names is None:
        block_names = ["common"] + [f"ctx {k + 1}" for k in range(C)]
    if len(block_names) != nb:
        raise ValueError(f"need {nb} block names, got {len(block_names)}")
    yb = np.linspace(0.85, 0.15, nb)
    for k in range(nb):
        _box(ax, 0.92, yb[k], 0.13, 0.55 / nb, block_names[k], "0.96")
    for name, y in zip(names, ys):
        pat = pathway_pattern(name, C)
        fc = _pathway_color(colors, name, pat)
        on = ", ".join(str(c + 1) for c in range(C) if pat[c] == "1")
        label = "common\n(always on)" if name == "common" else f"{name}\non in {on}"
        _box(ax, 0.5, y, 0.2, min(0.7 / n, 0.16), label, fc, fontsize=7)
        _arrow(ax, 0.145, y_items, 0.4, y)
        if name == "common":
            _arrow(ax, 0.145, y_ctx, 0.4, y)
        for k in range(nb):
            _arrow(ax, 0.6, y, 0.855, yb[k], color="0.75")
    ax.text(
        0.08,
        0.14,
        "context pathways\nsee the items only",
        fontsize=7,
        ha="center",
        va="top",
        color="0.3",
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    return names
