"""The figures of the page book/more_contexts.md."""

import matplotlib.pyplot as plt
import numpy as np

from ...core.families import node_reuse_index


def census(CS, BY_K, RACE) -> None:
    """The ReLU network's final census by k/C, with the race reduction's."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for col, C in zip(plt.cm.viridis(np.linspace(0, 0.9, len(CS))), CS):
        k, sh = np.arange(1, C + 1), BY_K[C][:, -1, 1:]
        med = np.median(sh, axis=0)
        style = dict(color=col, marker="o", lw=1, capsize=2, label=f"C = {C}")
        ax.errorbar(k / C, med, yerr=[med - sh.min(0), sh.max(0) - med], **style)
        if C in RACE:
            ax.plot(k / C, RACE[C][1:], "s", mfc="none", color=col, ms=7)
        ax.axvline((C - 1) / C, color=col, ls=":", lw=0.8)
    ax.set_xlabel("fraction of contexts a unit is on in, k / C")
    ax.set_ylabel("share of weight")
    ax.legend(fontsize=8, ncol=2)
    plt.tight_layout()


def fraction(CS, FRAC, RACE, SEEDS, t_rec) -> None:
    """The fraction of contexts a unit serves over training and at its end."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    for col, C in zip(plt.cm.viridis(np.linspace(0, 0.9, len(CS))), CS):
        ax1.plot(t_rec[1:], np.median(FRAC[C][:, 1:], 0), color=col, label=f"C = {C}")
        ax1.axhline((C - 1) / C, color=col, ls=":", lw=0.8)
        ax2.plot([C] * len(SEEDS), FRAC[C][:, -1], "o", color=col)
        if C in RACE:
            ax2.plot(C, node_reuse_index(RACE[C]), "s", mfc="none", color="k")
    ax2.plot(CS, [(C - 1) / C for C in CS], "k--", lw=1)
    ax1.set(xlabel="epoch", ylabel="fraction of contexts served")
    ax1.legend(fontsize=7, ncol=2)
    ax2.set_xlabel("C")
    plt.tight_layout()


def over_training(CS, BY_K, SNAP, t_rec) -> None:
    """The census over training, one panel per C, and the snap change."""
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.2), sharex=True)
    for ax, C in zip(axes.flat, CS):
        shades, med = plt.cm.magma(np.linspace(0.85, 0.1, C)), np.median(BY_K[C], 0)
        for k in range(1, C + 1):
            ax.plot(t_rec, med[:, k], color=shades[k - 1], label=f"{k}/{C}")
        ax.set_title(f"C = {C}", fontsize=9)
        ax.legend(fontsize=6, ncol=2)
    ax = axes.flat[-1]
    for col, C in zip(plt.cm.viridis(np.linspace(0, 0.9, len(CS))), CS):
        ax.plot(t_rec[1:], np.median(SNAP[C][:, 1:], 0), color=col, label=f"C = {C}")
    ax.set_title("snap change", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    plt.setp(axes[1], xlabel="epoch")
    plt.tight_layout()
