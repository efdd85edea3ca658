"""The figures of the page book/extra_contexts.md, drawn from what the page
computed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...book.rulebook import CLEARLY, NOISE_MULTIPLE
from ...figures import PALETTE as palette
from ...figures import loss_curves


def task(ds4, net4) -> None:
    """The task for C = 4 and its ReLN: inputs, outputs and the ReLN's gates."""
    G4 = np.stack([net4.layers[0].gating[sl][0] for _, sl in net4.layers[0].pathways])
    fig, axes = plt.subplots(
        1, 3, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1, 1.4, 1]}
    )
    for ax, M, title in zip(axes, (ds4.X, ds4.Y, G4), ("$X$", "$Y$", "ReLN gates")):
        ax.imshow(M, cmap="Greys", aspect="auto", interpolation="nearest")
        ax.set_title(title)
        ax.grid(False)
        ax.set_xlabel("datapoint (context-major)")
    axes[2].set_yticks(range(len(G4)), net4.pathway_names())
    axes[0].set_yticks([])
    axes[1].set_yticks([])
    plt.tight_layout()


def modes(CS, CM, MODES, CF, t_rec, t_all) -> None:
    """Fig. 5, top: context and common mode strengths of the ReLN and the ReLU
    network against the closed form."""
    fig, axes = plt.subplots(
        1, len(CS), figsize=(4.2 * len(CS), 3.6), sharey=True, squeeze=False
    )
    for ax, C in zip(axes[0], CS):
        cm, cf, common = CM[C], CF[C]["head_start"], palette["common"]
        s_u, idx = np.unique(cm.s.round(9), return_index=True)
        colors = plt.cm.viridis(np.linspace(0, 0.8, len(idx)))
        for col, k in zip(colors, idx[::-1]):
            for net_, lw, ls in (("reln", 1.8, "-"), ("relu", 1.2, ":")):
                a = np.median(MODES[C][net_][1][:, :, k], axis=0)
                ax.plot(t_rec, a, color=col, lw=lw, ls=ls)
            ax.plot(t_all, cf.a_context[:, k], color="k", lw=0.9, ls="--")
            ax.plot([], [], color=col, label=f"$s$ = {cm.s[k]:.2f}")
        kc = int(np.argmax(cf.common.s / cf.common.d))
        a = np.median(MODES[C]["reln"][0][:, :, kc], axis=0)
        ax.plot(t_rec, a, color=common, lw=1.5)
        ax.plot(t_all, cf.a_common[:, kc], color=common, lw=0.9, ls="--")
        ax.set(title=f"C = {C}", xlabel="epoch")
        ax.legend(fontsize=7, loc="lower right")
    axes[0, 0].set_ylabel("mode strength")
    axes[0, 0].plot([], [], "k--", lw=0.9, label="closed form")
    axes[0, 0].plot([], [], "k-", lw=1.8, label="ReLN")
    axes[0, 0].plot([], [], "k:", lw=1.2, label="ReLU")
    axes[0, 0].legend(fontsize=7, loc="lower right")
    plt.tight_layout()


def losses(CS, SIM, CF, init, t_all) -> None:
    """Fig. 5, bottom: the summed losses of the ReLU network, the ReLNs and the closed
    form with and without the head start; top row on linear axes, as the authors'
    ``diff_context_num/replot.py`` draws them, bottom row on log axes."""
    fig, axes = plt.subplots(
        2, len(CS), figsize=(4.2 * len(CS), 6.8), squeeze=False, sharex=True
    )
    closed = (("head_start", "--", "closed form"), ("none", ":", "no head start"))
    color = palette["closed_form"]
    for row, log in ((0, False), (1, True)):
        for ax, C in zip(axes[row], CS):
            sim, cf = SIM[C], CF[C]
            loss_curves(ax, sim["relu"].loss, "ReLU", palette["relu"], log=log)
            loss_curves(ax, sim["mixed", init].loss, "ReLN", palette["reln"], log=log)
            single = sim["single", init].loss
            loss_curves(ax, single, "single-context ReLN", palette["single"], log=log)
            for meth, ls, lab in closed:
                ax.plot(t_all, cf[meth].loss, color=color, ls=ls, lw=1.4, label=lab)
            top = cf["head_start"].loss[0]
            ax.set_ylim(*((max(1e-4, 1e-6 * top), 2 * top) if log else (0, 1.05 * top)))
            ax.set_title(f"C = {C}" + (" (log axis)" if log else ""))
    axes[0, 0].legend(fontsize=8)
    plt.tight_layout()


def svals(CS, SV, CM, CF, t_rec, t_all) -> None:
    """Singular values of one context pathway's map and of the common pathway's,
    against the closed form."""
    fig, axes = plt.subplots(
        1, len(CS), figsize=(4.2 * len(CS), 3.4), sharey=True, squeeze=False
    )
    for ax, C in zip(axes[0], CS):
        (name, sv, sv_c), cf, n = SV[C], CF[C]["head_start"], len(CM[C].s)
        for r in range(n):
            col = plt.cm.viridis(0.8 * r / max(1, n - 1))
            ax.plot(t_rec, sv[:, r], color=col, lw=1.2)
            ax.plot(t_all, cf.a_context[:, r], color="k", lw=0.7, ls="--")
        ax.plot(t_rec, sv_c[:, 0], color=palette["common"], lw=1.2)
        a = np.max(cf.a_common, axis=1)
        ax.plot(t_all, a, color=palette["common"], lw=0.7, ls="--")
        ax.set(title=f"C = {C}: pathway {name}", xlabel="epoch")
    axes[0, 0].set_ylabel("singular value of the map")
    plt.tight_layout()


def inits(CS, INITS, M, init) -> None:
    """The ReLU network against the closed form under each initialisation, with the
    rulebook's two yardsticks."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for n, choice in enumerate(INITS):
        x = np.arange(len(CS)) + (n - 1) * 0.25
        ax.bar(x, [M[C, choice].value for C in CS], 0.25, color=f"C{n}", label=choice)
    for j, C in enumerate(CS):
        lim, half = NOISE_MULTIPLE * M[C, init].spread, CLEARLY * M[C, init].alternative
        ax.hlines(lim, j - 0.45, j + 0.45, color="k", lw=1.5)
        ax.hlines(half, j - 0.45, j + 0.45, color="0.6", lw=1.5)
    ax.plot([], [], color="k", label="2 x ReLU seed spread")
    ax.plot([], [], color="0.6", label="half the alternative's gap")
    ax.set_xticks(range(len(CS)), [f"C = {C}" for C in CS])
    ax.set_ylabel("time gap, ReLU vs closed form")
    ax.legend(fontsize=8)
    plt.tight_layout()


def family(CS, FOLLOWS, M, PAPER_RELN, init) -> None:
    """The ReLU network against every ReLN of the family and the closed form."""
    fig, axes = plt.subplots(1, len(CS), figsize=(4.4 * len(CS), 3.6), squeeze=False)
    for ax, C in zip(axes[0], CS):
        cand = FOLLOWS[C].candidates
        names = sorted(cand, key=lambda n: (len(n), n))
        colors = ["C3" if n == PAPER_RELN[C] else "0.7" for n in names]
        ax.bar(range(len(names)), [cand[n] for n in names], color=colors)
        ax.bar(len(names), M[C, init].value, color="white", edgecolor="C0", hatch="//")
        ax.axhline(NOISE_MULTIPLE * FOLLOWS[C].spread, color="k", lw=1.2)
        ticks = names + ["closed form"]
        ax.set_xticks(range(len(ticks)), ticks, rotation=45, ha="right", fontsize=8)
        ax.set(yscale="log", title=f"C = {C}")
    axes[0, 0].set_ylabel("time gap to the ReLU network")
    plt.tight_layout()


def census(CS, BY_K, FUNC_K, PER_UNIT, t_rec) -> None:
    """The ReLU network's census by contexts off, by weight and by function, and the
    number of contexts a unit serves over training."""
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(13, 3.8))
    bw = 0.8 / len(CS)
    for n, C in enumerate(CS):
        off = np.arange(C + 1) + (n - (len(CS) - 1) / 2) * bw  # contexts off = C - k
        for ax, K in ((ax1, BY_K), (ax2, FUNC_K)):
            share = np.median(K[C][:, -1], axis=0)[::-1]
            ax.bar(off, share, width=bw, label=f"C = {C}", color=f"C{n}")
        for how, ls in (("weight", "-"), ("function", "--")):
            med = np.median(PER_UNIT[C, how][:, 1:], axis=0)
            label = f"C = {C}" if how == "weight" else None
            ax3.plot(t_rec[1:], med, color=f"C{n}", ls=ls, lw=1.6, label=label)
        ax3.axhline(C - 1, color=f"C{n}", ls=":", lw=1)
    for ax, what in ((ax1, "weight"), (ax2, "snapped output")):
        ax.set_xticks(range(max(CS) + 1))
        ax.set(xlabel="contexts the unit is off in", ylabel=f"share of {what}")
    ax1.legend(fontsize=8)
    ax3.set(xlabel="epoch", ylabel="contexts per unit")
    ax3.legend(fontsize=8)
    plt.tight_layout()
