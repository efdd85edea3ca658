"""The figures of the Background chapter (``book/background.md``), drawn from what the
page computed; each function draws one figure of the page into a new Matplotlib
figure (shown when the cell ends)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...figures import PALETTE

__all__ = ["svd", "closed_form", "node_reuse"]


def svd(ds, modes):
    """Fig. ``fig-bg-svd``: the dataset ``ds`` and the SVD ``modes`` of its
    input-output correlation."""
    _, axes = plt.subplots(
        1, 4, figsize=(10, 3.2), gridspec_kw={"width_ratios": [4] * 4}
    )
    panels = [
        (ds.Y, "$Y$ (features x items)"),
        (modes.U, "$U$"),
        (np.diag(modes.s), "$S$"),
        (modes.V.T, "$V^T$"),
    ]
    for ax, (M, title) in zip(axes, panels):
        lim = np.abs(M).max()
        ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
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
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("mode strength $a_\\alpha$")
    ax1.legend(fontsize=8)
    t_all = np.arange(loss.shape[1])
    for k in range(seeds):
        ax2.plot(t_all, loss[k], color=PALETTE["relu"], lw=1.2, alpha=0.6)
        ax2.plot(t_all, L_cf[k], color=PALETTE["closed_form"], lw=1, ls="--", alpha=0.8)
    ax2.plot([], [], color=PALETTE["relu"], label="simulated")
    ax2.plot([], [], color=PALETTE["closed_form"], ls="--", label="closed form")
    ax2.set_yscale("log")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("summed loss")
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
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("summed loss")
    ax.legend()
    plt.tight_layout()
