"""The figures of the page *Finding the gates* (``book/gate_finding.md``): each
function draws one figure from what the page computed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures
from ...core.algorithm1 import cluster_gates, pattern_strings
from .clusterings import Depth, context_strings

#: The colour of each start of the GDLN, as in the depth chapter.
INIT_COLOURS = {
    "authors": figures.PALETTE["reln"],
    "matched": figures.PALETTE["linear"],
    "derived": figures.PALETTE["prediction"],
}


def draw_centroids(ax, cl, labels, boundaries=(), title=""):
    """A clustering as a K x P image of activation frequencies (Fig. 8 style)."""
    kw = dict(cmap="Greys", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.imshow(cl.centroids, **kw)
    for b in boundaries:
        ax.axvline(b - 0.5, color=figures.PALETTE["reln"], lw=1)
    ax.set_yticks(
        range(cl.K),
        [f"{s}  ({100 * w:.0f}%)" for s, w in zip(labels, cl.shares)],
        fontsize=8,
    )
    ax.set_xticks([])
    ax.grid(False)
    ax.set_title(title, fontsize=9, loc="left")


def _stacked(panels, ds, height):
    """``(title, clustering)`` panels one above the other, each as high as its K."""
    ratios = [cl.K for _, cl in panels]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(7, height), gridspec_kw={"height_ratios": ratios}
    )
    bounds = [8 * c for c in range(1, ds.n_contexts)]
    for ax, (title, cl) in zip(np.atleast_1d(axes), panels):
        draw_centroids(ax, cl, context_strings(cl, ds), bounds, title)
    ax.set_xticks(range(ds.P), ds.column_labels(), rotation=90, fontsize=6)
    plt.tight_layout()


def centroids(samples, by_k, ks, ds, random_state):
    """Fig. 8: the clustering for each K in ``ks`` (fig-gate_finding-centroids)."""
    panels = [
        (f"K = {K}", by_k[K].clustering if K in by_k
         else cluster_gates(samples, K, random_state=random_state))
        for K in ks
    ]  # fmt: skip
    _stacked(panels, ds, 0.9 + 0.32 * sum(ks))


def emergence(samples, share_t, patterns):
    """Share of the units in each K = 4 cluster over training, and the ReLU loss
    (fig-gate_finding-emergence)."""
    colors = [figures.PALETTE[c] for c in ("common", "mixed", "linear", "prediction")]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for share, c, p in zip(share_t, colors, patterns):
        ax.plot(samples.epochs, share, color=c, lw=1.8, label=f"cluster {p}")
    ax.set(xlabel="epoch", ylabel="share of hidden units", ylim=(0, 1))
    ax2 = ax.twinx()
    loss = samples.run.loss.mean(0)
    ax2.plot(np.arange(len(loss)), loss, color="k", alpha=0.35, lw=1)
    ax2.set(yscale="log", ylabel="summed loss")
    ax2.grid(False)
    ax.legend(fontsize=8, loc="center right")
    plt.tight_layout()


def elbow(Ks, err_seed, errors, best_k, gaps, by_k, relu_curve, noise_multiple):
    """Fig. 9: the elbow and the GDLNs' loss curves (fig-gate_finding-elbow)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for r in range(err_seed.shape[1]):
        ax1.plot(Ks, err_seed[:, r], "-", color="0.6", lw=0.8)
    ax1.plot(Ks, errors, "o-", color=figures.PALETTE["relu"])
    ring = dict(ms=14, mfc="none", mec=figures.PALETTE["reln"], mew=2)
    ax1.plot([best_k], [errors[Ks.index(best_k)]], "o", **ring)
    ax1.set(
        yscale="log", xlabel="number of clusters K", ylabel="output MSE, ReLU vs GDLN"
    )
    ax1b = ax1.twinx()
    blue = figures.PALETTE["prediction"]
    ax1b.plot(Ks, [gaps[K].value for K in Ks], "s--", color=blue, ms=4)
    ax1b.axhline(noise_multiple * gaps[Ks[0]].spread, color=blue, ls=":", lw=1)
    ax1b.set_ylabel("time gap", color=blue)
    ax1b.set_yscale("log")
    ax1b.grid(False)
    t = np.arange(len(relu_curve))
    cmap = plt.cm.viridis(np.linspace(0, 0.9, len(Ks)))
    for K, c in zip(Ks, cmap):
        lw = 1.2 if K != best_k else 2.2
        ax2.plot(t, by_k[K].loss[0], color=c, lw=lw, label=f"K = {K}")
    ax2.plot(t, relu_curve, color="k", lw=1.5, ls="--", label="ReLU")
    ax2.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    ax2.legend(fontsize=7, ncol=2)
    plt.tight_layout()


def init(relu_loss, points, rows, spread, clearly, noise_multiple):
    """The K = 4 GDLN under each start against the ReLU trainings
    (fig-gate_finding-init)."""
    fig, axes = plt.subplots(
        1, 2, figsize=(10.5, 3.6), gridspec_kw={"width_ratios": [1.5, 1]}
    )
    t = np.arange(relu_loss.shape[1])
    for L in relu_loss:
        axes[0].plot(t, L, color="k", lw=1)
    for choice, d in points.items():
        for k, L in enumerate(d[4].loss):
            label = choice if k == 0 else None
            axes[0].plot(t, L, color=INIT_COLOURS[choice], lw=0.9, label=label)
    axes[0].set(yscale="log", xlabel="epoch", ylabel="summed loss")
    axes[0].legend(fontsize=8)
    names = list(rows)
    xs = np.arange(len(names))
    cols = [INIT_COLOURS[i] for i in names]
    axes[1].bar(xs - 0.2, [rows[i]["gap_k4"] for i in names], 0.4, color=cols)
    k3 = [rows[i]["gap_k3"] for i in names]
    axes[1].bar(xs + 0.2, k3, 0.4, color=cols, alpha=0.4, hatch="//")
    for x, g in zip(xs, k3):
        axes[1].plot([x - 0.4, x + 0.4], [clearly * g] * 2, "k:")
    axes[1].axhline(noise_multiple * spread, color="k", ls="--", lw=1)
    axes[1].set_xticks(xs, names)
    axes[1].set_ylabel("time gap to the ReLU trainings")
    plt.tight_layout()


def xor(results, show, ks):
    """Algorithm 1 on the XoR networks (fig-gate_finding-xor)."""
    fig, axes = plt.subplots(
        1, 3, figsize=(11, 3.4), gridspec_kw={"width_ratios": [1, 1, 1.6]}
    )
    for ax, eps in zip(axes[:2], show):
        r = results[eps]
        cl = r["points"][r["k"] - 1].clustering
        title = f"eps = {eps}: K* = {r['k']}"
        draw_centroids(ax, cl, pattern_strings(cl.binary), (), title)
        ax.set_xticks(range(4), ["x1", "x2", "x3", "x4"], fontsize=8)
    eps_all = sorted(results)
    cm = plt.cm.coolwarm(np.linspace(0, 1, len(eps_all)))
    for eps, c in zip(eps_all, cm):
        r = results[eps]
        axes[2].plot(ks, r["errors"], "o-", color=c, ms=3, label=f"eps = {eps}")
        axes[2].plot([r["k"]], [r["errors"][r["k"] - 1]], "o", ms=10, mfc="none", mec=c)
    axes[2].set(yscale="log", xlabel="K", ylabel="output MSE, ReLU vs GDLN")
    axes[2].legend(fontsize=7)
    plt.tight_layout()


def depth(d: Depth):
    """Algorithm 1 on the depth network's two layers (fig-gate_finding-depth)."""
    show = [K for K in d.layer2 if K >= 3]
    panels = [("layer 1, K = 3", d.layer1[3])]
    panels += [(f"layer 2, K = {K}", d.layer2[K]) for K in show]
    _stacked(panels, d.ds, 1.2 + 0.32 * (3 + sum(show)))
