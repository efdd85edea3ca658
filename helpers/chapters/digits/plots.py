"""The figures of book/digits.md, one function per figure; each returns it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures
from ...book.kit import med
from ...core.algorithm1 import pattern_strings

C = 3


#: The book's palette and a colour for the GDLN of Algorithm 1.
COL = {k: figures.PALETTE[k] for k in ("relu", "mixed", "single", "prediction")}
COL |= {"common": figures.PALETTE["common"], "gdln": "#9467bd"}


def plot_task(task):
    """fig-digits-task: the first image of each class, its inputs and targets."""
    X, Y, n_train = task.train.X, task.train.Y, task.train.P // C
    first = [int(np.flatnonzero(task.labels_train == k)[0]) for k in range(10)]
    cols = np.concatenate([c * n_train + np.array(first) for c in range(C)])
    rows = task.rows()
    fig = plt.figure(figsize=(10, 7.4))
    gs = fig.add_gridspec(3, 10, height_ratios=[14, 67, 17 * 1.6], hspace=0.12)
    for k, i in enumerate(first):
        ax = fig.add_subplot(gs[0, k])
        ax.imshow(X[:64, i].reshape(8, 8), cmap="Greys")
        ax.set_title(str(k), fontsize=8)
        ax.axis("off")
    for r, (M, lab) in enumerate([(X[:, cols], "inputs X"), (Y[:, cols], "targets Y")]):
        ax = fig.add_subplot(gs[r + 1, :])
        ax.imshow(M, cmap="Greys", aspect="auto", vmin=0, vmax=M[:64].max())
        for c in range(1, C):
            ax.axvline(10 * c - 0.5, color=figures.PALETTE["reln"], lw=1)
        ax.set(ylabel=lab, xticks=[])
        ax.grid(False)
        if r == 0:
            ax.axhline(63.5, color=figures.PALETTE["reln"], lw=0.8)
            ax.set_yticks([32, 65], ["pixels", "ctx"])
        else:
            for b in list(rows)[1:]:
                ax.axhline(rows[b].start - 0.5, color=figures.PALETTE["reln"], lw=0.8)
            mids = [(s.start + s.stop - 1) / 2 for s in rows.values()]
            ax.set_yticks(mids, ["class", "parity", ">= 5", "mod 3"], fontsize=8)
            for c in range(C):
                ax.text(10 * c + 4.5, 17.3, f"context {c + 1}", ha="center",
                        va="top", fontsize=8)  # fmt: skip
    return fig


def plot_relu(loss, L_linear: float, floor: float, width: int):
    """fig-digits-relu: the ReLU network's loss, the linear map's and the floor."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    figures.loss_curves(ax, loss, f"ReLU, {width} units", COL["relu"])
    ax.axhline(L_linear, color=COL["common"], ls="--", lw=1, label="best linear map")
    ax.axhline(floor, color=COL["mixed"], ls=":", lw=1.2, label="context-gated floor")
    ax.legend(fontsize=8)
    return fig


def plot_centroids(elbow, show_ks, task):
    """fig-digits-centroids: the clusterings with ``show_ks`` centroids."""
    ds, n_train = task.train, task.train.P // C
    order = np.argsort(task.labels_train, kind="stable")
    col_order = np.concatenate([c * n_train + order for c in range(C)])
    class_edges = np.flatnonzero(np.diff(np.sort(task.labels_train))) + 1
    fig, axes = plt.subplots(len(show_ks), 1, figsize=(10, 0.9 + 0.34 * sum(show_ks)),
                             gridspec_kw={"height_ratios": show_ks})  # fmt: skip
    for ax, K in zip(np.atleast_1d(axes), show_ks):
        cl = elbow.fits[K - 1].clustering
        pats = pattern_strings(cl.binary, ds.contexts, C)
        kinds = elbow.sources[K - 1]["kind"]
        ax.imshow(cl.centroids[:, col_order], cmap="Greys", vmin=0, vmax=1,
                  aspect="auto", interpolation="nearest")  # fmt: skip
        for c in range(C):
            if c:
                ax.axvline(c * n_train - 0.5, color=figures.PALETTE["reln"], lw=1.2)
            for e in class_edges:
                ax.axvline(c * n_train + e - 0.5, color="0.6", lw=0.4)
        labels = [
            f"{p} {k} ({100 * w:.0f}%)" for p, k, w in zip(pats, kinds, cl.shares)
        ]
        ax.set_yticks(range(K), labels, fontsize=7)
        ax.set_xticks([])
        ax.grid(False)
        ax.set_title(f"K = {K}", fontsize=9, loc="left")
    plt.tight_layout()
    return fig


def plot_elbow(elbow, relu_loss, floor: float, L0: float):
    """fig-digits-elbow: the centroid GDLNs' output error and final loss against K."""
    fits, errors, best_k = elbow.fits, elbow.errors, elbow.best_k
    KS = [f.K for f in fits]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    axes[0].plot(KS, errors, "o-", color=COL["gdln"])
    axes[0].plot([best_k], [errors[best_k - 1]], "o", ms=12, mfc="none", mec="k")
    axes[0].set(yscale="log", xlabel="K", ylabel="output MSE, ReLU vs GDLN")
    final = [med(f.run.loss[:, -1]) if f.run is not None else L0 for f in fits]
    axes[1].plot(KS, final, "o-", color=COL["gdln"], label="centroid GDLN")
    axes[1].axhline(med(relu_loss[:, -1]), color=COL["relu"], label="ReLU network")
    axes[1].axhline(floor, color=COL["mixed"], ls=":", label="context-gated floor")
    axes[1].set(yscale="log", xlabel="K", ylabel="final summed loss")
    axes[1].legend(fontsize=8)
    plt.tight_layout()
    return fig


def plot_census(census: dict, t_rec, early: int):
    """fig-digits-census: the census by context and by what the gates follow."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharex=True)
    cc = {k: COL[k] for k in ("common", "mixed", "single")}
    cc |= {"context": COL["mixed"], "both": COL["gdln"], "item": "#2ca02c"}
    cc |= {"other": "#17becf", "by_class": "0.3"}
    panels = ["common mixed single other".split(), "context item both by_class".split()]
    for ax, keys in zip(axes, panels):
        for k in keys:
            ls = ":" if k == "by_class" else "-"
            for curve in census[k]:
                ax.plot(t_rec, curve, color=cc[k], alpha=0.2, lw=0.7, ls=ls)
            lab = {"mixed": "2-of-3", "by_class": "class and context"}.get(k, k)
            median = np.median(census[k], axis=0)
            ax.plot(t_rec, median, color=cc[k], lw=2, ls=ls, label=lab)
        ax.axvline(early, color="0.6", lw=0.8)
        ax.set(xlabel="epoch", ylim=(0, 1))
    snap = np.median(census["snap_change"], axis=0)
    axes[0].plot(t_rec, snap, "k--", lw=1.5, label="snap change")
    axes[0].set_ylabel("share of weight")
    for ax in axes:
        ax.legend(fontsize=7)
    plt.tight_layout()
    return fig


def plot_relns(relu_loss, runs, preds, best, floor, L0, epochs, t_half):
    """fig-digits-reln: the ReLU network against the ReLNs, their predictions and the
    GDLN at the elbow ``best`` (right: up to twice the halving epoch ``t_half``)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
    curves = [
        (relu_loss, "ReLU", "relu"), (runs["mixed"].loss, "common + 2-of-3", "mixed"),
        (runs["single"].loss, "common + single-context", "single"),
        (best.run.loss, f"Algorithm 1 GDLN, K = {best.K}", "gdln"),
    ]  # fmt: skip
    for ax, log in zip(axes, [True, False]):
        for loss, label, c in curves:
            figures.loss_curves(ax, loss, label, COL[c], log=log)
        for kind, ls, name in (("mixed", "--", "2-of-3"), ("single", ":", "single")):
            ax.plot(preds[kind].loss, color=COL["prediction"], ls=ls, lw=1.3,
                    label=f"race prediction, {name}")  # fmt: skip
        ax.axhline(floor, color=COL["mixed"], ls=":", lw=1)
    axes[0].legend(fontsize=7)
    axes[1].set(xlim=(0, min(epochs, 2 * int(t_half))), ylim=(0, 1.05 * L0))
    plt.tight_layout()
    return fig
