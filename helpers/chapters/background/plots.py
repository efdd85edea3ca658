"""The figures of the Background chapter (``book/background.md``), one per function."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ...figures import PALETTE

#: The gates the schematic draws by default, ``(pathways, datapoints)``: one pathway
#: on for every datapoint, two on for half of them each.
SCHEMATIC_GATES = ((1, 1, 1, 1), (1, 1, 0, 0), (0, 0, 1, 1))


def gdln_schematic(gates=SCHEMATIC_GATES):
    r"""The GDLN notation as a drawing: the page's counterpart of the paper's Fig. 1.

    Defined for the page book/background.md (section *Gated deep linear networks*).
    Left: the nodes, each pathway's edges and gate, the output; right: the gates as a
    table of pathways x datapoints.  Nothing is computed.

    Args:
        gates: ``(pathways, datapoints)`` of 0 and 1 (1-6 pathways, 1-12
            datapoints); default :data:`SCHEMATIC_GATES`.

    Returns:
        The Matplotlib figure.
    """
    G = np.asarray(gates)
    if G.ndim != 2 or not 1 <= G.shape[0] <= 6 or not 1 <= G.shape[1] <= 12:
        raise ValueError(
            "gates must be a (pathways x datapoints) table with 1-6 pathways and "
            f"1-12 datapoints, got shape {G.shape}"
        )
    if not np.isin(G, (0, 1)).all():
        raise ValueError("gates must hold only 0 (off) and 1 (on)")
    G = G.astype(int)
    colors = plt.cm.tab10(np.arange(G.shape[0]) % 10)
    fig, (ax, axg) = plt.subplots(
        1, 2, figsize=(10.5, 4.2), gridspec_kw={"width_ratios": [1.6, 1]}
    )
    _draw_network(ax, G.shape[0], colors)
    _draw_gates(axg, G, colors)
    fig.tight_layout()
    return fig


#: The schematic's layout (axes fractions): the nodes' x and the outer nodes' y.
_X_IN, _X_H, _X_OUT, _Y_MID = 0.07, 0.55, 0.93, 0.5


def _node(ax, x, y, w, h, units, fc, vertical=True):
    """A layer's box at ``(x, y)`` with ``units`` unit circles along it."""
    box = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.01",
                         fc=fc, ec="0.3", lw=0.9)  # fmt: skip
    ax.add_patch(box)
    pos = np.linspace(-0.3, 0.3, units)
    cx, cy = (x + 0 * pos, y + pos * h) if vertical else (x + pos * w, y + 0 * pos)
    ax.plot(cx, cy, "o", ms=6, mfc="w", mec="0.3", mew=0.8)


def _edge(ax, p0, p1, c, t: float, label: str) -> None:
    """An arrow from ``p0`` to ``p1`` in colour ``c``, ``label`` above ``t`` of it."""
    arrow = FancyArrowPatch(
        p0,
        p1,
        arrowstyle="-|>",
        mutation_scale=9,
        color=c,
        lw=1.3,
        shrinkA=0,
        shrinkB=0,
    )
    ax.add_patch(arrow)
    lx, ly = _along(p0, p1, t)
    ax.text(lx, ly + 0.02, label, ha="center", va="bottom", fontsize=9, color=c)


def _along(p0, p1, t):
    return p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1])


def _draw_network(ax, n_p: int, colors) -> None:
    """The schematic's left panel: the nodes, the pathways and their gates."""
    _node(ax, _X_IN, _Y_MID, 0.06, 0.34, 3, "0.92")
    _node(ax, _X_OUT, _Y_MID, 0.06, 0.22, 2, "0.92")
    ax.text(_X_IN, _Y_MID + 0.21, "input $x$", ha="center", fontsize=10)
    ax.text(_X_OUT, _Y_MID + 0.15, "output $y$", ha="center", fontsize=10)
    ys = np.linspace(0.9, 0.1, n_p) if n_p > 1 else np.array([_Y_MID])
    h_node = min(0.1, 0.5 / n_p)
    for p, (y, c) in enumerate(zip(ys, colors)):
        _draw_pathway(ax, p + 1, y, c, h_node)
    ax.set(xlim=(0, 1), ylim=(0, 1.02))
    ax.axis("off")
    ax.set_title("a GDLN: gated pathways through the layers", fontsize=10)
    ax.text(0.5, -0.08, r"$\hat y(x) = \sum_p\, g_p(x)\, W_2^{(p)} W_1^{(p)}\, x,\quad "
            r"g_p(x) \in \{0, 1\}$", transform=ax.transAxes, ha="center", va="top",
            fontsize=10)  # fmt: skip


def _draw_pathway(ax, k: int, y: float, c, h_node: float) -> None:
    """Pathway ``k`` at height ``y`` in colour ``c``: hidden node, edges, gate."""
    _node(ax, _X_H, y, 0.13, h_node, 3, (*c[:3], 0.25), vertical=False)
    ax.text(_X_H, y + h_node / 2 + 0.015, f"pathway $p = {k}$", ha="center",
            va="bottom", fontsize=8, color=c)  # fmt: skip
    a, b = (_X_IN + 0.03, _Y_MID), (_X_H - 0.065, y)
    _edge(ax, a, b, c, 0.4, f"$W_1^{{({k})}}$")
    gx, gy = _along(a, b, 0.8)
    ax.plot(gx, gy, "o", ms=15, mfc="w", mec=c, mew=1.6, zorder=3)
    ax.text(gx, gy, "$g$", ha="center", va="center", fontsize=8, zorder=4)
    ax.text(gx, gy - 0.045, f"$g_{{{k}}}(x)$", ha="center", va="top",
            fontsize=8)  # fmt: skip
    _edge(ax, (_X_H + 0.065, y), (_X_OUT - 0.03, _Y_MID), c, 0.5, f"$W_2^{{({k})}}$")


def _draw_gates(axg, G, colors) -> None:
    """The schematic's right panel: the gates as a table."""
    n_p, n_i = G.shape
    table = np.ones((n_p, n_i, 4))
    for p in range(n_p):
        table[p, G[p] == 1] = (*colors[p][:3], 0.6)
    axg.imshow(table, aspect="equal")
    for (p, i), g in np.ndenumerate(G):
        axg.text(i, p, str(g), ha="center", va="center", fontsize=9)
    for v in np.arange(n_i + 1) - 0.5:
        axg.axvline(v, color="0.4", lw=0.6)
    for v in np.arange(n_p + 1) - 0.5:
        axg.axhline(v, color="0.4", lw=0.6)
    axg.grid(False)
    axg.set_xticks(range(n_i), [f"$x^{{{i + 1}}}$" for i in range(n_i)])
    axg.set_yticks(range(n_p), [f"$p = {p + 1}$" for p in range(n_p)])
    axg.tick_params(length=0)
    axg.spines[:].set_visible(False)
    axg.set_xlabel("datapoint $x^i$")
    axg.set_title("gates $g_p(x^i)$: 1 on, 0 off", fontsize=10)
    axg.text(0.5, -0.3,
             r"effective dataset: $\Sigma_{yx}(p) = \sum_i g_p(x^i)\, y^i x^{i\top}$",
             transform=axg.transAxes, ha="center", va="top", fontsize=10)  # fmt: skip


def svd(ds, modes):
    """Fig. ``fig-bg-svd``: the dataset ``ds`` and the SVD ``modes`` of its
    input-output correlation."""
    _, axes = plt.subplots(1, 4, figsize=(10, 3.2))
    panels = [(ds.Y, "$Y$ (features x items)"), (modes.U, "$U$"),
              (np.diag(modes.s), "$S$"), (modes.V.T, "$V^T$")]  # fmt: skip
    for ax, (M, title) in zip(axes, panels):
        lim = np.abs(M).max()
        ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.set(title=title, xticks=[], yticks=[])
        ax.grid(False)
    axes[0].set_yticks(range(7), ds.features)
    axes[0].set_xticks(range(4), ds.inputs, rotation=45)
    plt.tight_layout()


def closed_form(t_rec, a_sim, a_cf, loss, L_cf, s):
    """Fig. ``fig-bg-closed-form``: simulated mode strengths ``a_sim`` and losses
    ``loss`` (one line per seed) against the closed forms ``a_cf`` and ``L_cf``;
    ``s``: the singular values (the legend)."""
    _, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    colors = plt.cm.viridis(np.linspace(0, 0.85, len(s)))
    seeds = len(loss)
    for a in range(len(s)):
        for k in range(seeds):
            ax1.plot(t_rec, a_sim[k, :, a], color=colors[a], lw=1.2, alpha=0.6)
            ax1.plot(t_rec, a_cf[k, :, a], color="k", lw=0.8, ls="--", alpha=0.6)
        ax1.plot([], [], color=colors[a], label=f"mode {a + 1}: s = {s[a]:.2f}")
    ax1.plot([], [], "k--", lw=0.8, label="closed form")
    ax1.set(xlabel="epoch", ylabel="mode strength $a_\\alpha$")
    ax1.legend(fontsize=8)
    t_all = np.arange(loss.shape[1])
    for k in range(seeds):
        ax2.plot(t_all, loss[k], color=PALETTE["relu"], lw=1.2, alpha=0.6)
        ax2.plot(t_all, L_cf[k], color=PALETTE["closed_form"], lw=1, ls="--", alpha=0.8)
    ax2.plot([], [], color=PALETTE["relu"], label="simulated")
    ax2.plot([], [], color=PALETTE["closed_form"], ls="--", label="closed form")
    ax2.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    ax2.legend()
    plt.tight_layout()


def node_reuse(curves):
    """Fig. ``fig-bg-node-reuse``: ``curves`` is ``[(label, run, prediction, halfway
    times), ...]``, the separate and the shared GDLN; one line per seed, the race
    prediction dashed, the halfway times as dots."""
    color = {"separate": PALETTE["single"], "shared": PALETTE["mixed"]}
    _, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, runx, pred, hw in curves:
        t_all = np.arange(runx.loss.shape[1])
        for k in range(len(runx.loss)):
            ax.plot(t_all, runx.loss[k], color=color[label], alpha=0.5, lw=1.2)
            ax.plot(hw[k], runx.loss[k, hw[k]], "o", color=color[label], ms=3)
        ax.plot(t_all, pred.loss, color="k", ls="--", lw=0.8)
        ax.plot([], [], color=color[label], label=label)
    ax.plot([], [], "k--", lw=0.8, label="race prediction")
    ax.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    ax.legend()
    plt.tight_layout()
