"""The figures of the page *Proofs checked numerically* (``book/proofs.md``): each
function draws one figure from what the page computed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures
from ...core import xor_reln
from .lemma import TwoByTwo, UnitCensus, pattern_class
from .race import NAMES, Race
from .xor import EPS_PAPER, Simulated


def _bare(ax):
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


def lemma_2x2(two: TwoByTwo):
    """The 16 patterns of 2 items x 2 contexts with their LP margins and classes
    (fig-proofs-lemma-2x2); infeasible ones framed in red."""
    fig, axes = plt.subplots(2, 8, figsize=(11, 3.4))
    classes = pattern_class(two.patterns, 2, 2)
    for ax, g, r, cl in zip(axes.flat, two.patterns, two.lp, classes):
        ax.imshow(g.reshape(2, 2).T, cmap="Greys", vmin=-0.3, vmax=1.3)
        _bare(ax)
        ax.set_title(f"t*={max(r['margin'], 0.0):.2f}\n{cl}", fontsize=7.5)
        if not r["feasible"]:
            for sp in ax.spines.values():
                sp.set_visible(True)
                sp.set_color("red")
                sp.set_linewidth(2.5)
    plt.tight_layout()


def relu_patterns(units: UnitCensus):
    """Weight share by pattern class over training, and the eight heaviest units'
    patterns at the end (fig-proofs-relu-patterns)."""
    shares, gates, weights = units.shares, units.gates, units.weights
    eps = list(shares)
    fig = plt.figure(figsize=(11, 3.6))
    ax = fig.add_axes([0.06, 0.15, 0.38, 0.75])
    cols = {
        "constant": figures.PALETTE["common"],
        "context-only": figures.PALETTE["mixed"],
        "item-only": figures.PALETTE["single"],
        "both": figures.PALETTE["xor"],
    }
    bottom = np.zeros(len(eps))
    for k, c in cols.items():
        v = np.array([shares[ep][k] for ep in eps])
        ax.bar(range(len(eps)), v, bottom=bottom, color=c, label=k)
        bottom += v
    ax.set_xticks(range(len(eps)), eps)
    ax.set_xlabel("epoch")
    ax.set_ylabel("share of weight mass")
    ax.legend(fontsize=8, loc="lower left")
    for k, j in enumerate(np.argsort(-weights)[:8]):
        axp = fig.add_axes([0.50 + 0.12 * (k % 4), 0.50 - 0.30 * (k // 4), 0.11, 0.25])
        axp.imshow(gates[j].reshape(3, 8), cmap="Greys", vmin=-0.3, vmax=1.3)
        _bare(axp)
        axp.set_title(
            f"{pattern_class(gates[j], 8, 3)}, {weights[j] / weights.sum():.1%}",
            fontsize=7.5,
        )


def interlacing(ratios_random, ratios_task):
    """Histogram of sigma_1(B) / sigma_1(A) over the deletions
    (fig-proofs-interlacing)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    bins = np.r_[np.linspace(0, 1, 41)[:-1], 1 + 1e-9]  # last bin ends above 1
    for r, c, name in [
        (ratios_random, "prediction", "random"),
        (ratios_task, "mixed", "task"),
    ]:
        ax.hist(
            r,
            bins=bins,
            alpha=0.6,
            color=figures.PALETTE[c],
            label=f"{name} ({len(r)})",
        )
    ax.axvline(1.0, color="k", ls="--", lw=1)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel(r"$\sigma_1(B) / \sigma_1(A)$")
    ax.set_ylabel("cases")
    ax.set_yscale("log")
    ax.legend()
    plt.tight_layout()


def race(r: Race):
    """The race's loss curves and their log-ratio to the ReLU loss (fig-proofs-race)."""
    relu_loss, losses, names, L_lin = r.relu_loss, r.losses, NAMES, r.L_lin
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    colors = {
        "single": figures.PALETTE["single"],
        "mixed": figures.PALETTE["mixed"],
        "both": figures.PALETTE["prediction"],
    }
    figures.loss_curves(
        ax1, relu_loss, "ReLU", figures.PALETTE["relu"], alpha_runs=0.3, bold=0
    )
    L_relu = relu_loss[0]
    t = np.arange(len(L_relu))
    floor = 1e-3 * L_relu[0]
    for k, curves in losses.items():
        L, ls = curves[0], "--" if k == "both" else "-"
        ax1.plot(t, L, color=colors[k], lw=1.3, ls=ls, label=names[k])
        ax2.plot(
            t,
            np.log(np.maximum(L, floor)) - np.log(np.maximum(L_relu, floor)),
            color=colors[k],
            ls=ls,
            label=names[k],
        )
    ax1.axhline(L_lin / 2, color="k", ls=":", lw=0.8)
    ax1.set_yscale("log")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("summed loss")
    ax1.legend(fontsize=8)
    ax2.axhline(0, color="k", lw=0.8)
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("log(L_ReLN / L_ReLU)")
    ax2.legend(fontsize=8)
    plt.tight_layout()


def xor(xs: Simulated):
    """Appendix C: simulated and closed-form losses at three margins, and the halving
    times against the margin (fig-proofs-xor)."""
    sim, cf, halving, eps_list = xs.sim, xs.cf, xs.halving, xs.eps
    seeds, a0_mean, lr = list(range(xs.seeds)), xs.a0_mean, xs.lr
    eps_paper, eps_pred = EPS_PAPER, xs.cross_pred
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    kinds = [("linear", figures.PALETTE["linear"]), ("xor", figures.PALETTE["xor"])]
    show = [eps_list[0], min(eps_list, key=lambda e: abs(e - eps_paper)), eps_list[-1]]
    styles = dict(zip(show, ["-", "-.", ":"]))
    t = np.arange(len(sim[eps_list[0], "linear", seeds[0]]))
    for eps in show:
        for kind, c in kinds:
            ax1.plot(t, sim[eps, kind, 0], color=c, ls=styles[eps], lw=1.5)
            ax1.plot(t, cf[eps, kind, 0], color="k", ls="--", lw=0.7)
        ax1.plot([], [], color="grey", ls=styles[eps], label=f"eps = {eps:g}")
    ax1.plot([], [], color=figures.PALETTE["linear"], label="linear ReLN")
    ax1.plot([], [], color=figures.PALETTE["xor"], label="XoR ReLN")
    ax1.plot([], [], "k--", lw=0.7, label="closed form")
    ax1.set_yscale("log")
    ax1.set_ylim(1e-6, 5)  # float32 simulations floor near 1e-10
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("summed loss")
    ax1.legend(fontsize=7)
    eps_fine = np.linspace(min(eps_list), max(eps_list), 200)
    for kind, c in kinds:
        ax2.plot(
            eps_fine,
            xor_reln.closed_form_learning_time(eps_fine, kind, a0_mean, lr),
            color=c,
            label=f"{kind} (closed form)",
        )
        for s in seeds:
            times = [halving[e, kind, s] for e in eps_list]
            ax2.plot(eps_list, times, "o", color=c, ms=4, alpha=0.7)
    ax2.axvline(eps_paper, color="grey", lw=1)
    ax2.axvline(eps_pred, color=figures.PALETTE["reln"], lw=1, ls="--")
    ax2.set_xlabel("margin eps")
    ax2.set_ylabel("epochs to halve the loss")
    ax2.legend(fontsize=8)
    plt.tight_layout()
